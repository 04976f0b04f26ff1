package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ControlCodecTest {
    @Test
    void shouldRoundTripStringsIncludingNullAndUtf8() {
        final MemorySegment segment = MemorySegment.ofArray(new byte[64]);

        final int first = ControlCodec.putString(segment, 0, "tøpic");
        final int second = ControlCodec.putString(segment, first, null);

        assertThat(first).isEqualTo(ControlCodec.stringLength("tøpic")).isEqualTo(2 + 6);
        assertThat(second).isEqualTo(2);
        assertThat(ControlCodec.getString(segment, 0)).isEqualTo("tøpic");
        assertThat(ControlCodec.getString(segment, first)).isNull();
    }

    @Test
    void shouldEncodeUtf8AsStringGetBytesDoesWithoutAnArray() {
        for (final String value : new String[] {
            "", "orders", "ørders", "€uro", "topic-\uD83D\uDE80", "lone-\uD800-high", "lone-\uDC00-low", "end-\uD800"
        }) {
            final byte[] expected = value.getBytes(StandardCharsets.UTF_8);
            final MemorySegment segment = MemorySegment.ofArray(new byte[64]);

            final int written = ControlCodec.putString(segment, 0, value);

            assertThat(written)
                    .as(value)
                    .isEqualTo(ControlCodec.stringLength(value))
                    .isEqualTo(2 + expected.length);
            assertThat(segment.asSlice(2, expected.length).toArray(ValueLayout.JAVA_BYTE))
                    .as(value)
                    .isEqualTo(expected);
        }
    }

    @Test
    void shouldRejectAStringRunningPastTheMessage() {
        final MemorySegment segment = MemorySegment.ofArray(new byte[] {0, 10, 'a', 'b'});

        assertThatThrownBy(() -> ControlCodec.getString(segment, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("length=10");
    }
}
