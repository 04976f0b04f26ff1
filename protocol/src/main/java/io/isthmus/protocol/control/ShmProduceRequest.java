package io.isthmus.protocol.control;

/**
 * SHM_PRODUCE request body, the doorbell: slot {@code slot} of staging file {@code stagingId} holds one whole batch
 * for the file's partition. The broker copies it to the partition's tail, validates and commits the copy through the
 * partition's append gateway (the one TCP produce takes, so every writer of the partition is in one order), and
 * answers; the producer may reuse the slot once answered. Doorbells of one connection are answered in the order sent.
 *
 * <pre>
 *   0           4          8
 *   +-----------+----------+
 *   | stagingId | slot     |
 *   | int32     | int32    |
 *   +-----------+----------+
 * </pre>
 */
public final class ShmProduceRequest extends ControlFlyweight<ShmProduceRequest> {
    public static final int STAGING_ID_OFFSET = 0;
    public static final int SLOT_OFFSET = 4;
    public static final int LENGTH = 8;

    public ShmProduceRequest() {
        super("ShmProduce request", LENGTH, null);
    }

    public int stagingId() {
        return getInt32(STAGING_ID_OFFSET);
    }

    public ShmProduceRequest stagingId(final int stagingId) {
        putInt32(STAGING_ID_OFFSET, stagingId);
        return this;
    }

    public int slot() {
        return getInt32(SLOT_OFFSET);
    }

    public ShmProduceRequest slot(final int slot) {
        putInt32(SLOT_OFFSET, slot);
        return this;
    }
}
