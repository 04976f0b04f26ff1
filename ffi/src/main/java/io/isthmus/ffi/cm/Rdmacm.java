package io.isthmus.ffi.cm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.isthmus.ffi.NativeLibrary;
import io.isthmus.ffi.RdmaUnavailableException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;

/** The exported functions of {@code librdmacm.so.1}, bound once; all but the void ones capture errno. */
final class Rdmacm {
    private static final NativeLibrary LIB = NativeLibrary.RDMACM;

    static final MethodHandle CREATE_EVENT_CHANNEL = errno("rdma_create_event_channel", FunctionDescriptor.of(ADDRESS));
    static final MethodHandle DESTROY_EVENT_CHANNEL =
            LIB.downcall("rdma_destroy_event_channel", FunctionDescriptor.ofVoid(ADDRESS));
    static final MethodHandle CREATE_ID =
            errno("rdma_create_id", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
    static final MethodHandle DESTROY_ID = errno("rdma_destroy_id", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle BIND_ADDR = errno("rdma_bind_addr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle RESOLVE_ADDR =
            errno("rdma_resolve_addr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
    static final MethodHandle RESOLVE_ROUTE =
            errno("rdma_resolve_route", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle LISTEN = errno("rdma_listen", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle CONNECT = errno("rdma_connect", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle ACCEPT = errno("rdma_accept", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle REJECT =
            errno("rdma_reject", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_BYTE));
    static final MethodHandle DISCONNECT = errno("rdma_disconnect", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle GET_CM_EVENT =
            errno("rdma_get_cm_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle ACK_CM_EVENT = errno("rdma_ack_cm_event", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle CREATE_QP =
            errno("rdma_create_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle DESTROY_QP = LIB.downcall("rdma_destroy_qp", FunctionDescriptor.ofVoid(ADDRESS));

    private Rdmacm() {}

    static void require() {
        if (!LIB.isLoaded()) {
            throw new RdmaUnavailableException(LIB.loadFailure());
        }
    }

    private static MethodHandle errno(String name, FunctionDescriptor descriptor) {
        return LIB.downcallCapturingErrno(name, descriptor);
    }
}
