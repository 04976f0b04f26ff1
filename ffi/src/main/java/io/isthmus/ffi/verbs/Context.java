package io.isthmus.ffi.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.isthmus.ffi.FileDescriptors;
import io.isthmus.ffi.NativeLibrary;
import io.isthmus.ffi.NativeResource;
import io.isthmus.ffi.VerbsException;
import io.isthmus.ffi.layout.IbvAsyncEvent;
import io.isthmus.ffi.layout.IbvContext;
import io.isthmus.ffi.layout.IbvDevice;
import io.isthmus.ffi.layout.IbvDeviceAttr;
import io.isthmus.ffi.layout.IbvGid;
import io.isthmus.ffi.layout.IbvPortAttr;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An open device ({@code struct ibv_context}): queries, and the factory of protection domains,
 * completion channels and completion queues.
 *
 * <p>Owns a shared {@link Arena} for the small native structs of the objects created from it
 * (out-pointers of queue pairs, for example); it is freed when the context closes, after every
 * object created from the context was closed. A context adopted from librdmacm
 * ({@link #adopt}) is not closed by {@link #close()}: librdmacm owns it.
 */
public final class Context extends NativeResource {
    private final MemorySegment context;
    private final String deviceName;
    private final boolean owned;
    private final Arena arena = Arena.ofShared();

    Context(MemorySegment context, String deviceName, boolean owned) {
        super("ibv_context");
        this.context = context.reinterpret(IbvContext.LAYOUT.byteSize());
        this.deviceName = deviceName;
        this.owned = owned;
    }

    /**
     * Wraps an {@code ibv_context*} that another library owns (e.g. {@code rdma_cm_id->verbs}).
     * Closing the wrapper frees only the wrapper's own structs.
     */
    public static Context adopt(MemorySegment ibvContext) {
        Ibv.require();
        if (ibvContext.equals(MemorySegment.NULL)) {
            throw new IllegalArgumentException("ibv_context is NULL");
        }
        MemorySegment context = ibvContext.reinterpret(IbvContext.LAYOUT.byteSize());
        MemorySegment device = context.get(ADDRESS, IbvContext.DEVICE).reinterpret(IbvDevice.LAYOUT.byteSize());
        return new Context(context, device.getString(IbvDevice.NAME), false);
    }

    /** The device name, e.g. {@code rxe0}. */
    public String deviceName() {
        return deviceName;
    }

    /** The native {@code ibv_context*}. */
    public MemorySegment address() {
        checkOpen();
        return context;
    }

    /** {@code num_comp_vectors}: how many completion vectors CQs can be spread over. */
    public int completionVectors() {
        return address().get(JAVA_INT, IbvContext.NUM_COMP_VECTORS);
    }

    /** The small-struct arena of this context. */
    Arena arena() {
        checkOpen();
        return arena;
    }

    /** {@code ibv_query_device}. */
    public DeviceAttributes queryDevice() {
        checkOpen();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment attr = call.allocate(IbvDeviceAttr.LAYOUT);
            int rc = (int) Ibv.QUERY_DEVICE.invokeExact(context, attr);
            Calls.checkCode(rc, "ibv_query_device", "device=" + deviceName);
            return new DeviceAttributes(
                    attr.getString(IbvDeviceAttr.FW_VER),
                    attr.get(JAVA_LONG, IbvDeviceAttr.NODE_GUID),
                    attr.get(JAVA_LONG, IbvDeviceAttr.MAX_MR_SIZE),
                    attr.get(JAVA_INT, IbvDeviceAttr.VENDOR_ID),
                    attr.get(JAVA_INT, IbvDeviceAttr.VENDOR_PART_ID),
                    attr.get(JAVA_INT, IbvDeviceAttr.MAX_QP),
                    attr.get(JAVA_INT, IbvDeviceAttr.MAX_QP_WR),
                    attr.get(JAVA_INT, IbvDeviceAttr.DEVICE_CAP_FLAGS),
                    attr.get(JAVA_INT, IbvDeviceAttr.MAX_SGE),
                    attr.get(JAVA_INT, IbvDeviceAttr.MAX_SGE_RD),
                    attr.get(JAVA_INT, IbvDeviceAttr.MAX_CQ),
                    attr.get(JAVA_INT, IbvDeviceAttr.MAX_CQE),
                    attr.get(JAVA_INT, IbvDeviceAttr.MAX_MR),
                    attr.get(JAVA_INT, IbvDeviceAttr.MAX_PD),
                    attr.get(JAVA_INT, IbvDeviceAttr.MAX_QP_RD_ATOM),
                    attr.get(JAVA_INT, IbvDeviceAttr.MAX_QP_INIT_RD_ATOM),
                    AtomicCapability.of(attr.get(JAVA_INT, IbvDeviceAttr.ATOMIC_CAP)),
                    attr.get(JAVA_INT, IbvDeviceAttr.MAX_SRQ),
                    attr.get(JAVA_INT, IbvDeviceAttr.MAX_SRQ_WR),
                    attr.get(JAVA_INT, IbvDeviceAttr.MAX_SRQ_SGE),
                    Byte.toUnsignedInt(attr.get(JAVA_BYTE, IbvDeviceAttr.PHYS_PORT_CNT)));
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /**
     * {@code ibv_query_port}. Binds the exported function, as the header's {@code ___ibv_query_port}
     * does when the provider has no extended query, with the struct zeroed first.
     */
    public PortAttributes queryPort(int port) {
        checkOpen();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment attr = call.allocate(IbvPortAttr.LAYOUT); // zeroed
            int rc = (int) Ibv.QUERY_PORT.invokeExact(context, (byte) port, attr);
            Calls.checkCode(rc, "ibv_query_port", "device=" + deviceName + ", port=" + port);
            return new PortAttributes(
                    PortState.of(attr.get(JAVA_INT, IbvPortAttr.STATE)),
                    Mtu.of(attr.get(JAVA_INT, IbvPortAttr.MAX_MTU)),
                    Mtu.of(attr.get(JAVA_INT, IbvPortAttr.ACTIVE_MTU)),
                    attr.get(JAVA_INT, IbvPortAttr.GID_TBL_LEN),
                    attr.get(JAVA_INT, IbvPortAttr.PORT_CAP_FLAGS),
                    Integer.toUnsignedLong(attr.get(JAVA_INT, IbvPortAttr.MAX_MSG_SZ)),
                    Short.toUnsignedInt(attr.get(JAVA_SHORT, IbvPortAttr.LID)),
                    LinkLayer.of(attr.get(JAVA_BYTE, IbvPortAttr.LINK_LAYER)));
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** {@code ibv_query_gid}: entry {@code index} of the port's GID table. */
    public Gid queryGid(int port, int index) {
        checkOpen();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment gid = call.allocate(IbvGid.LAYOUT);
            MemorySegment capture = NativeLibrary.allocateErrnoCapture(call);
            int rc = (int) Ibv.QUERY_GID.invokeExact(capture, context, (byte) port, index, gid);
            VerbsException.checkErrno(
                    rc, capture, "ibv_query_gid", "device=" + deviceName + ", port=" + port + ", index=" + index);
            return Gid.read(gid, IbvGid.RAW);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** {@code ibv_alloc_pd}. */
    public ProtectionDomain allocateProtectionDomain() {
        checkOpen();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment capture = NativeLibrary.allocateErrnoCapture(call);
            MemorySegment pd = (MemorySegment) Ibv.ALLOC_PD.invokeExact(capture, context);
            Calls.checkPointer(pd, capture, "ibv_alloc_pd", "device=" + deviceName);
            return new ProtectionDomain(this, pd);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** {@code ibv_create_comp_channel}. */
    public CompletionChannel createCompletionChannel() {
        checkOpen();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment capture = NativeLibrary.allocateErrnoCapture(call);
            MemorySegment channel = (MemorySegment) Ibv.CREATE_COMP_CHANNEL.invokeExact(capture, context);
            Calls.checkPointer(channel, capture, "ibv_create_comp_channel", "device=" + deviceName);
            return new CompletionChannel(this, channel);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** {@code ibv_create_cq} without a completion channel (busy polling only). */
    public CompletionQueue createCompletionQueue(int entries) {
        return createCompletionQueue(entries, null, 0);
    }

    /**
     * {@code ibv_create_cq}.
     *
     * @param entries the minimum number of entries (the provider may round up)
     * @param channel where completion events are delivered after {@link CompletionQueue#requestNotification}; may be null
     * @param completionVector the completion vector, {@code 0 <= v < completionVectors()}
     */
    public CompletionQueue createCompletionQueue(int entries, CompletionChannel channel, int completionVector) {
        checkOpen();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment capture = NativeLibrary.allocateErrnoCapture(call);
            MemorySegment channelPointer = channel == null ? MemorySegment.NULL : channel.address();
            MemorySegment cq = (MemorySegment) Ibv.CREATE_CQ.invokeExact(
                    capture, context, entries, MemorySegment.NULL, channelPointer, completionVector);
            Calls.checkPointer(
                    cq,
                    capture,
                    "ibv_create_cq",
                    "device=" + deviceName + ", cqe=" + entries + ", comp_vector=" + completionVector);
            return new CompletionQueue(this, channel, cq, true);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** The file descriptor asynchronous events arrive on. */
    public int asyncFd() {
        return address().get(JAVA_INT, IbvContext.ASYNC_FD);
    }

    /**
     * Waits for the next asynchronous event ({@code ibv_get_async_event}) and acknowledges it
     * ({@code ibv_ack_async_event}).
     *
     * @param timeoutMillis the longest wait; negative waits forever
     * @return the event, or null on timeout
     */
    public AsyncEvent awaitAsyncEvent(int timeoutMillis) {
        checkOpen();
        if (!FileDescriptors.awaitReadable(asyncFd(), timeoutMillis)) {
            return null;
        }
        try (Arena call = Arena.ofConfined()) {
            MemorySegment event = call.allocate(IbvAsyncEvent.LAYOUT);
            MemorySegment capture = NativeLibrary.allocateErrnoCapture(call);
            int rc = (int) Ibv.GET_ASYNC_EVENT.invokeExact(capture, context, event);
            VerbsException.checkErrno(rc, capture, "ibv_get_async_event", "device=" + deviceName);
            AsyncEventType type = AsyncEventType.of(event.get(JAVA_INT, IbvAsyncEvent.EVENT_TYPE));
            boolean portEvent = type == AsyncEventType.PORT_ACTIVE
                    || type == AsyncEventType.PORT_ERR
                    || type == AsyncEventType.LID_CHANGE
                    || type == AsyncEventType.PKEY_CHANGE
                    || type == AsyncEventType.SM_CHANGE
                    || type == AsyncEventType.CLIENT_REREGISTER
                    || type == AsyncEventType.GID_CHANGE;
            AsyncEvent result = portEvent
                    ? new AsyncEvent(type, 0, event.get(JAVA_INT, IbvAsyncEvent.ELEMENT_PORT_NUM))
                    : new AsyncEvent(type, event.get(JAVA_LONG, IbvAsyncEvent.ELEMENT_QP), 0);
            Ibv.ACK_ASYNC_EVENT.invokeExact(event);
            return result;
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    @Override
    protected String details() {
        return "device=" + deviceName + ", owned=" + owned;
    }

    @Override
    protected void release() {
        arena.close();
        if (owned) {
            try (Arena call = Arena.ofConfined()) {
                MemorySegment capture = NativeLibrary.allocateErrnoCapture(call);
                int rc = (int) Ibv.CLOSE_DEVICE.invokeExact(capture, context);
                VerbsException.checkErrno(rc, capture, "ibv_close_device", "device=" + deviceName);
            } catch (Throwable t) {
                throw NativeLibrary.rethrow(t);
            }
        }
    }
}
