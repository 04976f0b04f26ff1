package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class RdmaConnectRequestTest {
    private static final byte[] GID = {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, (byte) 169, (byte) 254, 77, 1
    };

    @Test
    void shouldRoundTrip() {
        final RdmaConnectRequest request = new RdmaConnectRequest(0x1234, 0xabcdef, 0, GID, 16, 3);

        final RdmaConnectRequest decoded = ControlMessagesRoundTrip.roundTrip(request, RdmaConnectRequest::decode);

        assertThat(decoded.qpNumber()).isEqualTo(0x1234);
        assertThat(decoded.packetSequenceNumber()).isEqualTo(0xabcdef);
        assertThat(decoded.gid()).isEqualTo(GID);
        assertThat(decoded.ackCredits()).isEqualTo(16);
        assertThat(decoded.mtu()).isEqualTo(3);
    }

    @Test
    void shouldPutTheGidAtItsDocumentedOffset() {
        final MemorySegment segment = MemorySegment.ofArray(new byte[RdmaConnectRequest.LENGTH]);
        new RdmaConnectRequest(1, 2, 0, GID, 4, 5).encode(segment, 0);

        assertThat(segment.asSlice(RdmaConnectRequest.GID_OFFSET, 16).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))
                .isEqualTo(GID);
        assertThat(segment.get(ControlCodec.INT32, RdmaConnectRequest.MTU_OFFSET))
                .isEqualTo(5);
    }

    @Test
    void shouldRejectAGidOfTheWrongLength() {
        assertThatThrownBy(() -> new RdmaConnectRequest(1, 2, 0, new byte[4], 4, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("length=4");
    }

    @Test
    void shouldRejectATruncatedBody() {
        assertThatThrownBy(() -> RdmaConnectRequest.decode(MemorySegment.ofArray(new byte[20]), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated RdmaConnect request");
    }
}
