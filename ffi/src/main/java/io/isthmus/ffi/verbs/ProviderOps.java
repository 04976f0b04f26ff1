package io.isthmus.ffi.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.isthmus.ffi.NativeLibrary;
import io.isthmus.ffi.layout.IbvContext;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;

/**
 * The {@code static inline} data-path verbs of {@code verbs.h}, done the way the header does them:
 * read the provider's function pointer from {@code context->ops} and call it. Each pointer is read
 * once per QP/CQ/SRQ and bound, together with the object pointer, into a handle stored in a final
 * field, so a post or a poll is one {@code invokeExact} with no allocation.
 *
 * <p>Downcalls are {@link Linker.Option#critical(boolean) critical} (no thread-state transition):
 * provider post/poll functions are short and never call back into Java. Handles bound to a test's
 * upcall stub must not be critical; {@code critical=false} exists for that.
 */
final class ProviderOps {
    private static final Linker LINKER = NativeLibrary.linker();
    private static final FunctionDescriptor POST =
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS); // (obj, wr, bad_wr)
    private static final FunctionDescriptor POLL_CQ =
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS); // (cq, num_entries, wc)
    private static final FunctionDescriptor REQ_NOTIFY = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT);

    private static final MethodHandle POST_CRITICAL = LINKER.downcallHandle(POST, Linker.Option.critical(false));
    private static final MethodHandle POST_REGULAR = LINKER.downcallHandle(POST);
    private static final MethodHandle POLL_CRITICAL = LINKER.downcallHandle(POLL_CQ, Linker.Option.critical(false));
    private static final MethodHandle POLL_REGULAR = LINKER.downcallHandle(POLL_CQ);
    private static final MethodHandle NOTIFY_REGULAR = LINKER.downcallHandle(REQ_NOTIFY);

    private ProviderOps() {}

    /** {@code ibv_post_send}: a handle of type {@code (MemorySegment wr, MemorySegment badWr)int}. */
    static MethodHandle postSend(MemorySegment context, MemorySegment qp, boolean critical) {
        return bind(critical ? POST_CRITICAL : POST_REGULAR, function(context, IbvContext.OPS_POST_SEND), qp);
    }

    /** {@code ibv_post_recv}: {@code (MemorySegment wr, MemorySegment badWr)int}. */
    static MethodHandle postRecv(MemorySegment context, MemorySegment qp, boolean critical) {
        return bind(critical ? POST_CRITICAL : POST_REGULAR, function(context, IbvContext.OPS_POST_RECV), qp);
    }

    /** {@code ibv_post_srq_recv}: {@code (MemorySegment wr, MemorySegment badWr)int}. */
    static MethodHandle postSrqRecv(MemorySegment context, MemorySegment srq, boolean critical) {
        return bind(critical ? POST_CRITICAL : POST_REGULAR, function(context, IbvContext.OPS_POST_SRQ_RECV), srq);
    }

    /** {@code ibv_poll_cq}: {@code (int numEntries, MemorySegment wc)int}. */
    static MethodHandle pollCq(MemorySegment context, MemorySegment cq, boolean critical) {
        return bind(critical ? POLL_CRITICAL : POLL_REGULAR, function(context, IbvContext.OPS_POLL_CQ), cq);
    }

    /** {@code ibv_req_notify_cq}: {@code (int solicitedOnly)int}. */
    static MethodHandle reqNotifyCq(MemorySegment context, MemorySegment cq) {
        return bind(NOTIFY_REGULAR, function(context, IbvContext.OPS_REQ_NOTIFY_CQ), cq);
    }

    private static MemorySegment function(MemorySegment context, long offset) {
        MemorySegment pointer =
                context.reinterpret(IbvContext.LAYOUT.byteSize()).get(ADDRESS, offset);
        if (pointer.equals(MemorySegment.NULL)) {
            throw new IllegalStateException(
                    "provider does not implement ibv_context_ops entry: offset=" + offset + ", context=" + context);
        }
        return pointer;
    }

    private static MethodHandle bind(MethodHandle generic, MemorySegment function, MemorySegment object) {
        return MethodHandles.insertArguments(generic, 0, function, object);
    }
}
