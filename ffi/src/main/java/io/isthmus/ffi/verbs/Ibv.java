package io.isthmus.ffi.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.isthmus.ffi.NativeLibrary;
import io.isthmus.ffi.RdmaUnavailableException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;

/**
 * The exported control-path functions of {@code libibverbs.so.1}, bound once. Loading this class
 * requires the library: callers go through {@link #require()} first, which turns a missing library
 * into {@link RdmaUnavailableException} instead of an {@link ExceptionInInitializerError}.
 *
 * <p>Functions that return a pointer or {@code -1} capture errno (their handles take the capture
 * segment first); functions that return an error code directly do not.
 */
final class Ibv {
    private static final NativeLibrary LIB = NativeLibrary.IBVERBS;

    static final MethodHandle GET_DEVICE_LIST = errno("ibv_get_device_list", FunctionDescriptor.of(ADDRESS, ADDRESS));
    static final MethodHandle FREE_DEVICE_LIST = plain("ibv_free_device_list", FunctionDescriptor.ofVoid(ADDRESS));
    static final MethodHandle OPEN_DEVICE = errno("ibv_open_device", FunctionDescriptor.of(ADDRESS, ADDRESS));
    static final MethodHandle CLOSE_DEVICE = errno("ibv_close_device", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle QUERY_DEVICE =
            plain("ibv_query_device", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    /** The exported {@code ibv_query_port} (the header's macro falls back to it with a zeroed struct). */
    static final MethodHandle QUERY_PORT =
            plain("ibv_query_port", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS));

    static final MethodHandle QUERY_GID =
            errno("ibv_query_gid", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, JAVA_INT, ADDRESS));
    static final MethodHandle ALLOC_PD = errno("ibv_alloc_pd", FunctionDescriptor.of(ADDRESS, ADDRESS));
    static final MethodHandle DEALLOC_PD = plain("ibv_dealloc_pd", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    /** The exported {@code ibv_reg_mr} (IBVERBS_1.1); the header's macro picks it for non-optional flags. */
    static final MethodHandle REG_MR =
            errno("ibv_reg_mr", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));

    static final MethodHandle REG_MR_IOVA2 =
            errno("ibv_reg_mr_iova2", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_INT));
    static final MethodHandle DEREG_MR = plain("ibv_dereg_mr", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle CREATE_COMP_CHANNEL =
            errno("ibv_create_comp_channel", FunctionDescriptor.of(ADDRESS, ADDRESS));
    static final MethodHandle DESTROY_COMP_CHANNEL =
            errno("ibv_destroy_comp_channel", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle CREATE_CQ =
            errno("ibv_create_cq", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    static final MethodHandle DESTROY_CQ = plain("ibv_destroy_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle GET_CQ_EVENT =
            errno("ibv_get_cq_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle ACK_CQ_EVENTS = plain("ibv_ack_cq_events", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));
    static final MethodHandle CREATE_QP = errno("ibv_create_qp", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle MODIFY_QP =
            plain("ibv_modify_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    static final MethodHandle QUERY_QP =
            plain("ibv_query_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));
    static final MethodHandle DESTROY_QP = plain("ibv_destroy_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle CREATE_SRQ = errno("ibv_create_srq", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle DESTROY_SRQ = plain("ibv_destroy_srq", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle GET_ASYNC_EVENT =
            errno("ibv_get_async_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle ACK_ASYNC_EVENT = plain("ibv_ack_async_event", FunctionDescriptor.ofVoid(ADDRESS));

    private Ibv() {}

    /** Throws {@link RdmaUnavailableException} when libibverbs cannot be loaded. */
    static void require() {
        if (!LIB.isLoaded()) {
            throw new RdmaUnavailableException(LIB.loadFailure());
        }
    }

    private static MethodHandle plain(String name, FunctionDescriptor descriptor) {
        return LIB.downcall(name, descriptor);
    }

    private static MethodHandle errno(String name, FunctionDescriptor descriptor) {
        return LIB.downcallCapturingErrno(name, descriptor);
    }
}
