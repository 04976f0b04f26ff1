package io.isthmus.client.consumer.internals;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.client.consumer.internals.SubscriptionState.PartitionState;
import io.isthmus.client.network.LeasedBuffer;
import io.isthmus.client.rdma.RdmaPartitionReader;
import io.isthmus.client.rdma.TestReaders;
import io.isthmus.client.record.ReadableBatches;
import io.isthmus.client.testing.TestBatches;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a read_committed RDMA fetch gives the record iterator: the aborted transactions of the reader's copy that reach
 * into the slice, as a Kafka broker lists them for a fetch (no device needed: the reader is filled as the transport
 * fills it).
 */
class RdmaFetcherTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment memory = arena.allocate(8192);
    private final SubscriptionState subscriptions = new SubscriptionState();
    private final FetchedDataPool pool = new FetchedDataPool();
    private final PartitionState partition;

    RdmaFetcherTest() {
        subscriptions.assignFromUser(List.of(TP));
        subscriptions.seek(TP, 5);
        partition = subscriptions.partition(TP);
    }

    @AfterEach
    void close() {
        pool.close();
        arena.close();
    }

    @Test
    void shouldListOnlyTheAbortedTransactionsThatReachIntoTheSlice() {
        // Producer 1's transaction aborted before the slice (marker at 4), producer 2's reaches into it (marker at 7),
        // producer 3's begins after it.
        final RdmaPartitionReader reader =
                TestReaders.withAborted("t", 0, new long[] {1, 0, 4}, new long[] {2, 2, 7}, new long[] {3, 20, 25});
        long end = TestBatches.writeTransactional(memory, 0, 5, 2, 2);
        end = TestBatches.writeMarker(memory, end, 7, 2, false);
        end = TestBatches.writeTransactional(memory, end, 8, 2, 1);
        end = TestBatches.writeMarker(memory, end, 10, 1, true);
        end = TestBatches.writeTransactional(memory, end, 11, 2, 2);
        final FetchedData data = pool.acquire();
        data.lease(new LeasedBuffer() {
            @Override
            public MemorySegment segment() {
                return memory;
            }

            @Override
            public void release() {}
        });
        final ReadableBatches whole = new ReadableBatches().scan(memory, 0, end, 5);
        final FetchedSlice slice = data.addSlice(partition, 0, whole.end(), 5, whole.nextOffset());

        OneSidedFetcher.addAbortedTransactions(reader.abortedTransactions(), slice, 5, whole.nextOffset());

        assertThat(slice.abortedTransactions().count()).isEqualTo(1);
        assertThat(slice.abortedTransactions().producerId(0)).isEqualTo(2);
        assertThat(slice.abortedTransactions().firstOffset(0)).isEqualTo(2);

        final RecordIterator iterator = new RecordIterator(subscriptions, true, null);
        iterator.reset(data);
        final List<Long> offsets = new ArrayList<>();
        while (iterator.next()) {
            offsets.add(iterator.record().offset());
        }
        assertThat(offsets)
                .as("producer 1's committed transaction is read: its earlier abort ended before the slice")
                .containsExactly(8L, 9L, 11L, 12L);
        assertThat(partition.position()).isEqualTo(13);
    }
}
