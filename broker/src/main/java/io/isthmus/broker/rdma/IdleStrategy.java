package io.isthmus.broker.rdma;

/** What a polling loop does when a pass found no work (Agrona's idle strategy). */
public interface IdleStrategy {
    /** Called after each pass with the work it did; idles only when {@code workCount} is 0. */
    void idle(int workCount);

    /** Back to the most eager state (after work arrives). */
    void reset();
}
