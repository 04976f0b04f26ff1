package io.isthmus.broker.rdma;

/**
 * The answers one produce grant owes its writes, sent in the order the writes were handled. On a cluster an {@code
 * acks=-1} write is answered only once the in-sync replicas hold it, and those waits end one by one, on whichever thread
 * moved the high watermark, in any order; a producer completes a partition's batches in the order their answers
 * arrive, so they must arrive in the order the batches were written (Kafka's callbacks for one partition run in
 * order). An answer that is known at once still waits behind the answers before it.
 *
 * <p>A ring of the session's {@code credits} entries, allocated at the first answer that has to wait: every entry
 * answers a write that holds one of the client's credits, so no more can be owed. Confined to the datapath thread.
 */
final class AnswerQueue {
    private final int capacity;
    private long[] baseOffsets;
    private int[] immediates;
    private short[] errorCodes;
    private boolean[] known;
    /** Position of the oldest answer owed; positions only grow, an entry's index is its position mod capacity. */
    private long head;

    private long tail;

    AnswerQueue(final int capacity) {
        this.capacity = capacity;
    }

    boolean isEmpty() {
        return head == tail;
    }

    /**
     * Owes an answer to the write with {@code immediate}, to be given by {@link #complete} with the position returned.
     *
     * @throws IllegalStateException if more answers are owed than the client has credits (it wrote beyond them)
     */
    long owe(final int immediate) {
        if (tail - head == capacity) {
            throw new IllegalStateException(
                    "more answers owed than the client has credits: owed=" + (tail - head) + " credits=" + capacity);
        }
        if (known == null) {
            baseOffsets = new long[capacity];
            immediates = new int[capacity];
            errorCodes = new short[capacity];
            known = new boolean[capacity];
        }
        final int at = (int) (tail % capacity);
        immediates[at] = immediate;
        known[at] = false;
        return tail++;
    }

    /** The answer owed at {@code position} is now known; it is sent by {@link #flush} once those before it are. */
    void complete(final long position, final long baseOffset, final short errorCode) {
        final int at = (int) (position % capacity);
        baseOffsets[at] = baseOffset;
        errorCodes[at] = errorCode;
        known[at] = true;
    }

    /** Answers {@code immediate} now if nothing is owed before it, else behind what is. */
    void answer(
            final RdmaSession session,
            final SharedProducePath.Acker acker,
            final long baseOffset,
            final int immediate,
            final short errorCode) {
        if (isEmpty()) {
            acker.ack(session, baseOffset, immediate, errorCode);
            return;
        }
        complete(owe(immediate), baseOffset, errorCode);
        flush(session, acker);
    }

    /** Sends the known answers at the head, oldest first, up to the first still unknown. */
    void flush(final RdmaSession session, final SharedProducePath.Acker acker) {
        while (head != tail) {
            final int at = (int) (head % capacity);
            if (!known[at]) {
                return;
            }
            head++;
            acker.ack(session, baseOffsets[at], immediates[at], errorCodes[at]);
        }
    }

    /** Answers owed and not sent yet. */
    int owed() {
        return (int) (tail - head);
    }
}
