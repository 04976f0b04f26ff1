package io.isthmus.broker.producer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProducerIdAllocatorTest {
    @TempDir
    Path tmp;

    @Test
    void shouldHandOutConsecutiveIdsWithinABlock() {
        final ProducerIdAllocator ids = ProducerIdAllocator.open(tmp);

        assertThat(ids.nextId()).isZero();
        assertThat(ids.nextId()).isEqualTo(1);
        assertThat(ids.nextId()).isEqualTo(2);
    }

    @Test
    void shouldNeverReuseAnIdAfterReopenAndSkipTheRestOfTheBlock() {
        final Set<Long> seen = new HashSet<>();
        final ProducerIdAllocator first = ProducerIdAllocator.open(tmp);
        for (int i = 0; i < 3; i++) {
            assertThat(seen.add(first.nextId())).isTrue();
        }

        final ProducerIdAllocator second = ProducerIdAllocator.open(tmp);
        final long afterRestart = second.nextId();

        // The block reserved before the "crash" is never handed out again, even its unused part.
        assertThat(afterRestart).isEqualTo(ProducerIdAllocator.BLOCK_SIZE);
        assertThat(seen.add(afterRestart)).isTrue();
    }

    @Test
    void shouldReserveTheNextBlockWhenOneIsUsedUp() {
        final ProducerIdAllocator ids = ProducerIdAllocator.open(tmp);
        final Set<Long> seen = new HashSet<>();
        for (long i = 0; i < ProducerIdAllocator.BLOCK_SIZE + 5; i++) {
            seen.add(ids.nextId());
        }

        assertThat(seen).hasSize((int) ProducerIdAllocator.BLOCK_SIZE + 5);
        assertThat(ProducerIdAllocator.open(tmp).nextId()).isEqualTo(2 * ProducerIdAllocator.BLOCK_SIZE);
    }

    @Test
    void anEmptyOrTornFileIsSetAsideAndIdsGoOnAboveTheClockFloor() throws Exception {
        // What an older version's unsynced write could leave after a power loss: the rename, not the data.
        final Path file = tmp.resolve("isthmus-producer-ids");
        Files.writeString(file, "");
        final long before = System.currentTimeMillis() * ProducerIdAllocator.CLOCK_FLOOR_IDS_PER_MS;

        final long first = ProducerIdAllocator.open(tmp).nextId();

        assertThat(first).isGreaterThanOrEqualTo(before);
        try (Stream<Path> files = Files.list(tmp)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .anyMatch(name -> name.startsWith("isthmus-producer-ids.corrupt-"));
        }
        // The block reserved after the recovery is on disk: a restart goes on above it.
        assertThat(ProducerIdAllocator.open(tmp).nextId()).isGreaterThan(first);

        Files.writeString(file, "12x4");
        assertThat(ProducerIdAllocator.open(tmp).nextId()).isGreaterThanOrEqualTo(before);
    }

    @Test
    void aReplacementACrashLeftHalfWayIsRemovedAndTheOldBlockStands() throws Exception {
        ProducerIdAllocator.open(tmp).nextId(); // reserves [0, 1000)
        Files.writeString(tmp.resolve("isthmus-producer-ids.tmp"), "20"); // a later write that never got renamed

        assertThat(ProducerIdAllocator.open(tmp).nextId()).isEqualTo(ProducerIdAllocator.BLOCK_SIZE);
        assertThat(tmp.resolve("isthmus-producer-ids.tmp")).doesNotExist();
    }
}
