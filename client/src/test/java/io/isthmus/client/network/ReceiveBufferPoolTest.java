package io.isthmus.client.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class ReceiveBufferPoolTest {
    @Test
    void shouldReuseReleasedBuffers() {
        try (ReceiveBufferPool pool = new ReceiveBufferPool(1024)) {
            final ReceiveBuffer first = pool.acquire();
            first.release();
            assertThat(pool.acquire()).isSameAs(first);
            assertThat(pool.created()).isEqualTo(1);
        }
    }

    @Test
    void shouldGrowForLargeFramesAndKillSlicesOfTheOldMemory() {
        try (ReceiveBufferPool pool = new ReceiveBufferPool(64)) {
            final ReceiveBuffer buffer = pool.acquire();
            buffer.prepare(16);
            final MemorySegment old = buffer.segment();
            buffer.prepare(1000);
            assertThat(buffer.capacity()).isGreaterThanOrEqualTo(1000);
            assertThat(buffer.frame().remaining()).isEqualTo(1000);
            assertThatThrownBy(() -> old.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void shouldRejectADoubleRelease() {
        try (ReceiveBufferPool pool = new ReceiveBufferPool(64)) {
            final ReceiveBuffer buffer = pool.acquire();
            buffer.release();
            assertThatThrownBy(buffer::release).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void shouldFreeBuffersReleasedAfterClose() {
        final ReceiveBufferPool pool = new ReceiveBufferPool(64);
        final ReceiveBuffer buffer = pool.acquire();
        final MemorySegment segment = buffer.segment();
        pool.close();
        buffer.release();
        assertThatThrownBy(() -> segment.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(pool::acquire).isInstanceOf(IllegalStateException.class);
    }
}
