package io.isthmus.ffi.verbs;

import io.isthmus.ffi.NativeLibrary;
import io.isthmus.ffi.NativeResource;
import io.isthmus.ffi.layout.IbvQpCap;
import io.isthmus.ffi.layout.IbvQpInitAttr;
import io.isthmus.ffi.layout.IbvSrqInitAttr;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.Consumer;

/**
 * A protection domain ({@code struct ibv_pd}): memory regions, queue pairs and shared receive
 * queues of one PD can work together. Closing it while any of them is open throws.
 */
public final class ProtectionDomain extends NativeResource {
    private final Context context;
    private final MemorySegment pd;

    ProtectionDomain(Context context, MemorySegment pd) {
        super("ibv_pd", context);
        this.context = context;
        this.pd = pd;
    }

    /** The context this PD belongs to. */
    public Context context() {
        return context;
    }

    /** The native {@code ibv_pd*}. */
    public MemorySegment address() {
        checkOpen();
        return pd;
    }

    /**
     * Registers {@code segment} ({@code ibv_reg_mr}): any native segment, including a memory-mapped
     * file ({@code FileChannel.map(..., arena)}). The region does not own the segment: the caller
     * keeps its arena open until the region is closed.
     *
     * @param accessFlags {@link AccessFlags} bits; remote write and atomics need {@link AccessFlags#LOCAL_WRITE}
     */
    public MemoryRegion registerMemory(MemorySegment segment, int accessFlags) {
        checkOpen();
        if (!segment.isNative()) {
            throw new IllegalArgumentException(
                    "only native segments can be registered: segment=" + segment + ", heap=true");
        }
        String details = "device=" + context.deviceName() + ", addr=0x" + Long.toHexString(segment.address())
                + ", length=" + segment.byteSize() + ", access=" + AccessFlags.toString(accessFlags);
        try (Arena call = Arena.ofConfined()) {
            MemorySegment capture = NativeLibrary.allocateErrnoCapture(call);
            MemorySegment mr;
            if ((accessFlags & AccessFlags.OPTIONAL_RANGE) == 0) {
                mr = (MemorySegment) Ibv.REG_MR.invokeExact(capture, pd, segment, segment.byteSize(), accessFlags);
                Calls.checkPointer(mr, capture, "ibv_reg_mr", details);
            } else {
                mr = (MemorySegment) Ibv.REG_MR_IOVA2.invokeExact(
                        capture, pd, segment, segment.byteSize(), segment.address(), accessFlags);
                Calls.checkPointer(mr, capture, "ibv_reg_mr_iova2", details);
            }
            return new MemoryRegion(this, mr, segment, accessFlags);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** {@code ibv_create_qp}. */
    public QueuePair createQueuePair(QueuePairOptions options) {
        checkOpen();
        String details = "device=" + context.deviceName() + ", " + options;
        try (Arena call = Arena.ofConfined()) {
            MemorySegment attr = call.allocate(IbvQpInitAttr.LAYOUT);
            options.writeTo(attr);
            MemorySegment capture = NativeLibrary.allocateErrnoCapture(call);
            MemorySegment qp = (MemorySegment) Ibv.CREATE_QP.invokeExact(capture, pd, attr);
            Calls.checkPointer(qp, capture, "ibv_create_qp", details);
            int maxInline = attr.get(ValueLayout.JAVA_INT, IbvQpInitAttr.CAP + IbvQpCap.MAX_INLINE_DATA);
            return new QueuePair(this, options, qp, maxInline, ProtectionDomain::destroyQueuePair, true);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /**
     * Wraps a queue pair another library created on this PD (e.g. {@code rdma_create_qp}); the
     * {@code destroyer} frees it when the wrapper closes.
     */
    public QueuePair adoptQueuePair(
            MemorySegment ibvQp, QueuePairOptions options, int maxInlineData, Consumer<MemorySegment> destroyer) {
        checkOpen();
        return new QueuePair(this, options, ibvQp, maxInlineData, destroyer, true);
    }

    /** {@code ibv_create_srq}. */
    public SharedReceiveQueue createSharedReceiveQueue(int maxWr, int maxSge, int limit) {
        checkOpen();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment attr = call.allocate(IbvSrqInitAttr.LAYOUT);
            attr.set(ValueLayout.JAVA_INT, IbvSrqInitAttr.ATTR_MAX_WR, maxWr);
            attr.set(ValueLayout.JAVA_INT, IbvSrqInitAttr.ATTR_MAX_SGE, maxSge);
            attr.set(ValueLayout.JAVA_INT, IbvSrqInitAttr.ATTR_SRQ_LIMIT, limit);
            MemorySegment capture = NativeLibrary.allocateErrnoCapture(call);
            MemorySegment srq = (MemorySegment) Ibv.CREATE_SRQ.invokeExact(capture, pd, attr);
            Calls.checkPointer(
                    srq,
                    capture,
                    "ibv_create_srq",
                    "device=" + context.deviceName() + ", max_wr=" + maxWr + ", max_sge=" + maxSge);
            return new SharedReceiveQueue(this, srq, maxSge);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    private static void destroyQueuePair(MemorySegment qp) {
        try {
            int rc = (int) Ibv.DESTROY_QP.invokeExact(qp);
            Calls.checkCode(rc, "ibv_destroy_qp", "qp=" + qp);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    @Override
    protected String details() {
        return "device=" + context.deviceName() + ", pd=0x" + Long.toHexString(pd.address());
    }

    @Override
    protected void release() {
        try {
            int rc = (int) Ibv.DEALLOC_PD.invokeExact(pd);
            Calls.checkCode(rc, "ibv_dealloc_pd", details());
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }
}
