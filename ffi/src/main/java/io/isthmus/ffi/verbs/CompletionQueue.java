package io.isthmus.ffi.verbs;

import io.isthmus.ffi.NativeLibrary;
import io.isthmus.ffi.NativeResource;
import io.isthmus.ffi.VerbsException;
import io.isthmus.ffi.layout.IbvCq;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * A completion queue ({@code struct ibv_cq}). {@link #poll} calls the provider's {@code poll_cq}
 * through a handle bound once at creation and allocates nothing.
 */
public final class CompletionQueue extends NativeResource {
    private final Context context;
    private final CompletionChannel channel;
    private final MemorySegment cq;
    private final MethodHandle pollCq;
    private final MethodHandle reqNotifyCq;
    private int unacknowledgedEvents;

    CompletionQueue(Context context, CompletionChannel channel, MemorySegment cq, boolean critical) {
        super("ibv_cq", context, channel);
        this.context = context;
        this.channel = channel;
        this.cq = cq.reinterpret(IbvCq.LAYOUT.byteSize());
        MemorySegment ibvContext = this.cq.get(ValueLayout.ADDRESS, IbvCq.CONTEXT);
        this.pollCq = ProviderOps.pollCq(ibvContext, this.cq, critical);
        this.reqNotifyCq = ProviderOps.reqNotifyCq(ibvContext, this.cq);
        if (channel != null) {
            channel.register(this);
        }
    }

    /** Test hook: a CQ over a hand-made {@code ibv_cq} whose context's ops point at upcall stubs. */
    static CompletionQueue overFake(MemorySegment fakeCq) {
        return new CompletionQueue(null, null, fakeCq, false);
    }

    /** The native {@code ibv_cq*}. */
    public MemorySegment address() {
        checkOpen();
        return cq;
    }

    /** The number of entries the provider allocated ({@code cqe}, at least what was asked). */
    public int capacity() {
        return address().get(ValueLayout.JAVA_INT, IbvCq.CQE);
    }

    /**
     * {@code ibv_poll_cq}: moves up to {@code completions.capacity()} completions into
     * {@code completions}. Allocation-free.
     *
     * @return how many completions were written (0 when the queue is empty)
     */
    public int poll(WorkCompletions completions) {
        return poll(completions, completions.capacity());
    }

    /** {@code ibv_poll_cq} for at most {@code max} completions ({@code max <= completions.capacity()}). */
    public int poll(WorkCompletions completions, int max) {
        checkOpen();
        if (max > completions.capacity()) {
            throw new IllegalArgumentException(
                    "max=" + max + " exceeds the completion array: capacity=" + completions.capacity());
        }
        int n;
        try {
            n = (int) pollCq.invokeExact(max, completions.segment());
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (n < 0) {
            throw new VerbsException("ibv_poll_cq", -n, details());
        }
        return n;
    }

    /**
     * {@code ibv_req_notify_cq}: arms the CQ so that the next completion (or the next solicited one)
     * raises an event on its {@link CompletionChannel}.
     */
    public void requestNotification(boolean solicitedOnly) {
        checkOpen();
        int rc;
        try {
            rc = (int) reqNotifyCq.invokeExact(solicitedOnly ? 1 : 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        Calls.checkCode(rc, "ibv_req_notify_cq", details());
    }

    synchronized void eventReceived() {
        unacknowledgedEvents++;
    }

    /** {@code ibv_ack_cq_events} for every event received so far. */
    public synchronized void acknowledgeEvents() {
        checkOpen();
        if (unacknowledgedEvents > 0) {
            try {
                Ibv.ACK_CQ_EVENTS.invokeExact(cq, unacknowledgedEvents);
            } catch (Throwable t) {
                throw NativeLibrary.rethrow(t);
            }
            unacknowledgedEvents = 0;
        }
    }

    @Override
    protected String details() {
        return "device=" + (context == null ? "none" : context.deviceName()) + ", cq=0x"
                + Long.toHexString(cq.address()) + ", cqe=" + cq.get(ValueLayout.JAVA_INT, IbvCq.CQE);
    }

    @Override
    protected void release() {
        acknowledgeEvents();
        if (channel != null) {
            channel.unregister(this);
        }
        if (context == null) {
            return; // a test's fake CQ
        }
        try {
            int rc = (int) Ibv.DESTROY_CQ.invokeExact(cq);
            Calls.checkCode(rc, "ibv_destroy_cq", details());
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }
}
