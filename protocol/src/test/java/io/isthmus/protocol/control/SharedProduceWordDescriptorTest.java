package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SharedProduceWordDescriptorTest {
    @Test
    void shouldAdvanceOrderAndPositionWithOneAdd() {
        long word = SharedProduceWordDescriptor.word(7, 1000);

        word += SharedProduceWordDescriptor.reservation(500);

        assertThat(SharedProduceWordDescriptor.order(word)).isEqualTo(8);
        assertThat(SharedProduceWordDescriptor.position(word)).isEqualTo(1500);
    }

    @Test
    void shouldWrapTheOrderWithoutDisturbingThePosition() {
        long word = SharedProduceWordDescriptor.word(0xFFFF, 42);

        word += SharedProduceWordDescriptor.reservation(8);

        assertThat(SharedProduceWordDescriptor.order(word)).isZero();
        assertThat(SharedProduceWordDescriptor.position(word)).isEqualTo(50);
    }

    @Test
    void shouldTellAReservationPastTheEndFromOneThatFits() {
        final long word = SharedProduceWordDescriptor.word(1, 4000);

        assertThat(SharedProduceWordDescriptor.fits(word, 96, 4096)).isTrue();
        assertThat(SharedProduceWordDescriptor.fits(word, 97, 4096)).isFalse();
    }

    @Test
    void shouldRejectAnEmptyReservation() {
        assertThatThrownBy(() -> SharedProduceWordDescriptor.reservation(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("size=0");
    }
}
