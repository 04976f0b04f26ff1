package io.isthmus.ffi.cm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.isthmus.ffi.NativeLibrary;
import io.isthmus.ffi.NativeResource;
import io.isthmus.ffi.VerbsException;
import io.isthmus.ffi.layout.IbvQpCap;
import io.isthmus.ffi.layout.IbvQpInitAttr;
import io.isthmus.ffi.layout.RdmaCmId;
import io.isthmus.ffi.verbs.Context;
import io.isthmus.ffi.verbs.ProtectionDomain;
import io.isthmus.ffi.verbs.QueuePair;
import io.isthmus.ffi.verbs.QueuePairOptions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;

/**
 * An RDMA CM identifier ({@code struct rdma_cm_id}), the socket-like handle of a connection:
 * client side resolve address, resolve route, create QP, connect; server side bind, listen, and
 * for every CONNECT_REQUEST a new id to create a QP on and accept (or reject).
 *
 * <p>After address resolution (client) or on a connect request (server) the id is bound to a
 * device: {@link #context()} wraps its {@code verbs} context; allocate the PD and CQs there.
 * Close the QP, then the PD and CQs, then the id.
 */
public final class CmId extends NativeResource {
    private final EventChannel channel;
    private final MemorySegment id;
    private Context context;
    private QueuePair queuePair;

    CmId(EventChannel channel, MemorySegment id) {
        super("rdma_cm_id", channel);
        this.channel = channel;
        this.id = id.reinterpret(RdmaCmId.LAYOUT.byteSize());
        channel.register(this);
    }

