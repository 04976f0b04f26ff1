package io.isthmus.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OffsetIndexTest {
    @TempDir
    Path tmp;

    @Test
    void shouldFindTheLargestEntryAtOrBelowTheTarget() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            final OffsetIndex index = new OffsetIndex(tmp.resolve("x.index"), 1000, 16, arena);
            assertThat(index.lookupPosition(1500)).isZero();
            index.append(1010, 400);
            index.append(1020, 800);
            index.append(1035, 1300);

            assertThat(index.lookupPosition(1009)).isZero();
            assertThat(index.lookupPosition(1010)).isEqualTo(400);
            assertThat(index.lookupPosition(1034)).isEqualTo(800);
            assertThat(index.lookupPosition(99_999)).isEqualTo(1300);
            assertThat(index.lastIndexedOffset()).isEqualTo(1035);
            assertThatThrownBy(() -> index.append(1030, 1400))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("offset=1030");
        }
    }

    @Test
    void shouldTrimOnSealAndRejectAnIndexWhoseEntriesDoNotIncrease() throws Exception {
        final Path file = tmp.resolve("y.index");
        try (Arena arena = Arena.ofShared()) {
            final OffsetIndex index = new OffsetIndex(file, 0, 16, arena);
            index.append(5, 100);
            index.append(9, 200);
            index.trimAndSeal();
            assertThat(file).hasSize(16);
            assertThat(index.lookupPosition(7)).isEqualTo(100);
        }
        try (Arena arena = Arena.ofShared()) {
            final OffsetIndex reopened = new OffsetIndex(file, 0, 16, arena);
            assertThat(reopened.entryCount()).isEqualTo(2);
            reopened.sanityCheck(1000);
            assertThatThrownBy(() -> reopened.sanityCheck(150))
                    .isInstanceOf(CorruptIndexException.class)
                    .hasMessageContaining("position=200");
        }
        try (Arena arena = Arena.ofShared()) {
            final OffsetIndex preallocated = new OffsetIndex(tmp.resolve("z.index"), 0, 16, arena);
            preallocated.append(5, 100);
            preallocated.flush();
        }
        try (Arena arena = Arena.ofShared()) {
            final OffsetIndex untrimmed = new OffsetIndex(tmp.resolve("z.index"), 0, 16, arena);
            assertThat(untrimmed.entryCount()).isEqualTo(16);
            assertThatThrownBy(() -> untrimmed.sanityCheck(1000)).isInstanceOf(CorruptIndexException.class);
        }
    }
}
