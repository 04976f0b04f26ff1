package io.isthmus.ffi.verbs;

import io.isthmus.ffi.NativeLibrary;
import io.isthmus.ffi.NativeResource;
import io.isthmus.ffi.layout.IbvMr;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A registered memory region ({@code struct ibv_mr}). It does not own its segment: the caller's
 * arena must stay open until the region is closed ({@code ibv_dereg_mr}).
 */
public final class MemoryRegion extends NativeResource {
    private final MemorySegment mr;
    private final MemorySegment segment;
    private final int accessFlags;
    private final int lkey;
    private final int rkey;

    MemoryRegion(ProtectionDomain pd, MemorySegment mr, MemorySegment segment, int accessFlags) {
        super("ibv_mr", pd);
        this.mr = mr.reinterpret(IbvMr.LAYOUT.byteSize());
        this.segment = segment;
        this.accessFlags = accessFlags;
        this.lkey = this.mr.get(ValueLayout.JAVA_INT, IbvMr.LKEY);
        this.rkey = this.mr.get(ValueLayout.JAVA_INT, IbvMr.RKEY);
    }

    /** The registered memory (the caller's segment). */
    public MemorySegment segment() {
        checkOpen();
        return segment;
    }

    /** The start address, what a peer uses as remote address base. */
    public long address() {
        return segment.address();
    }

    /** The registered length in bytes. */
    public long length() {
        return segment.byteSize();
    }

    /** The local key, for SGEs. */
    public int lkey() {
        return lkey;
    }

    /** The remote key, for peers' RDMA READ/WRITE/atomics. */
    public int rkey() {
        return rkey;
    }

    /** The {@link AccessFlags} it was registered with. */
    public int accessFlags() {
        return accessFlags;
    }

    @Override
    protected String details() {
        return "addr=0x" + Long.toHexString(segment.address()) + ", length=" + segment.byteSize() + ", lkey=0x"
                + Integer.toHexString(lkey) + ", rkey=0x" + Integer.toHexString(rkey) + ", access="
                + AccessFlags.toString(accessFlags);
    }

    @Override
    protected void release() {
        try {
            int rc = (int) Ibv.DEREG_MR.invokeExact(mr);
            Calls.checkCode(rc, "ibv_dereg_mr", details());
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }
}
