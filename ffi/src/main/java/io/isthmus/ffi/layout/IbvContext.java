package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.INT;
import static io.isthmus.ffi.layout.CLayouts.POINTER;
import static io.isthmus.ffi.layout.CLayouts.PTHREAD_MUTEX;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_context} with its embedded {@code struct ibv_context_ops}: the provider's
 * function-pointer table behind the {@code static inline} data-path verbs of {@code verbs.h}
 * ({@code ibv_post_send} is {@code qp->context->ops.post_send(qp, wr, bad_wr)}).
 *
 * <pre>
 *  0        8                                   264      268      272      280     320
 *  +--------+-----------------------------------+--------+--------+--------+-------+------------+
 *  | device | ops (32 function pointers)        | cmd_fd |async_fd| n_cvec | mutex | abi_compat |
 *  +--------+-----------------------------------+--------+--------+--------+-------+------------+
 *             ops.poll_cq = +88, ops.req_notify_cq = +96, ops.post_srq_recv = +160,
 *             ops.post_send = +200, ops.post_recv = +208 (relative to ops)
 * </pre>
 */
public final class IbvContext {
    /** The members of {@code struct ibv_context_ops} in declaration order. */
    private static final String[] OPS = {
        "_compat_query_device",
        "_compat_query_port",
        "_compat_alloc_pd",
        "_compat_dealloc_pd",
        "_compat_reg_mr",
        "_compat_rereg_mr",
        "_compat_dereg_mr",
        "alloc_mw",
        "bind_mw",
        "dealloc_mw",
        "_compat_create_cq",
        "poll_cq",
        "req_notify_cq",
        "_compat_cq_event",
        "_compat_resize_cq",
        "_compat_destroy_cq",
        "_compat_create_srq",
        "_compat_modify_srq",
        "_compat_query_srq",
        "_compat_destroy_srq",
        "post_srq_recv",
        "_compat_create_qp",
        "_compat_query_qp",
        "_compat_modify_qp",
        "_compat_destroy_qp",
        "post_send",
        "post_recv",
        "_compat_create_ah",
        "_compat_destroy_ah",
        "_compat_attach_mcast",
        "_compat_detach_mcast",
        "_compat_async_event"
    };

    /** {@code struct ibv_context_ops}. */
    public static final StructLayout OPS_LAYOUT = opsLayout();

    public static final StructLayout LAYOUT = struct(
            "struct ibv_context",
            POINTER.withName("device"),
            OPS_LAYOUT.withName("ops"),
            INT.withName("cmd_fd"),
            INT.withName("async_fd"),
            INT.withName("num_comp_vectors"),
            PTHREAD_MUTEX.withName("mutex"),
            POINTER.withName("abi_compat"));

    public static final long DEVICE = offsetOf(LAYOUT, "device");
    public static final long OPS_POLL_CQ = offsetOf(LAYOUT, "ops.poll_cq");
    public static final long OPS_REQ_NOTIFY_CQ = offsetOf(LAYOUT, "ops.req_notify_cq");
    public static final long OPS_POST_SRQ_RECV = offsetOf(LAYOUT, "ops.post_srq_recv");
    public static final long OPS_POST_SEND = offsetOf(LAYOUT, "ops.post_send");
    public static final long OPS_POST_RECV = offsetOf(LAYOUT, "ops.post_recv");
    public static final long CMD_FD = offsetOf(LAYOUT, "cmd_fd");
    public static final long ASYNC_FD = offsetOf(LAYOUT, "async_fd");
    public static final long NUM_COMP_VECTORS = offsetOf(LAYOUT, "num_comp_vectors");

    private IbvContext() {}

    private static StructLayout opsLayout() {
        MemoryLayout[] members = new MemoryLayout[OPS.length];
        for (int i = 0; i < OPS.length; i++) {
            members[i] = POINTER.withName(OPS[i]);
        }
        return struct("struct ibv_context_ops", members);
    }
}
