package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class RdmaConnectResponseTest {
    @Test
    void shouldPutEveryFieldAtItsDocumentedOffsetBigEndianWithANullReason() {
        final byte[] gid = new byte[16];
        gid[15] = 7;
        final byte[] bytes = new byte[3 + RdmaConnectResponse.length(null)];
        final RdmaConnectResponse response = new RdmaConnectResponse()
                .wrapForEncode(MemorySegment.ofArray(bytes), 3)
                .errorCode(ControlErrorCodes.NONE)
                .capabilities((short) (RdmaConnectResponse.EXCLUSIVE_PRODUCE | RdmaConnectResponse.CONSUME))
                .qpNumber(99)
                .packetSequenceNumber(12345)
                .lid(2)
                .gid(gid)
                .produceCredits(32)
                .mtu(3);

        final ByteBuffer wire = ByteBuffer.wrap(bytes, 3, bytes.length - 3).slice();
        assertThat(response.encodedLength()).isEqualTo(RdmaConnectResponse.REASON_OFFSET + 2);
        assertThat(wire.getShort(RdmaConnectResponse.ERROR_CODE_OFFSET)).isEqualTo(ControlErrorCodes.NONE);
        assertThat(wire.getShort(RdmaConnectResponse.CAPABILITIES_OFFSET)).isEqualTo((short) 3);
        assertThat(wire.getInt(RdmaConnectResponse.QP_NUMBER_OFFSET)).isEqualTo(99);
        assertThat(wire.getInt(RdmaConnectResponse.PSN_OFFSET)).isEqualTo(12345);
        assertThat(wire.getInt(RdmaConnectResponse.LID_OFFSET)).isEqualTo(2);
        assertThat(Arrays.copyOfRange(
                        bytes, 3 + RdmaConnectResponse.GID_OFFSET, 3 + RdmaConnectResponse.GID_OFFSET + 16))
                .isEqualTo(gid);
        assertThat(wire.getInt(RdmaConnectResponse.PRODUCE_CREDITS_OFFSET)).isEqualTo(32);
        assertThat(wire.getInt(RdmaConnectResponse.MTU_OFFSET)).isEqualTo(3);
        assertThat(wire.getShort(RdmaConnectResponse.REASON_OFFSET)).isEqualTo((short) -1);

        final RdmaConnectResponse read = new RdmaConnectResponse().wrap(MemorySegment.ofArray(bytes), 3);
        assertThat(read.qpNumber()).isEqualTo(99);
        assertThat(read.packetSequenceNumber()).isEqualTo(12345);
        assertThat(read.lid()).isEqualTo(2);
        assertThat(read.gid()).isEqualTo(gid);
        assertThat(read.produceCredits()).isEqualTo(32);
        assertThat(read.mtu()).isEqualTo(3);
        assertThat(read.has(RdmaConnectResponse.CONSUME)).isTrue();
        assertThat(read.has(RdmaConnectResponse.SHARED_PRODUCE)).isFalse();
        assertThat(read.reason()).isNull();
    }

    @Test
    void shouldCarryTheReasonOfAFailureAfterTheBlock() {
        final String reason = "no RDMA devices";
        final byte[] bytes = new byte[RdmaConnectResponse.length(reason)];
        new RdmaConnectResponse()
                .wrapForEncode(MemorySegment.ofArray(bytes), 0)
                .errorCode(ControlErrorCodes.RDMA_UNAVAILABLE)
                .reason(reason);

        final ByteBuffer wire = ByteBuffer.wrap(bytes);
        assertThat(wire.getShort(RdmaConnectResponse.REASON_OFFSET)).isEqualTo((short) reason.length());
        assertThat(new String(bytes, RdmaConnectResponse.REASON_OFFSET + 2, reason.length(), StandardCharsets.UTF_8))
                .isEqualTo(reason);
        final RdmaConnectResponse read = new RdmaConnectResponse().wrap(MemorySegment.ofArray(bytes), 0);
        assertThat(read.errorCode()).isEqualTo(ControlErrorCodes.RDMA_UNAVAILABLE);
        assertThat(read.reason()).isEqualTo(reason);
        assertThat(read.capabilities()).isZero();
        assertThat(read.encodedLength()).isEqualTo(bytes.length);
    }

    @Test
    void shouldRejectAReasonRunningPastTheMessage() {
        final String reason = "no RDMA devices";
        final byte[] bytes = new byte[RdmaConnectResponse.length(reason)];
        new RdmaConnectResponse().wrapForEncode(MemorySegment.ofArray(bytes), 0).reason(reason);

        assertThatThrownBy(() -> new RdmaConnectResponse().wrap(MemorySegment.ofArray(bytes), 0, bytes.length - 1L))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated RdmaConnect response: reason runs past the message")
                .hasMessageContaining("stringLength=15");
    }
}
