package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class RdmaConnectRequestTest {
    private static final byte[] GID = {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, (byte) 169, (byte) 254, 77, 1
    };

    @Test
    void shouldPutEveryFieldAtItsDocumentedOffsetBigEndian() {
        final byte[] bytes = new byte[5 + RdmaConnectRequest.LENGTH];
        final RdmaConnectRequest request = new RdmaConnectRequest()
                .wrapForEncode(MemorySegment.ofArray(bytes), 5)
                .qpNumber(0x1234)
                .packetSequenceNumber(0xabcdef)
                .lid(7)
                .gid(GID)
                .ackCredits(16)
                .mtu(3);

        final ByteBuffer wire =
                ByteBuffer.wrap(bytes, 5, RdmaConnectRequest.LENGTH).slice();
        assertThat(request.encodedLength()).isEqualTo(RdmaConnectRequest.LENGTH);
        assertThat(wire.getInt(RdmaConnectRequest.QP_NUMBER_OFFSET)).isEqualTo(0x1234);
        assertThat(wire.getInt(RdmaConnectRequest.PSN_OFFSET)).isEqualTo(0xabcdef);
        assertThat(wire.getInt(RdmaConnectRequest.LID_OFFSET)).isEqualTo(7);
        assertThat(Arrays.copyOfRange(bytes, 5 + RdmaConnectRequest.GID_OFFSET, 5 + RdmaConnectRequest.GID_OFFSET + 16))
                .isEqualTo(GID);
        assertThat(wire.getInt(RdmaConnectRequest.ACK_CREDITS_OFFSET)).isEqualTo(16);
        assertThat(wire.getInt(RdmaConnectRequest.MTU_OFFSET)).isEqualTo(3);

        final RdmaConnectRequest read = new RdmaConnectRequest().wrap(MemorySegment.ofArray(bytes), 5);
        assertThat(read.qpNumber()).isEqualTo(0x1234);
        assertThat(read.packetSequenceNumber()).isEqualTo(0xabcdef);
        assertThat(read.lid()).isEqualTo(7);
        assertThat(read.gid()).isEqualTo(GID);
        assertThat(read.ackCredits()).isEqualTo(16);
        assertThat(read.mtu()).isEqualTo(3);
    }

    @Test
    void shouldRejectAGidOfTheWrongLength() {
        final RdmaConnectRequest request =
                new RdmaConnectRequest().wrapForEncode(MemorySegment.ofArray(new byte[RdmaConnectRequest.LENGTH]), 0);

        assertThatThrownBy(() -> request.gid(new byte[4]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("gid has 16 bytes: length=4");
    }

    @Test
    void shouldRejectATruncatedBody() {
        assertThatThrownBy(() -> new RdmaConnectRequest().wrap(MemorySegment.ofArray(new byte[20]), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated RdmaConnect request")
                .hasMessageContaining("length=20 needed=36");
    }
}
