package io.isthmus.ffi.verbs;

/**
 * The answer of {@code ibv_query_qp}.
 *
 * @param state {@code qp_state}
 * @param pathMtu {@code path_mtu} (null before RTR)
 * @param destQpNumber {@code dest_qp_num}
 * @param rqPsn {@code rq_psn}
 * @param sqPsn {@code sq_psn}
 * @param accessFlags {@code qp_access_flags}
 * @param maxRdAtomic {@code max_rd_atomic}
 * @param maxDestRdAtomic {@code max_dest_rd_atomic}
 * @param portNumber {@code port_num}
 * @param maxSendWr {@code cap.max_send_wr}
 * @param maxInlineData {@code cap.max_inline_data}
 */
public record QueuePairStatus(
        QpState state,
        Mtu pathMtu,
        int destQpNumber,
        int rqPsn,
        int sqPsn,
        int accessFlags,
        int maxRdAtomic,
        int maxDestRdAtomic,
        int portNumber,
        int maxSendWr,
        int maxInlineData) {}
