package io.isthmus.ffi.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class GidTest {
    private static final byte[] IPV4_MAPPED = {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, (byte) 169, (byte) 254, 77, 1
    };

    @Test
    void shouldPrintGroupsOfFourHexDigits() {
        assertThat(Gid.of(IPV4_MAPPED)).hasToString("0000:0000:0000:0000:0000:ffff:a9fe:4d01");
    }

    @Test
    void shouldRoundTripThroughNativeMemory() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(32);
            Gid.of(IPV4_MAPPED).write(segment, 8);

            assertThat(Gid.read(segment, 8)).isEqualTo(Gid.of(IPV4_MAPPED));
            assertThat(Gid.read(segment, 8).isZero()).isFalse();
            assertThat(Gid.read(segment, 16).raw()[0]).isZero();
        }
    }

    @Test
    void shouldRejectWrongLengths() {
        assertThatThrownBy(() -> Gid.of(new byte[4])).hasMessage("a GID has 16 bytes: length=4");
        assertThat(Gid.of(new byte[16]).isZero()).isTrue();
    }
}
