package io.isthmus.ffi.verbs;

/**
 * What one side of an RC connection tells the other when queue pairs are connected by hand
 * (without rdma_cm): QP number, first packet sequence number, GID and LID.
 *
 * @param qpNumber {@code qp_num}
 * @param packetSequenceNumber the first PSN this side sends with (24 bits)
 * @param gid the port GID (RoCE: the index the peer uses as {@code sgid_index} must give this)
 * @param lid the port LID (0 on RoCE)
 */
public record QueuePairAddress(int qpNumber, int packetSequenceNumber, Gid gid, int lid) {}
