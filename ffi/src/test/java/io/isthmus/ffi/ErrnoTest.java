package io.isthmus.ffi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ErrnoTest {
    @Test
    void shouldMapLinuxErrnoValuesToNames() {
        assertThat(Errno.name(12)).isEqualTo("ENOMEM");
        assertThat(Errno.name(22)).isEqualTo("EINVAL");
        assertThat(Errno.name(38)).isEqualTo("ENOSYS");
        assertThat(Errno.name(110)).isEqualTo("ETIMEDOUT");
        assertThat(Errno.of(95)).isEqualTo(Errno.EOPNOTSUPP);
    }

    @Test
    void shouldGiveStrerrorMessages() {
        assertThat(Errno.message(12)).isEqualTo("Cannot allocate memory");
        assertThat(Errno.ENODEV.message()).isEqualTo("No such device");
    }

    @Test
    void shouldNameUnknownValuesWithoutFailing() {
        assertThat(Errno.of(4242)).isNull();
        assertThat(Errno.name(4242)).isEqualTo("errno-4242");
        assertThat(Errno.message(-1)).isEqualTo("Unknown error -1");
    }

    @Test
    void shouldKeepValuesUnique() {
        assertThat(Errno.values()).extracting(Errno::value).doesNotHaveDuplicates();
        for (Errno errno : Errno.values()) {
            assertThat(Errno.of(errno.value())).isSameAs(errno);
        }
    }
}
