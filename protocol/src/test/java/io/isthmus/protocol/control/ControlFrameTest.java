package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class ControlFrameTest {
    @Test
    void shouldFrameARequestWithSizePrefixHeaderAndBody() {
        final ReleaseAccessRequest body = new ReleaseAccessRequest("t", 2, ReleaseAccessRequest.CONSUME);

        final byte[] frame = ControlFrame.request(ControlApiKeys.RELEASE_ACCESS, 11, "c", body);

        final MemorySegment segment = MemorySegment.ofArray(frame);
        assertThat(segment.get(ControlCodec.INT32, 0)).isEqualTo(frame.length - 4);
        assertThat(ControlHeaderDescriptor.apiKey(segment, 4)).isEqualTo(ControlApiKeys.RELEASE_ACCESS);
        final ControlRequestHeader header = ControlRequestHeader.decode(segment, 4);
        assertThat(header.correlationId()).isEqualTo(11);
        assertThat(ReleaseAccessRequest.decode(segment, 4 + header.bodyOffset()))
                .isEqualTo(body);
    }

    @Test
    void shouldFrameAResponseWithItsCorrelationId() {
        final byte[] frame = ControlFrame.response(12, new ReleaseAccessResponse(ControlErrorCodes.NOT_CONNECTED));

        final MemorySegment withoutSize = MemorySegment.ofArray(frame).asSlice(4);
        assertThat(frame).hasSize(4 + 4 + ReleaseAccessResponse.LENGTH);
        assertThat(ControlFrame.responseCorrelationId(withoutSize)).isEqualTo(12);
        assertThat(ReleaseAccessResponse.decode(withoutSize, 4).errorCode()).isEqualTo(ControlErrorCodes.NOT_CONNECTED);
    }
}
