package io.isthmus.ffi.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OpcodeTest {
    @Test
    void shouldUseTheValuesOfEnumIbvWrOpcode() {
        assertThat(Opcode.RDMA_WRITE.value()).isZero();
        assertThat(Opcode.RDMA_WRITE_WITH_IMM.value()).isEqualTo(1);
        assertThat(Opcode.SEND.value()).isEqualTo(2);
        assertThat(Opcode.SEND_WITH_IMM.value()).isEqualTo(3);
        assertThat(Opcode.RDMA_READ.value()).isEqualTo(4);
        assertThat(Opcode.ATOMIC_CMP_AND_SWP.value()).isEqualTo(5);
        assertThat(Opcode.ATOMIC_FETCH_AND_ADD.value()).isEqualTo(6);
        assertThat(Opcode.ATOMIC_WRITE.value()).isEqualTo(15);
        assertThat(Opcode.of(15)).isEqualTo(Opcode.ATOMIC_WRITE);
    }
}
