package io.isthmus.broker.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
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
    void shouldNameTheFileWhenItIsCorrupt() throws Exception {
        final Path file = tmp.resolve("isthmus-producer-ids");
        Files.writeString(file, "not-a-number");

        assertThatThrownBy(() -> ProducerIdAllocator.open(tmp))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(file.toString());
    }
}
