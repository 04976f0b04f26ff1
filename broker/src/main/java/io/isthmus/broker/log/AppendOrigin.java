package io.isthmus.broker.log;

/** Who appends: decides which batches an append may carry (Kafka's {@code AppendOrigin}). */
public enum AppendOrigin {
    /** A producer, over TCP or RDMA: data batches only; control batches are refused. */
    CLIENT,
    /** The broker's transaction coordinator: the transaction markers (control batches) it writes. */
    COORDINATOR
}
