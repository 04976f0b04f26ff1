package io.isthmus.ffi.verbs;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class WorkRequestArrayTest {
    private static final long STRIDE = 32;
    private static final long NEXT = 8;

    @Test
    void shouldLinkTheFirstCountStructsAndEndTheChainWithNull() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment structs = arena.allocate(STRIDE * 4, 8);
            final WorkRequestArray array = new WorkRequestArray(structs, 4, STRIDE, NEXT);

            assertThat(array.chain(3).address()).isEqualTo(structs.address());

            assertThat(structs.get(JAVA_LONG, NEXT)).isEqualTo(structs.address() + STRIDE);
            assertThat(structs.get(JAVA_LONG, STRIDE + NEXT)).isEqualTo(structs.address() + 2 * STRIDE);
            assertThat(structs.get(JAVA_LONG, 2 * STRIDE + NEXT)).isZero();
        }
    }

    @Test
    void shouldRelinkOnlyWhenTheCountChanges() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment structs = arena.allocate(STRIDE * 4, 8);
            final WorkRequestArray array = new WorkRequestArray(structs, 4, STRIDE, NEXT);
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
    void shouldFindTheIndexOfANativeAddress() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment structs = arena.allocate(STRIDE * 4, 8);
            final WorkRequestArray array = new WorkRequestArray(structs, 4, STRIDE, NEXT);

            assertThat(array.indexOf(structs.address() + 3 * STRIDE)).isEqualTo(3);
            assertThat(array.indexOf(structs.address() + 4 * STRIDE)).isEqualTo(-1);
            assertThat(array.indexOf(structs.address() - 1)).isEqualTo(-1);
        }
    }

    @Test
    void shouldRefuseIndexesAndCountsOutsideTheArray() {
        try (Arena arena = Arena.ofConfined()) {
            final WorkRequestArray array = new WorkRequestArray(arena.allocate(STRIDE * 2, 8), 2, STRIDE, NEXT);

            assertThatThrownBy(() -> array.offset(2)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> array.offset(-1)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> array.chain(0)).hasMessageContaining("count=0, capacity=2");
            assertThatThrownBy(() -> array.chain(3)).hasMessageContaining("count=3, capacity=2");
        }
    }
}
