package io.isthmus.ffi.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.ffi.layout.IbvRecvWr;
import io.isthmus.ffi.layout.IbvSge;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class WorkRequestArrayTest {
    private static final long STRIDE = IbvRecvWr.SIZE;
    private static final long NEXT = IbvRecvWr.NEXT;

    @Test
    void shouldLinkTheFirstCountStructsAndEndTheChainWithNull() {
        try (Arena arena = Arena.ofConfined()) {
            final WorkRequestArray array = WorkRequestArray.allocate(arena, 4, 1, WorkRequestArray.RECEIVE);
            final MemorySegment structs = array.structs();

            assertThat(array.chain(3).address()).isEqualTo(structs.address());

            assertThat(structs.get(JAVA_LONG, NEXT)).isEqualTo(structs.address() + STRIDE);
            assertThat(structs.get(JAVA_LONG, STRIDE + NEXT)).isEqualTo(structs.address() + 2 * STRIDE);
            assertThat(structs.get(JAVA_LONG, 2 * STRIDE + NEXT)).isZero();
        }
    }

    @Test
    void shouldRelinkOnlyWhenTheCountChanges() {
        try (Arena arena = Arena.ofConfined()) {
            final WorkRequestArray array = WorkRequestArray.allocate(arena, 4, 1, WorkRequestArray.RECEIVE);
            final MemorySegment structs = array.structs();
            array.chain(2);
            // A value a relink would overwrite: the chain of 2 is reused as it is.
            structs.set(JAVA_LONG, NEXT, 12345L);
            array.chain(2);
            assertThat(structs.get(JAVA_LONG, NEXT)).isEqualTo(12345L);

            array.chain(1);
            assertThat(structs.get(JAVA_LONG, NEXT)).isZero();
        }
    }

    @Test
    void shouldPointEveryRequestAtItsOwnRowOfSgesAndCountThemAsTheyAreSet() {
        try (Arena arena = Arena.ofConfined()) {
            final WorkRequestArray array = WorkRequestArray.allocate(arena, 3, 2, WorkRequestArray.RECEIVE);
            final MemorySegment structs = array.structs();
            final long row0 = structs.get(ADDRESS, IbvRecvWr.SG_LIST).address();
            final long row1 = structs.get(ADDRESS, STRIDE + IbvRecvWr.SG_LIST).address();
            assertThat(row1 - row0).isEqualTo(2 * IbvSge.SIZE);
            assertThat(array.sgeCount(1)).isZero();

            array.sge(1, 1, 0xABCDL, 42, 7);

            final MemorySegment sge =
                    MemorySegment.ofAddress(row1 + IbvSge.SIZE).reinterpret(IbvSge.SIZE);
            assertThat(sge.get(JAVA_LONG, IbvSge.ADDR)).isEqualTo(0xABCDL);
            assertThat(sge.get(JAVA_INT, IbvSge.LENGTH)).isEqualTo(42);
            assertThat(sge.get(JAVA_INT, IbvSge.LKEY)).isEqualTo(7);
            assertThat(array.sgeCount(1)).as("raised to cover SGE 1").isEqualTo(2);

            array.sgeLength(1, 1, 9);
            assertThat(sge.get(JAVA_INT, IbvSge.LENGTH)).isEqualTo(9);
        }
    }

    @Test
    void shouldFindTheIndexOfANativeAddress() {
        try (Arena arena = Arena.ofConfined()) {
            final WorkRequestArray array = WorkRequestArray.allocate(arena, 4, 1, WorkRequestArray.RECEIVE);
            final long base = array.structs().address();

            assertThat(array.indexOf(base + 3 * STRIDE)).isEqualTo(3);
            assertThat(array.indexOf(base + 4 * STRIDE)).isEqualTo(-1);
            assertThat(array.indexOf(base - 1)).isEqualTo(-1);
        }
    }

    @Test
    void shouldRefuseIndexesCountsAndSgesOutsideTheArray() {
        try (Arena arena = Arena.ofConfined()) {
            final WorkRequestArray array = WorkRequestArray.allocate(arena, 2, 2, WorkRequestArray.SEND);

            assertThatThrownBy(() -> array.offset(2)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> array.offset(-1)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> array.chain(0)).hasMessageContaining("count=0, capacity=2");
            assertThatThrownBy(() -> array.chain(3)).hasMessageContaining("count=3, capacity=2");
            assertThatThrownBy(() -> array.sge(0, 2, 0, 1, 1)).hasMessageContaining("sge=2, maxSge=2");
            assertThatThrownBy(() -> array.sgeCount(0, 3)).hasMessageContaining("count=3, maxSge=2");
            assertThatThrownBy(() -> WorkRequestArray.allocate(arena, 0, 1, WorkRequestArray.SEND))
                    .hasMessageContaining("capacity=0");
        }
    }
}
