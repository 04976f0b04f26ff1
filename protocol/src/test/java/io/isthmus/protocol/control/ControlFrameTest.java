package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class ControlFrameTest {
    @Test
    void shouldWriteRequestFramesIntoOneReusedBuffer() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment frame = arena.allocate(256);
            final ControlRequestHeader header = new ControlRequestHeader()
                    .wrapForEncode(frame, ControlFrame.REQUEST_HEADER_OFFSET)
                    .apiVersion(ControlApiKeys.VERSION)
                    .clientId("c");
            final long body = ControlFrame.REQUEST_HEADER_OFFSET + header.bodyOffset();

            final ProduceAccessRequest produce = new ProduceAccessRequest()
                    .wrapForEncode(frame, body)
                    .partition(2)
                    .flags(ProduceAccessRequest.SHARED)
                    .topic("a-long-topic-name");
            header.apiKey(ControlApiKeys.PRODUCE_ACCESS).correlationId(11);
            final int first = (int) body + produce.encodedLength();
            ControlFrame.putSize(frame, 0, first);

            final ReleaseAccessRequest release = new ReleaseAccessRequest()
                    .wrapForEncode(frame, body)
                    .partition(3)
                    .access(ReleaseAccessRequest.CONSUME)
                    .topic("t");
            header.apiKey(ControlApiKeys.RELEASE_ACCESS).correlationId(12);
            final int second = (int) body + release.encodedLength();
            ControlFrame.putSize(frame, 0, second);

            assertThat(second).isLessThan(first);
            assertThat(ControlFrame.size(frame, 0)).isEqualTo(second - 4);
            final ControlRequestHeader read =
                    new ControlRequestHeader().wrap(frame, ControlFrame.REQUEST_HEADER_OFFSET, second - 4L);
            assertThat(read.apiKey()).isEqualTo(ControlApiKeys.RELEASE_ACCESS);
            assertThat(read.correlationId()).isEqualTo(12);
            assertThat(read.clientId()).isEqualTo("c");
            final ReleaseAccessRequest readBody = new ReleaseAccessRequest()
                    .wrap(frame, ControlFrame.REQUEST_HEADER_OFFSET + read.bodyOffset(), second - body);
            assertThat(readBody.topic()).isEqualTo("t");
            assertThat(readBody.partition()).isEqualTo(3);
            assertThat(readBody.access()).isEqualTo(ReleaseAccessRequest.CONSUME);
        }
    }

    @Test
    void shouldFrameAResponseWithItsCorrelationId() {
        final MemorySegment frame = MemorySegment.ofArray(new byte[64]);

        final int length = ControlFrame.putResponseHeader(frame, 0, 12, ReleaseAccessResponse.LENGTH);
        new ReleaseAccessResponse()
                .wrapForEncode(frame, ControlFrame.RESPONSE_BODY_OFFSET)
                .errorCode(ControlErrorCodes.NOT_CONNECTED);

        assertThat(length).isEqualTo(4 + 4 + ReleaseAccessResponse.LENGTH);
        assertThat(ControlFrame.size(frame, 0)).isEqualTo(4 + ReleaseAccessResponse.LENGTH);
        assertThat(ControlFrame.responseCorrelationId(frame, 0)).isEqualTo(12);
        assertThat(new ReleaseAccessResponse()
                        .wrap(frame, ControlFrame.RESPONSE_BODY_OFFSET, ReleaseAccessResponse.LENGTH)
                        .errorCode())
                .isEqualTo(ControlErrorCodes.NOT_CONNECTED);
    }
}