    /** {@code rdma_create_id}. */
    public static CmId create(EventChannel channel, PortSpace portSpace) {
        Rdmacm.require();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment out = call.allocate(ADDRESS);
            MemorySegment capture = NativeLibrary.allocateErrnoCapture(call);
            int rc = (int) Rdmacm.CREATE_ID.invokeExact(
                    capture, channel.address(), out, MemorySegment.NULL, portSpace.value());
            VerbsException.checkErrno(rc, capture, "rdma_create_id", "port_space=" + portSpace);
            return new CmId(channel, out.get(ADDRESS, 0));
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** The native {@code rdma_cm_id*}. */
    public MemorySegment address() {
        checkOpen();
        return id;
    }

    /** The channel this id's events arrive on. */
    public EventChannel channel() {
        return channel;
    }

    /** The device context the id is bound to (after address resolution, bind to a device address or a connect request). */
    public synchronized Context context() {
        checkOpen();
        if (context == null) {
            MemorySegment verbs = id.get(ADDRESS, RdmaCmId.VERBS);
            if (verbs.equals(MemorySegment.NULL)) {
                throw new IllegalStateException("rdma_cm_id is not bound to a device yet: " + details());
            }
            context = Context.adopt(verbs);
        }
        return context;
    }

    /** The local port number on the device ({@code port_num}). */
    public int portNumber() {
        return Byte.toUnsignedInt(address().get(JAVA_BYTE, RdmaCmId.PORT_NUM));
    }

    /** The local address ({@code route.addr.src_addr}). */
    public InetSocketAddress localAddress() {
        return SocketAddresses.decode(address().asSlice(RdmaCmId.ROUTE_ADDR_SRC));
    }

    /** {@code rdma_bind_addr}. */
    public void bind(InetSocketAddress address) {
        call("rdma_bind_addr", address, (capture, arena) ->
                (int) Rdmacm.BIND_ADDR.invokeExact(capture, id, SocketAddresses.encode(address, arena)));
    }

    /** {@code rdma_listen}. */
    public void listen(int backlog) {
        call("rdma_listen", "backlog=" + backlog, (capture, arena) ->
                (int) Rdmacm.LISTEN.invokeExact(capture, id, backlog));
    }

    /** {@code rdma_resolve_addr}; completes with ADDR_RESOLVED (or ADDR_ERROR) on the channel. */
    public void resolveAddress(InetSocketAddress source, InetSocketAddress destination, int timeoutMillis) {
        call("rdma_resolve_addr", "src=" + source + ", dst=" + destination, (capture, arena) -> {
            MemorySegment src = source == null ? MemorySegment.NULL : SocketAddresses.encode(source, arena);
            MemorySegment dst = SocketAddresses.encode(destination, arena);
            return (int) Rdmacm.RESOLVE_ADDR.invokeExact(capture, id, src, dst, timeoutMillis);
        });
    }

    /** {@code rdma_resolve_route}; completes with ROUTE_RESOLVED (or ROUTE_ERROR). */
    public void resolveRoute(int timeoutMillis) {
        call("rdma_resolve_route", "timeout_ms=" + timeoutMillis, (capture, arena) ->
                (int) Rdmacm.RESOLVE_ROUTE.invokeExact(capture, id, timeoutMillis));
    }

    /**
     * {@code rdma_create_qp} on {@code pd} (which must belong to {@link #context()}); the QP is
     * moved through INIT/RTR/RTS by the connection manager during connect/accept.
     */
    public synchronized QueuePair createQueuePair(ProtectionDomain pd, QueuePairOptions options) {
        checkOpen();
        if (queuePair != null && !queuePair.isClosed()) {
            throw new IllegalStateException("rdma_cm_id already has a queue pair: " + details());
        }
        try (Arena call = Arena.ofConfined()) {
            MemorySegment attr = call.allocate(IbvQpInitAttr.LAYOUT);
            options.writeTo(attr);
            MemorySegment capture = NativeLibrary.allocateErrnoCapture(call);
            int rc = (int) Rdmacm.CREATE_QP.invokeExact(capture, id, pd.address(), attr);
            VerbsException.checkErrno(rc, capture, "rdma_create_qp", details() + ", " + options);
            MemorySegment qp = id.get(ADDRESS, RdmaCmId.QP);
            int maxInline = attr.get(ValueLayout.JAVA_INT, IbvQpInitAttr.CAP + IbvQpCap.MAX_INLINE_DATA);
            queuePair = pd.adoptQueuePair(qp, options, maxInline, ignored -> destroyQueuePair());
            return queuePair;
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    private void destroyQueuePair() {
        try {
            Rdmacm.DESTROY_QP.invokeExact(id);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** {@code rdma_connect}; completes with ESTABLISHED (or REJECTED/UNREACHABLE/CONNECT_ERROR). */
    public void connect(ConnectionParameters parameters) {
        call("rdma_connect", parameters.toString(), (capture, arena) ->
                (int) Rdmacm.CONNECT.invokeExact(capture, id, parameters.encode(arena)));
    }

    /** {@code rdma_accept} of a connection request; ESTABLISHED follows on the channel. */
    public void accept(ConnectionParameters parameters) {
        call("rdma_accept", parameters.toString(), (capture, arena) ->
                (int) Rdmacm.ACCEPT.invokeExact(capture, id, parameters.encode(arena)));
    }

    /** {@code rdma_reject} of a connection request, with private data for the peer. */
    public void reject(byte[] privateData) {
        call("rdma_reject", "private_data_len=" + privateData.length, (capture, arena) -> {
            MemorySegment data = arena.allocate(Math.max(1, privateData.length));
            MemorySegment.copy(privateData, 0, data, JAVA_BYTE, 0, privateData.length);
            return (int) Rdmacm.REJECT.invokeExact(capture, id, data, (byte) privateData.length);
        });
    }

    /** {@code rdma_disconnect}; both sides then get DISCONNECTED and the QP moves to ERR. */
    public void disconnect() {
        call("rdma_disconnect", "", (capture, arena) -> (int) Rdmacm.DISCONNECT.invokeExact(capture, id));
    }

    @FunctionalInterface
    private interface Verb {
        int invoke(MemorySegment capture, Arena arena) throws Throwable;
    }

    private void call(String verb, Object context, Verb body) {
        checkOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = NativeLibrary.allocateErrnoCapture(arena);
            int rc = body.invoke(capture, arena);
            VerbsException.checkErrno(
                    rc, capture, verb, details() + (context.toString().isEmpty() ? "" : ", " + context));
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    @Override
    protected String details() {
        return "id=0x" + Long.toHexString(id.address());
    }

    @Override
    protected void release() {
        if (queuePair != null && !queuePair.isClosed()) {
            throw new IllegalStateException(
                    "cannot close " + this + ": its queue pair is still open (" + queuePair + "); close it first");
        }
        if (context != null) {
            context.close();
        }
        channel.unregister(this);
        try (Arena call = Arena.ofConfined()) {
            MemorySegment capture = NativeLibrary.allocateErrnoCapture(call);
            int rc = (int) Rdmacm.DESTROY_ID.invokeExact(capture, id);
            VerbsException.checkErrno(rc, capture, "rdma_destroy_id", details());
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }
}
