package io.isthmus.ffi.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;

import io.isthmus.ffi.NativeLibrary;
import io.isthmus.ffi.NativeResource;
import io.isthmus.ffi.VerbsException;
import io.isthmus.ffi.layout.IbvSrq;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * A shared receive queue ({@code struct ibv_srq}): receive buffers shared by every QP created with
 * it. {@link #postReceive} calls the provider's {@code post_srq_recv} through a handle bound once.
 */
public final class SharedReceiveQueue extends NativeResource {
    private final ProtectionDomain pd;
    private final MemorySegment srq;
    private final int maxSge;
    private final MethodHandle postSrqRecv;
    private final MemorySegment badRecvWr;

    SharedReceiveQueue(ProtectionDomain pd, MemorySegment srq, int maxSge) {
        super("ibv_srq", pd);
        this.pd = pd;
        this.srq = srq.reinterpret(IbvSrq.LAYOUT.byteSize());
        this.maxSge = maxSge;
        this.postSrqRecv = ProviderOps.postSrqRecv(this.srq.get(ADDRESS, IbvSrq.CONTEXT), this.srq, true);
        this.badRecvWr = pd.context().arena().allocate(ADDRESS);
    }

    /** The native {@code ibv_srq*}. */
    public MemorySegment address() {
        checkOpen();
        return srq;
    }

    /** {@code ibv_post_srq_recv} of the first {@code count} requests. Allocation-free. */
    public void postReceive(ReceiveWorkRequests requests, int count) {
        checkOpen();
        MemorySegment head = requests.chain(count);
        int rc;
        try {
            rc = (int) postSrqRecv.invokeExact(head, badRecvWr);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw new VerbsException(
                    "ibv_post_srq_recv",
                    Math.abs(rc),
                    details() + ", bad_wr_index="
                            + requests.indexOf(badRecvWr.get(ADDRESS, 0).address()) + ", count=" + count);
        }
    }

    @Override
    protected String details() {
        return "device=" + pd.context().deviceName() + ", srq=0x" + Long.toHexString(srq.address()) + ", max_sge="
                + maxSge;
    }

    @Override
    protected void release() {
        try {
            int rc = (int) Ibv.DESTROY_SRQ.invokeExact(srq);
            Calls.checkCode(rc, "ibv_destroy_srq", details());
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }
}
