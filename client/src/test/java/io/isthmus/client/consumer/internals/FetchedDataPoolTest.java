package io.isthmus.client.consumer.internals;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.client.network.LeasedBuffer;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FetchedDataPoolTest {
    /** Records which thread gave it back. */
    private static final class RecordingBuffer implements LeasedBuffer {
        final List<Thread> releasedOn = new ArrayList<>();

        @Override
        public MemorySegment segment() {
            return MemorySegment.NULL;
        }

        @Override
        public synchronized void release() {
            releasedOn.add(Thread.currentThread());
        }
    }

    private static void releaseOnAnotherThread(final FetchedData data) throws InterruptedException {
        final Thread other = new Thread(data::release, "task");
        other.start();
        other.join();
    }

    @Test
    void shouldGiveBuffersReleasedElsewhereBackOnTheOwnersThreadAtItsNextAcquire() throws Exception {
        try (FetchedDataPool pool = new FetchedDataPool()) {
            final FetchedData data = pool.acquire();
            final RecordingBuffer buffer = new RecordingBuffer();
            data.lease(buffer);
            releaseOnAnotherThread(data);
            assertThat(buffer.releasedOn)
                    .as("not given back on the foreign thread")
                    .isEmpty();
            final FetchedData again = pool.acquire();
            assertThat(buffer.releasedOn).containsExactly(Thread.currentThread());
            assertThat(again).as("the same data, reused").isSameAs(data);
        }
    }

    @Test
    void shouldGiveBackAtOnceOnTheOwnersThread() {
        try (FetchedDataPool pool = new FetchedDataPool()) {
            final FetchedData data = pool.acquire();
            final RecordingBuffer buffer = new RecordingBuffer();
            data.lease(buffer);
            data.release();
            assertThat(buffer.releasedOn).containsExactly(Thread.currentThread());
        }
    }

    @Test
    void shouldFreeDataReleasedElsewhereAfterTheConsumerClosed() throws Exception {
        final FetchedDataPool pool = new FetchedDataPool();
        final FetchedData waiting = pool.acquire();
        final RecordingBuffer waitingBuffer = new RecordingBuffer();
        waiting.lease(waitingBuffer);
        releaseOnAnotherThread(waiting);
        final FetchedData late = pool.acquire();
        final RecordingBuffer lateBuffer = new RecordingBuffer();
        late.lease(lateBuffer);
        pool.close();
        assertThat(waitingBuffer.releasedOn).hasSize(1);
        releaseOnAnotherThread(late);
        assertThat(lateBuffer.releasedOn)
                .as("freed by the releasing thread: nobody polls any more")
                .hasSize(1);
    }
}
