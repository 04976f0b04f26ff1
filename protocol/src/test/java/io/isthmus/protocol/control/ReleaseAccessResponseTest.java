package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class ReleaseAccessResponseTest {
    @Test
    void shouldPutTheErrorCodeAtItsDocumentedOffsetBigEndian() {
        final byte[] bytes = new byte[1 + ReleaseAccessResponse.LENGTH];

        new ReleaseAccessResponse()
                .wrapForEncode(MemorySegment.ofArray(bytes), 1)
                .errorCode(ControlErrorCodes.UNKNOWN_TOPIC_OR_PARTITION);

        assertThat(ByteBuffer.wrap(bytes).getShort(1 + ReleaseAccessResponse.ERROR_CODE_OFFSET))
                .isEqualTo(ControlErrorCodes.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(new ReleaseAccessResponse()
                        .wrap(MemorySegment.ofArray(bytes), 1)
                        .errorCode())
                .isEqualTo(ControlErrorCodes.UNKNOWN_TOPIC_OR_PARTITION);
    }

    @Test
    void shouldRejectATruncatedBody() {
        assertThatThrownBy(() -> new ReleaseAccessResponse().wrap(MemorySegment.ofArray(new byte[1]), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated ReleaseAccess response: length=1 needed=2");
    }
}
