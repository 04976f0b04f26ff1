package io.isthmus.broker.transaction;

/**
 * The states of a transactional id at its coordinator, with Kafka's names (what DescribeTransactions and
 * ListTransactions report) and Kafka's ids (what the transaction state log stores).
 *
 * <pre>
 *   Empty -- AddPartitions/AddOffsets --> Ongoing -- EndTxn(commit) --> PrepareCommit -- markers --> CompleteCommit
 *                                            |                                                          |
 *                                            +-- EndTxn(abort), timeout, fencing --> PrepareAbort -- markers --> CompleteAbort
 *   Complete* -- AddPartitions/AddOffsets --> Ongoing;  Empty/Complete* -- InitProducerId --> Empty (epoch + 1)
 *   Empty/Complete*, idle past transactional.id.expiration.ms --> removed
 * </pre>
 */
public enum TransactionState {
    EMPTY(0, "Empty"),
    ONGOING(1, "Ongoing"),
    PREPARE_COMMIT(2, "PrepareCommit"),
    PREPARE_ABORT(3, "PrepareAbort"),
    COMPLETE_COMMIT(4, "CompleteCommit"),
    COMPLETE_ABORT(5, "CompleteAbort");

    private final byte id;
    private final String kafkaName;

    TransactionState(final int id, final String kafkaName) {
        this.id = (byte) id;
        this.kafkaName = kafkaName;
    }

    /** The id stored in the transaction state log (Kafka's). */
    public byte id() {
        return id;
    }

    /** The name Kafka's admin APIs report. */
    public String kafkaName() {
        return kafkaName;
    }

    /** Markers are being written: the transaction's outcome is decided but not yet in every partition. */
    public boolean isPreparing() {
        return this == PREPARE_COMMIT || this == PREPARE_ABORT;
    }

    /** No transaction open: a new one may begin. */
    public boolean isIdle() {
        return this == EMPTY || this == COMPLETE_COMMIT || this == COMPLETE_ABORT;
    }

    public static TransactionState ofId(final byte id) {
        for (final TransactionState state : values()) {
            if (state.id == id) {
                return state;
            }
        }
        throw new IllegalArgumentException("unknown transaction state id " + id);
    }

    /** The state with Kafka's name, case-insensitive, or null (ListTransactions reports unknown filters). */
    public static TransactionState ofKafkaName(final String name) {
        for (final TransactionState state : values()) {
            if (state.kafkaName.equalsIgnoreCase(name)) {
                return state;
            }
        }
        return null;
    }
}
