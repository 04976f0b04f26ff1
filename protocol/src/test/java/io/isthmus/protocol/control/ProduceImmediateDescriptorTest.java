package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProduceImmediateDescriptorTest {
    @Test
    void shouldPackSegmentIdHighAndOrderLow() {
        final int immediate = ProduceImmediateDescriptor.immediate(0xBEEF, 0x1234);

        assertThat(immediate).isEqualTo(0xBEEF1234);
        assertThat(ProduceImmediateDescriptor.segmentId(immediate)).isEqualTo(0xBEEF);
        assertThat(ProduceImmediateDescriptor.order(immediate)).isEqualTo(0x1234);
    }

    @Test
    void shouldWrapTheOrderAt16Bits() {
        assertThat(ProduceImmediateDescriptor.nextOrder(0xFFFF)).isZero();
        assertThat(ProduceImmediateDescriptor.order(ProduceImmediateDescriptor.immediate(1, 0x1_0005)))
                .isEqualTo(5);
    }
}
