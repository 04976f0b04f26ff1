package io.isthmus.client.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class RdmaReadBufferPoolTest {
    @Test
    void shouldReuseAReleasedBufferInsteadOfCreatingAnother() {
        try (RdmaReadBufferPool pool = new RdmaReadBufferPool(8192)) {
            final RdmaReadBuffer first = pool.acquire();
            first.release();
            final RdmaReadBuffer again = pool.acquire();

            assertThat(again).isSameAs(first);
            assertThat(pool.created()).isEqualTo(1);
            assertThat(again.segment().byteSize()).isEqualTo(8192);
        }
    }

    @Test
    void shouldCreateAnotherBufferWhileTheFirstIsLeased() {
        try (RdmaReadBufferPool pool = new RdmaReadBufferPool(4096)) {
            final RdmaReadBuffer first = pool.acquire();
            final RdmaReadBuffer second = pool.acquire();

            assertThat(second).isNotSameAs(first);
            assertThat(pool.created()).isEqualTo(2);
        }
    }

    @Test
    void shouldRefuseADoubleRelease() {
        try (RdmaReadBufferPool pool = new RdmaReadBufferPool(4096)) {
            final RdmaReadBuffer buffer = pool.acquire();
            buffer.release();

            assertThatThrownBy(buffer::release).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void shouldKeepALeasedBufferReadableAfterThePoolClosesAndFreeItOnRelease() {
        final RdmaReadBufferPool pool = new RdmaReadBufferPool(4096);
        final RdmaReadBuffer leased = pool.acquire();
        final MemorySegment memory = leased.segment();
        memory.set(ValueLayout.JAVA_BYTE, 0, (byte) 7);

        pool.close();

        assertThat(memory.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 7);
        leased.release();
        assertThatThrownBy(() -> memory.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
    }
}
