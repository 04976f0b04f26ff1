package io.isthmus.ffi.cm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.isthmus.ffi.FileDescriptors;
import io.isthmus.ffi.NativeLibrary;
import io.isthmus.ffi.NativeResource;
import io.isthmus.ffi.VerbsException;
import io.isthmus.ffi.layout.RdmaCmEvent;
import io.isthmus.ffi.layout.RdmaEventChannel;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An RDMA CM event channel ({@code struct rdma_event_channel}): the file descriptor the events of
 * its ids arrive on. {@link #awaitEvent} gets, copies and acknowledges one event.
 */
public final class EventChannel extends NativeResource {
    private final MemorySegment channel;
    private final Map<Long, CmId> ids = new ConcurrentHashMap<>();

    private EventChannel(MemorySegment channel) {
        super("rdma_event_channel");
        this.channel = channel.reinterpret(RdmaEventChannel.LAYOUT.byteSize());
    }

    /** {@code rdma_create_event_channel}. */
    public static EventChannel create() {
        Rdmacm.require();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment capture = NativeLibrary.allocateErrnoCapture(call);
            MemorySegment channel = (MemorySegment) Rdmacm.CREATE_EVENT_CHANNEL.invokeExact(capture);
            if (channel.equals(MemorySegment.NULL)) {
                throw new io.isthmus.ffi.VerbsException("rdma_create_event_channel", NativeLibrary.errno(capture), "");
            }
            return new EventChannel(channel);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** The native {@code rdma_event_channel*}. */
    public MemorySegment address() {
        checkOpen();
        return channel;
    }

    /** The channel's file descriptor. */
    public int fd() {
        return address().get(JAVA_INT, RdmaEventChannel.FD);
    }

    void register(CmId id) {
        ids.put(id.address().address(), id);
    }

    void unregister(CmId id) {
        ids.remove(id.address().address());
    }

    /**
     * Waits for the next event ({@code rdma_get_cm_event}), copies it and acknowledges it
     * ({@code rdma_ack_cm_event}). A CONNECT_REQUEST carries a new {@link CmId} owned by the caller.
     *
     * @param timeoutMillis the longest wait; negative waits forever
     * @return the event, or null on timeout
     */
    public CmEvent awaitEvent(int timeoutMillis) {
        checkOpen();
        if (!FileDescriptors.awaitReadable(fd(), timeoutMillis)) {
            return null;
        }
        try (Arena call = Arena.ofConfined()) {
            MemorySegment out = call.allocate(ADDRESS);
            MemorySegment capture = NativeLibrary.allocateErrnoCapture(call);
            int rc = (int) Rdmacm.GET_CM_EVENT.invokeExact(capture, channel, out);
            VerbsException.checkErrno(rc, capture, "rdma_get_cm_event", details());
            MemorySegment event = out.get(ADDRESS, 0).reinterpret(RdmaCmEvent.LAYOUT.byteSize());
            CmEvent copy;
            try {
                CmEventType type = CmEventType.of(event.get(JAVA_INT, RdmaCmEvent.EVENT));
                int status = event.get(JAVA_INT, RdmaCmEvent.STATUS);
                MemorySegment idPointer = event.get(ADDRESS, RdmaCmEvent.ID);
                MemorySegment listenPointer = event.get(ADDRESS, RdmaCmEvent.LISTEN_ID);
                CmId listenId = listenPointer.equals(MemorySegment.NULL) ? null : ids.get(listenPointer.address());
                CmId id = ids.get(idPointer.address());
                if (id == null && type == CmEventType.CONNECT_REQUEST) {
                    id = new CmId(this, idPointer);
                }
                int length = Byte.toUnsignedInt(event.get(JAVA_BYTE, RdmaCmEvent.PARAM_CONN_PRIVATE_DATA_LEN));
                MemorySegment data = event.get(ADDRESS, RdmaCmEvent.PARAM_CONN_PRIVATE_DATA);
                byte[] privateData = data.equals(MemorySegment.NULL) || length == 0
                        ? new byte[0]
                        : data.reinterpret(length).toArray(JAVA_BYTE);
                copy = new CmEvent(type, status, id, listenId, privateData);
            } finally {
                int ack = (int) Rdmacm.ACK_CM_EVENT.invokeExact(capture, event);
                VerbsException.checkErrno(ack, capture, "rdma_ack_cm_event", details());
            }
            return copy;
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /**
     * Waits for an event of type {@code expected}, throwing with the event's details when another
     * type (or nothing within the timeout) arrives.
     */
    public CmEvent expect(CmEventType expected, int timeoutMillis) {
        CmEvent event = awaitEvent(timeoutMillis);
        if (event == null) {
            throw new IllegalStateException(
                    "no RDMA CM event within timeout: expected=" + expected + ", timeout_ms=" + timeoutMillis);
        }
        if (event.type() != expected) {
            throw new IllegalStateException("unexpected RDMA CM event: expected=" + expected + ", actual="
                    + event.type() + ", status=" + event.status() + ", id=" + event.id());
        }
        return event;
    }

    @Override
    protected String details() {
        return "fd=" + channel.get(JAVA_INT, RdmaEventChannel.FD);
    }

    @Override
    protected void release() {
        try {
            Rdmacm.DESTROY_EVENT_CHANNEL.invokeExact(channel);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }
}
