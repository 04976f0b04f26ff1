package io.isthmus.ffi.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AccessFlagsTest {
    @Test
    void shouldUseTheBitsOfEnumIbvAccessFlags() {
        assertThat(AccessFlags.LOCAL_WRITE).isEqualTo(1);
        assertThat(AccessFlags.REMOTE_WRITE).isEqualTo(2);
        assertThat(AccessFlags.REMOTE_READ).isEqualTo(4);
        assertThat(AccessFlags.REMOTE_ATOMIC).isEqualTo(8);
        assertThat(AccessFlags.OPTIONAL_RANGE & AccessFlags.RELAXED_ORDERING).isNotZero();
        assertThat(AccessFlags.OPTIONAL_RANGE & AccessFlags.ALL_REMOTE).isZero();
    }

    @Test
    void shouldNameFlagsForMessages() {
        assertThat(AccessFlags.toString(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ))
                .isEqualTo("LOCAL_WRITE|REMOTE_READ");
        assertThat(AccessFlags.toString(0)).isEqualTo("0");
        assertThat(AccessFlags.toString(1 << 29)).isEqualTo("0x20000000");
    }
}
