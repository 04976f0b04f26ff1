package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ProduceStagingDescriptorTest {
    @Test
    void shouldGiveTheNthWriteSlotNModCredits() {
        assertThat(ProduceStagingDescriptor.slot(0, 32)).isZero();
        assertThat(ProduceStagingDescriptor.slot(31, 32)).isEqualTo(31);
        assertThat(ProduceStagingDescriptor.slot(32, 32)).isZero();
        assertThat(ProduceStagingDescriptor.slot(1_000_003, 7)).isEqualTo(1_000_003 % 7);
        assertThat(ProduceStagingDescriptor.slot(-1L, 32))
                .as("the count is unsigned: it never wraps into a negative slot")
                .isEqualTo((int) Long.remainderUnsigned(-1L, 32));
    }

    @Test
    void shouldLaySlotsEndToEndOnCacheLines() {
        final int slotBytes = ProduceStagingDescriptor.slotBytes(1024 * 1024 + 12);
        assertThat(slotBytes).isEqualTo(1024 * 1024 + 64);
        assertThat(slotBytes % ProduceStagingDescriptor.SLOT_ALIGNMENT).isZero();
        assertThat(ProduceStagingDescriptor.slotBytes(64)).isEqualTo(64);
        assertThat(ProduceStagingDescriptor.slotOffset(3, slotBytes)).isEqualTo(3L * slotBytes);
        assertThat(ProduceStagingDescriptor.slotOffset(40_000, 1 << 20))
                .as("no int overflow")
                .isEqualTo(40_000L << 20);
    }

    @Test
    void shouldRefuseASlotNoBatchFits() {
        assertThatThrownBy(() -> ProduceStagingDescriptor.slotBytes(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxBatchBytes=0");
    }
}
