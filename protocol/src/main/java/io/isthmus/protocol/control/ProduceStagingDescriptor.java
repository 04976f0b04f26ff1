package io.isthmus.protocol.control;

/**
 * The staging slots of one RDMA connection's produce writes: broker memory registered for that connection alone, one
 * slot per produce credit, each as large as the biggest batch the broker accepts ({@code message.max.bytes}). A
 * producer WRITEs each batch (WRITE WITH IMM) into a slot, never into the log; the broker copies it from the slot to
 * the segment's tail and validates and commits the copy. The producer can overwrite its slots at any time without
 * changing a committed record, and it holds no rkey of the log.
 *
 * <pre>
 *   stagingAddress
 *   +----------------+----------------+-----+----------------------+
 *   | slot 0         | slot 1         | ... | slot credits-1       |
 *   | slotBytes      | slotBytes      |     | slotBytes            |
 *   +----------------+----------------+-----+----------------------+
 * </pre>
 *
 * <p><b>Which slot.</b> A WRITE WITH IMM tells the broker only its immediate, so the slot is implied by the write's
 * place in the connection's stream of writes: the n-th WRITE WITH IMM the producer posts on the connection (counting
 * from 0, over every partition) goes to slot {@code n mod credits}, and the broker counts the writes it receives the
 * same way (RC delivers them in the order posted). The producer may reuse a slot once the write that used it was
 * acknowledged: the broker copies before it answers, and it answers every write, committed or not.
 */
public final class ProduceStagingDescriptor {
    /** Slots start on cache-line boundaries. */
    public static final int SLOT_ALIGNMENT = 64;

    private ProduceStagingDescriptor() {}

    /** The slot of the connection's {@code writeIndex}-th write (counting from 0) among {@code credits} slots. */
    public static int slot(final long writeIndex, final int credits) {
        return (int) Long.remainderUnsigned(writeIndex, credits);
    }

    /** The offset of {@code slot} from the first slot's address. */
    public static long slotOffset(final int slot, final int slotBytes) {
        return (long) slot * slotBytes;
    }

    /** The slot size for batches of at most {@code maxBatchBytes}: rounded up to {@link #SLOT_ALIGNMENT}. */
    public static int slotBytes(final int maxBatchBytes) {
        if (maxBatchBytes < 1 || maxBatchBytes > Integer.MAX_VALUE - SLOT_ALIGNMENT) {
            throw new IllegalArgumentException("batch size out of range: maxBatchBytes=" + maxBatchBytes);
        }
        return (maxBatchBytes + SLOT_ALIGNMENT - 1) & -SLOT_ALIGNMENT;
    }
}
