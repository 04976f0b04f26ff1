package io.isthmus.client.network;

import java.lang.foreign.MemorySegment;

/**
 * Off-heap memory a transport lent to its reader: a TCP {@link ReceiveBuffer}, an RDMA READ target, later a shared
 * memory window. The consumer hands records to the application in place from it, so it must not be reused before the
 * application is done with them; {@link #release()} says so. One interface, so that fetched data does not need a field
 * per transport.
 */
public interface LeasedBuffer {
    /** The whole buffer; what was received lies at the offsets its transport reported. */
    MemorySegment segment();

    /** Gives the buffer back to its transport: its bytes may be overwritten from now on. */
    void release();
}
