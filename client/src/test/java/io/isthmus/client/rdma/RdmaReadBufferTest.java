package io.isthmus.client.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RdmaReadBufferTest {
    @Test
    void shouldBePageAlignedForTheNic() {
        try (RdmaReadBufferPool pool = new RdmaReadBufferPool(16 * 1024)) {
            final RdmaReadBuffer buffer = pool.acquire();

            assertThat(buffer.segment().address() % 4096).isZero();
            assertThat(buffer.segment().byteSize()).isEqualTo(16 * 1024);
        }
    }
}
