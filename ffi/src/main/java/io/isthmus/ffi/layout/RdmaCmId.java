package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.INT;
import static io.isthmus.ffi.layout.CLayouts.POINTER;
import static io.isthmus.ffi.layout.CLayouts.U16;
import static io.isthmus.ffi.layout.CLayouts.U8;
import static io.isthmus.ffi.layout.CLayouts.anonymous;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;
import static io.isthmus.ffi.layout.CLayouts.union;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct rdma_cm_id} with its embedded {@code struct rdma_route} and {@code struct rdma_addr}.
 *
 * <pre>
 *  0       8         16        24   32                       344  348        352
 *  +-------+---------+---------+----+------------------------+----+----------+-------+---
 *  | verbs | channel | context | qp | route (addr, path_rec) | ps | port_num | event | ...
 *  +-------+---------+---------+----+------------------------+----+----------+-------+---
 *  ... send_cq_channel, send_cq, recv_cq_channel, recv_cq, srq, pd, qp_type
 * </pre>
 */
public final class RdmaCmId {
    /** {@code struct sockaddr_storage}: 128 bytes, 8-aligned. */
    private static MemoryLayout sockaddrStorage(String name) {
        return MemoryLayout.sequenceLayout(128, U8).withByteAlignment(8).withName(name);
    }

    /** {@code struct rdma_ib_addr}. */
    public static final StructLayout IB_ADDR_LAYOUT = struct(
            "struct rdma_ib_addr",
            IbvGid.LAYOUT.withName("sgid"),
            IbvGid.LAYOUT.withName("dgid"),
            U16.withName("pkey"));

    /** {@code struct rdma_addr}. */
    public static final StructLayout ADDR_LAYOUT = struct(
            "struct rdma_addr",
            union(anonymous("src"), sockaddrStorage("src_storage")),
            union(anonymous("dst"), sockaddrStorage("dst_storage")),
            union("addr", IB_ADDR_LAYOUT.withName("ibaddr")));

    /** {@code struct rdma_route}. */
    public static final StructLayout ROUTE_LAYOUT = struct(
            "struct rdma_route", ADDR_LAYOUT.withName("addr"), POINTER.withName("path_rec"), INT.withName("num_paths"));

    public static final StructLayout LAYOUT = struct(
            "struct rdma_cm_id",
            POINTER.withName("verbs"),
            POINTER.withName("channel"),
            POINTER.withName("context"),
            POINTER.withName("qp"),
            ROUTE_LAYOUT.withName("route"),
            INT.withName("ps"),
            U8.withName("port_num"),
            POINTER.withName("event"),
            POINTER.withName("send_cq_channel"),
            POINTER.withName("send_cq"),
            POINTER.withName("recv_cq_channel"),
            POINTER.withName("recv_cq"),
            POINTER.withName("srq"),
            POINTER.withName("pd"),
            INT.withName("qp_type"));

    public static final long VERBS = offsetOf(LAYOUT, "verbs");
    public static final long QP = offsetOf(LAYOUT, "qp");
    public static final long ROUTE_ADDR_SRC = offsetOf(LAYOUT, "route.addr.src_storage");
    public static final long ROUTE_ADDR_DST = offsetOf(LAYOUT, "route.addr.dst_storage");
    public static final long PORT_NUM = offsetOf(LAYOUT, "port_num");

    private RdmaCmId() {}
}
