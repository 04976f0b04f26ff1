package io.isthmus.ffi.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.ffi.layout.IbvSendWr;
import io.isthmus.ffi.layout.IbvSge;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class SendWorkRequestsTest {
    @Test
    void shouldPointEachRequestAtItsOwnSgeArray() {
        try (Arena arena = Arena.ofConfined()) {
            SendWorkRequests wrs = SendWorkRequests.allocate(arena, 3, 2);
            MemorySegment raw = wrs.segment();

            long first = raw.get(ADDRESS, IbvSendWr.SG_LIST).address();
            long second = raw.get(ADDRESS, IbvSendWr.SIZE + IbvSendWr.SG_LIST).address();
            assertThat(second - first).isEqualTo(2 * IbvSge.SIZE);
            assertThat(raw.byteSize()).isEqualTo(3 * 128);
        }
    }

    @Test
    void shouldCountSgesAndResetThemOnSet() {
        try (Arena arena = Arena.ofConfined()) {
            SendWorkRequests wrs = SendWorkRequests.allocate(arena, 1, 4);
            wrs.set(0, 5, Opcode.SEND, SendFlags.SIGNALED).sge(0, 2, 0x10, 4, 1);
            assertThat(wrs.sgeCount(0)).isEqualTo(3);
            wrs.sge(0, 0, 0x20, 4, 1);
            assertThat(wrs.sgeCount(0)).isEqualTo(3);

            wrs.set(0, 6, Opcode.RDMA_READ, 0);

            assertThat(wrs.sgeCount(0)).isZero();
            assertThat(wrs.wrId(0)).isEqualTo(6);
            assertThat(wrs.opcode(0)).isEqualTo(Opcode.RDMA_READ);
            assertThat(wrs.flags(0)).isZero();
        }
    }

    @Test
    void shouldLinkAPrefixIntoAChain() {
        try (Arena arena = Arena.ofConfined()) {
            SendWorkRequests wrs = SendWorkRequests.allocate(arena, 4, 1);
            MemorySegment head = wrs.chain(2);

            assertThat(head.get(JAVA_LONG, IbvSendWr.NEXT)).isEqualTo(head.address() + IbvSendWr.SIZE);
            assertThat(head.get(JAVA_LONG, IbvSendWr.SIZE + IbvSendWr.NEXT)).isZero();
            assertThat(wrs.indexOf(head.address() + IbvSendWr.SIZE)).isEqualTo(1);
            assertThat(wrs.indexOf(0)).isEqualTo(-1);
            assertThatThrownBy(() -> wrs.chain(5)).isInstanceOf(IndexOutOfBoundsException.class);
        }
    }

    @Test
    void shouldRejectIndexesOutsideTheArray() {
        try (Arena arena = Arena.ofConfined()) {
            SendWorkRequests wrs = SendWorkRequests.allocate(arena, 2, 1);

            assertThatThrownBy(() -> wrs.set(2, 0, Opcode.SEND, 0))
                    .isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessage("index=2, capacity=2");
            assertThatThrownBy(() -> wrs.sge(0, 1, 0, 0, 0)).hasMessage("sge=1, maxSge=1");
            assertThatThrownBy(() -> SendWorkRequests.allocate(arena, 0, 1))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void shouldStoreAtomicOperandsWhereTheProviderReadsThem() {
        try (Arena arena = Arena.ofConfined()) {
            SendWorkRequests wrs = SendWorkRequests.allocate(arena, 1, 1);
            wrs.atomic(0, 0x1000, 0x42, 7, 9);
            MemorySegment raw = wrs.segment();

            assertThat(raw.get(JAVA_LONG, 40)).isEqualTo(0x1000);
            assertThat(raw.get(JAVA_LONG, 48)).isEqualTo(7);
            assertThat(raw.get(JAVA_LONG, 56)).isEqualTo(9);
            assertThat(raw.get(JAVA_INT, 64)).isEqualTo(0x42);
        }
    }
}
