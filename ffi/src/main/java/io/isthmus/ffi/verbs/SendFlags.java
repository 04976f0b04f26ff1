package io.isthmus.ffi.verbs;

/** {@code enum ibv_send_flags}: bits of {@code ibv_send_wr.send_flags}. */
public final class SendFlags {
    /** Wait for earlier RDMA READs and atomics to complete before this request. */
    public static final int FENCE = 1;
    /** Generate a work completion (needed unless the QP signals all). */
    public static final int SIGNALED = 1 << 1;
    /** Set the solicited event bit (wakes a receiver that asked for solicited-only events). */
    public static final int SOLICITED = 1 << 2;
    /** Copy the payload into the WQE: the buffers may be reused as soon as the post returns. */
    public static final int INLINE = 1 << 3;

    public static final int IP_CSUM = 1 << 4;

    private SendFlags() {}
}
