package io.isthmus.client.consumer.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.client.consumer.internals.SubscriptionState.PartitionState;
import io.isthmus.client.network.LeasedBuffer;
import io.isthmus.client.record.ReadableBatches;
import io.isthmus.client.testing.TestBatches;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The consume path after the socket: a fetcher walks the batch headers once ({@link ReadableBatches}) and the slice
 * keeps the readable end and next offset; the iterator trusts them.
 */
class RecordIteratorTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment memory = arena.allocate(8192);
    private final SubscriptionState subscriptions = new SubscriptionState();
    private final FetchedDataPool pool = new FetchedDataPool();
    private final ReadableBatches batches = new ReadableBatches();
    private final TestBuffer buffer = new TestBuffer(memory);
    private final PartitionState partition;

    RecordIteratorTest() {
        subscriptions.assignFromUser(List.of(TP));
        subscriptions.seek(TP, 0);
        partition = subscriptions.partition(TP);
    }

    @AfterEach
    void close() {
        pool.close();
        arena.close();
    }

    /** A buffer a test lends: counts releases. */
    private static final class TestBuffer implements LeasedBuffer {
        private final MemorySegment segment;
        int releases;

        TestBuffer(final MemorySegment segment) {
            this.segment = segment;
        }

        @Override
        public MemorySegment segment() {
            return segment;
        }

        @Override
        public void release() {
            releases++;
        }
    }

    /** What a fetcher does with one partition's bytes: one walk, then a slice that keeps what the walk found. */
    private FetchedData fetched(final long start, final long limit, final long fetchOffset) {
        final FetchedData data = pool.acquire();
        data.lease(buffer);
        final ReadableBatches whole = batches.scan(memory, start, limit, fetchOffset);
        data.addSlice(partition, start, whole.end(), fetchOffset, whole.nextOffset());
        subscriptions.advanceFetchPosition(partition, whole.nextOffset());
        return data;
    }

    private static List<Long> drain(final RecordIterator iterator) {
        final List<Long> offsets = new ArrayList<>();
        while (iterator.next()) {
            final MemorySegment segment = iterator.recordSegment();
            final String value = new String(
                    segment.asSlice(
                                    iterator.record().valueOffset(),
                                    iterator.record().valueSize())
                            .toArray(ValueLayout.JAVA_BYTE),
                    StandardCharsets.UTF_8);
            assertThat(value).isEqualTo(TestBatches.value(iterator.record().offset()));
            offsets.add(iterator.record().offset());
        }
        return offsets;
    }

    @Test
    void shouldReadUpToThePrecomputedReadableEndAndNeverLookAtTheTruncatedTail() {
        final long first = TestBatches.write(memory, 0, 0, 3);
        final long second = TestBatches.write(memory, first, 3, 3);
        final long third = TestBatches.write(memory, second, 6, 8);
        final long limit = second + (third - second) / 2; // the response ends in the middle of the third batch

        final FetchedData data = fetched(0, limit, 0);
        final FetchedSlice slice = data.slice(0);
        assertThat(slice.readableEnd()).isEqualTo(second);
        assertThat(slice.nextOffset()).isEqualTo(6);
        assertThat(partition.fetchPosition())
                .as("the next fetch starts after the last whole batch")
                .isEqualTo(6);

        // Put a whole, valid batch where the truncated tail was: an iterator that walked the headers again (up to the
        // limit the bytes came with) would find and deliver it; one that trusts the slice never looks.
        final long replacementEnd = TestBatches.write(memory, second, 100, 1);
        assertThat(replacementEnd).isLessThanOrEqualTo(limit);

        final RecordIterator iterator = new RecordIterator(subscriptions, true, null);
        iterator.reset(data);

        assertThat(drain(iterator)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
        assertThat(partition.position()).isEqualTo(6);
        iterator.releaseData();
        assertThat(buffer.releases).isEqualTo(1);
    }

    @Test
    void shouldSkipRecordsBelowTheFetchOffsetAndMovePastControlBatches() {
        final long first = TestBatches.write(memory, 0, 10, 4);
        final long control = TestBatches.write(memory, first, 14, 1, true);
        final long last = TestBatches.write(memory, control, 15, 2);
        subscriptions.seek(TP, 12);

        final RecordIterator iterator = new RecordIterator(subscriptions, true, null);
        iterator.reset(fetched(0, last, 12));

        assertThat(drain(iterator)).containsExactly(12L, 13L, 15L, 16L);
        assertThat(partition.position()).isEqualTo(17);
    }

    /**
     * A read_committed fetch of one partition: producer 1 commits, producer 2's transaction from offset 2 aborts (its
     * batches on both sides of producer 1's marker are skipped, up to its own ABORT marker), then producer 2's next
     * transaction commits and a non-transactional batch follows. Only the aborted transaction's records are left out.
     */
    private FetchedData interleavedTransactions(final boolean listAborted) {
        long end = TestBatches.writeTransactional(memory, 0, 0, 2, 1);
        end = TestBatches.writeTransactional(memory, end, 2, 2, 2);
        end = TestBatches.writeMarker(memory, end, 4, 1, true);
        end = TestBatches.writeTransactional(memory, end, 5, 2, 2);
        end = TestBatches.writeMarker(memory, end, 7, 2, false);
        end = TestBatches.writeTransactional(memory, end, 8, 2, 2);
        end = TestBatches.writeMarker(memory, end, 10, 2, true);
        end = TestBatches.write(memory, end, 11, 2);
        final FetchedData data = fetched(0, end, 0);
        if (listAborted) {
            data.slice(0).addAbortedTransaction(2, 2);
        }
        return data;
    }

    @Test
    void shouldSkipTheBatchesOfAnAbortedTransactionUpToItsAbortMarker() {
        final RecordIterator iterator = new RecordIterator(subscriptions, true, null);
        iterator.reset(interleavedTransactions(true));

        assertThat(drain(iterator)).containsExactly(0L, 1L, 8L, 9L, 11L, 12L);
        assertThat(partition.position())
                .as("past the skipped batches and markers")
                .isEqualTo(13);
    }

    @Test
    void shouldSkipAbortedBatchesInAFetchHandedOutAtOnce() {
        final FetchedData data = interleavedTransactions(true);
        subscriptions.advancePositions(data);

        final RecordIterator detached = new RecordIterator(null, true, null);
        detached.reset(data);

        assertThat(drain(detached)).containsExactly(0L, 1L, 8L, 9L, 11L, 12L);
        assertThat(partition.position()).isEqualTo(13);
    }

    @Test
    void shouldReadAbortedTransactionsWhenTheFetchListsNone() {
        final RecordIterator iterator = new RecordIterator(subscriptions, true, null);
        iterator.reset(interleavedTransactions(false));

        assertThat(drain(iterator))
                .as("read_uncommitted: every record, markers left out")
                .containsExactly(0L, 1L, 2L, 3L, 5L, 6L, 8L, 9L, 11L, 12L);
    }

    @Test
    void shouldMovePastAFetchOfOnlyAnAbortedTransactionAndItsMarker() {
        long end = TestBatches.writeTransactional(memory, 0, 20, 3, 5);
        end = TestBatches.writeMarker(memory, end, 23, 5, false);
        subscriptions.seek(TP, 20);
        final FetchedData data = fetched(0, end, 20);
        data.slice(0).addAbortedTransaction(5, 20);

        final RecordIterator iterator = new RecordIterator(subscriptions, true, null);
        iterator.reset(data);

        assertThat(iterator.next()).isFalse();
        assertThat(partition.position())
                .as("a poll loop never stalls on a trailing marker")
                .isEqualTo(24);
        assertThat(partition.fetchPosition()).isEqualTo(24);
    }

    @Test
    void shouldRefuseAMarkerWithoutAControlKey() {
        long end = TestBatches.writeTransactional(memory, 0, 0, 1, 5);
        try (io.isthmus.protocol.record.RecordBatchBuilder builder = new io.isthmus.protocol.record.RecordBatchBuilder()
                .transactional(true)
                .control(true)
                .producer(5, (short) 0, -1)) {
            builder.begin(memory, end, memory.byteSize(), 1, 1_000L);
            builder.append(1_000L, new byte[] {0}, null);
            end += builder.finish();
        }
        final FetchedData data = fetched(0, end, 0);
        data.slice(0).addAbortedTransaction(5, 0);
        final RecordIterator iterator = new RecordIterator(subscriptions, true, null);
        iterator.reset(data);

        assertThatThrownBy(iterator::next)
                .isInstanceOf(CorruptRecordException.class)
                .hasMessageContaining("control record key of 1 bytes")
                .hasMessageContaining("partition=t-0");
    }

    @Test
    void shouldDropASliceFetchedBeforeASeek() {
        final long end = TestBatches.write(memory, 0, 0, 5);
        final FetchedData data = fetched(0, end, 0);
        subscriptions.seek(TP, 3);

        final RecordIterator iterator = new RecordIterator(subscriptions, true, null);
        iterator.reset(data);

        assertThat(iterator.next()).isFalse();
        assertThat(partition.position()).isEqualTo(3);
    }

    @Test
    void shouldMoveThePositionPastEachRecordHandledOnTheCallbackPath() {
        final long end = TestBatches.write(memory, 0, 0, 3);
        final RecordIterator iterator = new RecordIterator(subscriptions, true, null);
        iterator.reset(fetched(0, end, 0));

        assertThat(iterator.next()).isTrue();
        assertThat(partition.position()).as("not before the handler is done").isZero();
        iterator.consumed();
        assertThat(partition.position()).isEqualTo(1);
        assertThat(iterator.next()).isTrue();
        iterator.consumed();
        assertThat(partition.position()).isEqualTo(2);
    }

    @Test
    void shouldMoveEveryPositionPastAWholeFetchHandedOutAtOnce() {
        final long end = TestBatches.write(memory, 0, 0, 3);
        final FetchedData data = fetched(0, end, 0);

        subscriptions.advancePositions(data);

        assertThat(partition.position()).isEqualTo(3);
    }

    @Test
    void shouldCheckTheCrcOfEachBatchItOpens() {
        final long end = TestBatches.write(memory, 0, 0, 2);
        memory.set(ValueLayout.JAVA_BYTE, end - 1, (byte) (memory.get(ValueLayout.JAVA_BYTE, end - 1) ^ 1));
        final RecordIterator iterator = new RecordIterator(subscriptions, true, null);
        iterator.reset(fetched(0, end, 0));

        assertThatThrownBy(iterator::next)
                .isInstanceOf(CorruptRecordException.class)
                .hasMessageContaining("CRC mismatch");
    }

    @Test
    void shouldRecycleReleasedDataWithItsSlicesAndGiveTheBufferBack() {
        final long end = TestBatches.write(memory, 0, 0, 1);
        final FetchedData data = fetched(0, end, 0);

        data.release();

        assertThat(buffer.releases).isEqualTo(1);
        assertThat(data.isEmpty()).isTrue();
        assertThat(pool.acquire()).isSameAs(data);
    }

    @Test
    void shouldRefuseASliceWithoutAWholeBatch() {
        final FetchedData data = pool.acquire();

        assertThatThrownBy(() -> data.addSlice(partition, 64, 64, 0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("readableEnd=64");
    }
}
