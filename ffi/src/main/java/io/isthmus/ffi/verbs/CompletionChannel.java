package io.isthmus.ffi.verbs;

import io.isthmus.ffi.FileDescriptors;
import io.isthmus.ffi.NativeLibrary;
import io.isthmus.ffi.NativeResource;
import io.isthmus.ffi.VerbsException;
import io.isthmus.ffi.layout.IbvCompChannel;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A completion channel ({@code struct ibv_comp_channel}): the file descriptor on which CQs created
 * with it signal that a completion arrived after {@link CompletionQueue#requestNotification}.
 * The blocking alternative to busy polling.
 */
public final class CompletionChannel extends NativeResource {
    private final Context context;
    private final MemorySegment channel;
    private final Map<Long, CompletionQueue> queues = new ConcurrentHashMap<>();

    CompletionChannel(Context context, MemorySegment channel) {
        super("ibv_comp_channel", context);
        this.context = context;
        this.channel = channel.reinterpret(IbvCompChannel.LAYOUT.byteSize());
    }

    /** The native {@code ibv_comp_channel*}. */
    public MemorySegment address() {
        checkOpen();
        return channel;
    }

    /** The file descriptor, for an external event loop. */
    public int fd() {
        return address().get(ValueLayout.JAVA_INT, IbvCompChannel.FD);
    }

    void register(CompletionQueue cq) {
        queues.put(cq.address().address(), cq);
    }

    void unregister(CompletionQueue cq) {
        queues.remove(cq.address().address());
    }

    /**
     * Waits for a completion event ({@code ibv_get_cq_event}); the event is counted on the CQ and
     * acknowledged by {@link CompletionQueue#acknowledgeEvents()} or when the CQ closes.
     * Re-arm with {@link CompletionQueue#requestNotification} and poll the CQ afterwards.
     *
     * @param timeoutMillis the longest wait; negative waits forever
     * @return the CQ that has new completions, or null on timeout
     */
    public CompletionQueue awaitEvent(int timeoutMillis) {
        checkOpen();
        if (!FileDescriptors.awaitReadable(fd(), timeoutMillis)) {
            return null;
        }
        try (Arena call = Arena.ofConfined()) {
            MemorySegment cqOut = call.allocate(ValueLayout.ADDRESS);
            MemorySegment contextOut = call.allocate(ValueLayout.ADDRESS);
            MemorySegment capture = NativeLibrary.allocateErrnoCapture(call);
            int rc = (int) Ibv.GET_CQ_EVENT.invokeExact(capture, channel, cqOut, contextOut);
            VerbsException.checkErrno(rc, capture, "ibv_get_cq_event", details());
            long cqAddress = cqOut.get(ValueLayout.ADDRESS, 0).address();
            CompletionQueue cq = queues.get(cqAddress);
            if (cq == null) {
                throw new IllegalStateException(
                        "completion event for an unknown CQ: cq=0x" + Long.toHexString(cqAddress) + ", " + details());
            }
            cq.eventReceived();
            return cq;
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    @Override
    protected String details() {
        return "device=" + context.deviceName() + ", fd=" + channel.get(ValueLayout.JAVA_INT, IbvCompChannel.FD);
    }

    @Override
    protected void release() {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment capture = NativeLibrary.allocateErrnoCapture(call);
            int rc = (int) Ibv.DESTROY_COMP_CHANNEL.invokeExact(capture, channel);
            VerbsException.checkErrno(rc, capture, "ibv_destroy_comp_channel", details());
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }
}
