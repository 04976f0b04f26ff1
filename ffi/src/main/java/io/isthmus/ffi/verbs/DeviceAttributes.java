package io.isthmus.ffi.verbs;

/**
 * The limits of a device ({@code struct ibv_device_attr}) that matter to applications.
 *
 * @param firmwareVersion {@code fw_ver}
 * @param nodeGuid {@code node_guid} (as stored, network order)
 * @param maxMrSize {@code max_mr_size}
 * @param vendorId {@code vendor_id}
 * @param vendorPartId {@code vendor_part_id}
 * @param maxQp {@code max_qp}
 * @param maxQpWr {@code max_qp_wr}: the deepest send or receive queue
 * @param deviceCapFlags {@code device_cap_flags}
 * @param maxSge {@code max_sge}
 * @param maxSgeRd {@code max_sge_rd}
 * @param maxCq {@code max_cq}
 * @param maxCqe {@code max_cqe}
 * @param maxMr {@code max_mr}
 * @param maxPd {@code max_pd}
 * @param maxQpRdAtom {@code max_qp_rd_atom}: outstanding RDMA READ/atomics a QP can be target of
 * @param maxQpInitRdAtom {@code max_qp_init_rd_atom}: outstanding RDMA READ/atomics a QP can issue
 * @param atomicCap {@code atomic_cap}
 * @param maxSrq {@code max_srq}
 * @param maxSrqWr {@code max_srq_wr}
 * @param maxSrqSge {@code max_srq_sge}
 * @param physPortCnt {@code phys_port_cnt}
 */
public record DeviceAttributes(
        String firmwareVersion,
        long nodeGuid,
        long maxMrSize,
        int vendorId,
        int vendorPartId,
        int maxQp,
        int maxQpWr,
        int deviceCapFlags,
        int maxSge,
        int maxSgeRd,
        int maxCq,
        int maxCqe,
        int maxMr,
        int maxPd,
        int maxQpRdAtom,
        int maxQpInitRdAtom,
        AtomicCapability atomicCap,
        int maxSrq,
        int maxSrqWr,
        int maxSrqSge,
        int physPortCnt) {}
