package io.isthmus.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.network.FileRegionRecords;
import io.isthmus.broker.network.Response;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.PartitionLeadership;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.testkit.KafkaBatches;
import io.isthmus.broker.testkit.NoQuorum;
import io.isthmus.broker.testkit.TestPartitions;
import io.isthmus.broker.topic.TopicRegistry.TopicInfo;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FetchHandlerTest {
    private static final short BY_NAME = 12;
    private static final short BY_ID = ApiKeys.FETCH.latestVersion();

    @TempDir
    Path tmp;

    private PartitionManager partitions;
    private ScheduledExecutorService delayed;
    private FetchHandler handler;
    private TopicInfo orders;
    private final List<Response> responses = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        partitions = TestPartitions.start(tmp);
        orders = partitions.createTopic("orders", 2);
        delayed = Executors.newSingleThreadScheduledExecutor();
        handler = new FetchHandler(partitions, delayed, AccessControl.allowAll());
    }

    @AfterEach
    void tearDown() throws Exception {
        for (final Response response : responses) {
            for (final AutoCloseable lease : response.leases()) {
                lease.close();
            }
        }
        delayed.shutdownNow();
        partitions.close();
    }

    private Partition partition(final int index) {
        return partitions.partition(new TopicPartition("orders", index)).orElseThrow();
    }

    private void append(final int index, final MemoryRecords records) {
        assertThat(partition(index)
                        .appendFromClient(KafkaBatches.segment(records))
                        .error())
                .isEqualTo(Errors.NONE);
    }

    private static FetchRequestData request(final int maxWaitMs, final int minBytes, final int maxBytes) {
        return new FetchRequestData()
                .setReplicaId(-1)
                .setMaxWaitMs(maxWaitMs)
                .setMinBytes(minBytes)
                .setMaxBytes(maxBytes)
                .setIsolationLevel((byte) 0);
    }

    private static FetchRequestData withPartitions(
            final FetchRequestData data,
            final String topic,
            final Uuid topicId,
            final long fetchOffset,
            final int... indexes) {
        final FetchRequestData.FetchTopic fetchTopic =
                new FetchRequestData.FetchTopic().setTopic(topic).setTopicId(topicId);
        for (final int index : indexes) {
            fetchTopic
                    .partitions()
                    .add(new FetchRequestData.FetchPartition()
                            .setPartition(index)
                            .setFetchOffset(fetchOffset)
                            .setPartitionMaxBytes(1024 * 1024));
        }
        data.topics().add(fetchTopic);
        return data;
    }

    private CompletableFuture<Response> fetchAsync(final short version, final FetchRequestData data) {
        return handler.handle(Requests.context(ApiKeys.FETCH, version), Requests.parse(ApiKeys.FETCH, version, data));
    }

    private FetchResponseData fetch(final short version, final FetchRequestData data) throws Exception {
        final Response response = Requests.await(fetchAsync(version, data));
        responses.add(response);
        return (FetchResponseData) response.body();
    }

    private static FetchResponseData.PartitionData partitionData(final FetchResponseData response, final int index) {
        return response.responses().getFirst().partitions().get(index);
    }

    /** The records of a fetched partition, read from the segment file region the response points at. */
    private static List<String> values(final FetchResponseData.PartitionData data) throws Exception {
        final BaseRecords records = data.records();
        if (records instanceof MemoryRecords memory) {
            return KafkaBatches.values(memory);
        }
        final FileRegionRecords region = (FileRegionRecords) records;
        final ByteBuffer buffer = ByteBuffer.allocate(region.sizeInBytes());
        while (buffer.hasRemaining()) {
            region.channel().read(buffer, region.position() + buffer.position());
        }
        buffer.flip();
        return KafkaBatches.values(MemoryRecords.readableRecords(buffer));
    }

    @Test
    void aFollowerItsPartitionIsPushedToGetsTheOffsetsButNoRecordsAndItsProgressFromThePush() throws Exception {
        final Partition led = partition(0);
        final int epoch = led.leaderEpoch();
        led.becomeReplicatedLeader(
                1, epoch, 1, List.of(1, 2, 3), List.of(1, 2, 3), NoQuorum.ISR_CHANGES, System.currentTimeMillis());
        handler = new FetchHandler(
                partitions,
                delayed,
                AccessControl.allowAll(),
                PartitionLeadership.SOLE_BROKER,
                (replicaId, partition) -> replicaId == 2 && partition == led);
        append(0, KafkaBatches.plain("v", 5, 1_000L));

        final FetchResponseData third = fetch(
                BY_NAME,
                withPartitions(request(0, 1, 1 << 20), "orders", orders.id(), 0, 0)
                        .setReplicaId(3));
        assertThat(values(partitionData(third, 0)))
                .as("a follower fetching over TCP")
                .hasSize(5);
        fetch(
                BY_NAME,
                withPartitions(request(0, 1, 1 << 20), "orders", orders.id(), 5, 0)
                        .setReplicaId(3));

        final FetchResponseData pushed = fetch(
                BY_NAME,
                withPartitions(request(0, 1, 1 << 20), "orders", orders.id(), 0, 0)
                        .setReplicaId(2));
        assertThat(partitionData(pushed, 0).errorCode()).isZero();
        assertThat(values(partitionData(pushed, 0)))
                .as("records the push carries")
                .isEmpty();
        assertThat(partitionData(pushed, 0).highWatermark()).isZero();

        led.onFollowerPush(2, 5, epoch, System.currentTimeMillis());
        assertThat(led.highWatermark())
                .as("the push's ack is the follower's progress")
                .isEqualTo(5);
        final FetchResponseData after = fetch(
                BY_NAME,
                withPartitions(request(0, 1, 1 << 20), "orders", orders.id(), 3, 0)
                        .setReplicaId(2));
        assertThat(partitionData(after, 0).highWatermark())
                .as("the high watermark reaches the pushed follower in its fetch's answer")
                .isEqualTo(5);
    }

    @Test
    void shouldReturnTheRecordsFromTheFetchOffsetLeasedFromTheSegment() throws Exception {
        append(0, KafkaBatches.plain("a", 2, 1L));
        append(0, KafkaBatches.plain("b", 2, 1L));

        final Response response = Requests.await(
                fetchAsync(BY_NAME, withPartitions(request(0, 1, 1 << 20), "orders", Uuid.ZERO_UUID, 2, 0)));
        responses.add(response);
        final FetchResponseData body = (FetchResponseData) response.body();

        final FetchResponseData.PartitionData p0 = partitionData(body, 0);
        assertThat(body.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(body.sessionId()).isZero();
        assertThat(p0.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(p0.highWatermark()).isEqualTo(4);
        assertThat(p0.lastStableOffset()).isEqualTo(4);
        assertThat(p0.logStartOffset()).isZero();
        assertThat(values(p0)).containsExactly("b-0", "b-1");
        assertThat(response.leases()).hasSize(1);
    }

    @Test
    void shouldAnswerOffsetOutOfRangeWithoutWaiting() throws Exception {
        append(0, KafkaBatches.plain("a", 2, 1L));

        final FetchResponseData body =
                fetch(BY_NAME, withPartitions(request(60_000, 1, 1 << 20), "orders", Uuid.ZERO_UUID, 5, 0));

        final FetchResponseData.PartitionData p0 = partitionData(body, 0);
        assertThat(p0.errorCode()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE.code());
        assertThat(p0.highWatermark()).isEqualTo(2);
        assertThat(p0.logStartOffset()).isZero();
    }

    @Test
    void shouldAnswerUnknownTopicOrPartitionByName() throws Exception {
        final FetchRequestData data = request(0, 1, 1 << 20);
        withPartitions(data, "orders", Uuid.ZERO_UUID, 0, 5);
        withPartitions(data, "missing", Uuid.ZERO_UUID, 0, 0);

        final FetchResponseData body = fetch(BY_NAME, data);

        assertThat(partitionData(body, 0).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(body.responses().get(1).partitions().getFirst().errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    }

    @Test
    void shouldFetchByTopicIdFromVersion13() throws Exception {
        append(1, KafkaBatches.plain("a", 2, 1L));
        final FetchRequestData data = request(0, 1, 1 << 20);
        withPartitions(data, null, orders.id(), 0, 1);
        withPartitions(data, null, Uuid.randomUuid(), 0, 0);

        final FetchResponseData body = fetch(BY_ID, data);

        assertThat(body.responses().getFirst().topicId()).isEqualTo(orders.id());
        assertThat(values(partitionData(body, 0))).containsExactly("a-0", "a-1");
        assertThat(body.responses().get(1).partitions().getFirst().errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
    }

    @Test
    void shouldReturnTheFirstBatchEvenWhenItExceedsMaxBytes() throws Exception {
        append(0, KafkaBatches.plain("big", 10, 1L));

        final FetchResponseData body =
                fetch(BY_NAME, withPartitions(request(0, 1, 10), "orders", Uuid.ZERO_UUID, 0, 0, 1));

        assertThat(values(partitionData(body, 0))).hasSize(10);
    }

    @ParameterizedTest(name = "maxBytes={0}")
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
    void aNonPositiveMaxBytesIsOneBatchNotUnlimited(final int maxBytes) throws Exception {
        append(0, KafkaBatches.plain("a", 5, 1L));
        append(0, KafkaBatches.plain("b", 5, 1L));
        append(1, KafkaBatches.plain("c", 5, 1L));

        final FetchResponseData body =
                fetch(BY_NAME, withPartitions(request(0, 1, maxBytes), "orders", Uuid.ZERO_UUID, 0, 0, 1));

        // The first batch of the first partition (KIP-74), nothing more.
        assertThat(values(partitionData(body, 0))).hasSize(5);
        assertThat(partitionData(body, 1).records().sizeInBytes()).isZero();
        assertThat(partitionData(body, 1).highWatermark()).isEqualTo(5);
    }

    @Test
    void aNonPositivePartitionMaxBytesIsOneBatchNotUnlimited() throws Exception {
        append(0, KafkaBatches.plain("a", 5, 1L));
        append(0, KafkaBatches.plain("b", 5, 1L));
        final FetchRequestData data = withPartitions(request(0, 1, 1 << 20), "orders", Uuid.ZERO_UUID, 0, 0);
        data.topics().getFirst().partitions().getFirst().setPartitionMaxBytes(0);

        assertThat(values(partitionData(fetch(BY_NAME, data), 0))).hasSize(5);
    }

    @Test
    void shouldStopAddingPartitionsOnceMaxBytesIsSpent() throws Exception {
        final MemoryRecords batch = KafkaBatches.plain("a", 5, 1L);
        append(0, batch);
        append(1, KafkaBatches.plain("b", 5, 1L));
        final int maxBytes = batch.sizeInBytes() + batch.sizeInBytes() / 2;

        final FetchResponseData body =
                fetch(BY_NAME, withPartitions(request(0, 1, maxBytes), "orders", Uuid.ZERO_UUID, 0, 0, 1));

        final FetchResponseData.PartitionData p1 = partitionData(body, 1);
        assertThat(values(partitionData(body, 0))).hasSize(5);
        // Only the response's first batch may exceed max.bytes (KIP-74); p1's whole batch does not fit.
        assertThat(p1.records().sizeInBytes()).isZero();
        assertThat(p1.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(p1.highWatermark()).isEqualTo(5);
    }

    @Test
    void shouldReturnAsManyWholeBatchesAsFitInMaxBytes() throws Exception {
        final MemoryRecords batch = KafkaBatches.plain("a", 5, 1L);
        append(0, batch);
        append(0, KafkaBatches.plain("b", 5, 1L));
        append(0, KafkaBatches.plain("c", 5, 1L));

        final FetchResponseData body = fetch(
                BY_NAME, withPartitions(request(0, 1, 2 * batch.sizeInBytes() + 10), "orders", Uuid.ZERO_UUID, 0, 0));

        assertThat(values(partitionData(body, 0))).hasSize(10);
    }

    @Test
    void shouldCompleteALongPollWhenDataIsAppended() throws Exception {
        append(0, KafkaBatches.plain("old", 1, 1L));
        final CompletableFuture<Response> waiting =
                fetchAsync(BY_NAME, withPartitions(request(120_000, 1, 1 << 20), "orders", Uuid.ZERO_UUID, 1, 0));
        assertThat(waiting).isNotDone();

        append(0, KafkaBatches.plain("new", 2, 1L));

        final Response response = Requests.await(waiting);
        responses.add(response);
        assertThat(values(partitionData((FetchResponseData) response.body(), 0)))
                .containsExactly("new-0", "new-1");
    }

    @Test
    void aCancelledLongPollStopsListeningAtOnceNotAtItsDeadline() throws Exception {
        final CompletableFuture<Response> waiting = fetchAsync(
                BY_NAME, withPartitions(request(Integer.MAX_VALUE, 1, 1 << 20), "orders", Uuid.ZERO_UUID, 0, 0, 1));
        awaitListeners(1);
        assertThat(waiting).isNotDone();

        waiting.cancel(false); // what the connection does when its client goes

        awaitListeners(0);
        append(0, KafkaBatches.plain("after", 1, 1L)); // nobody is woken, and nothing breaks
        assertThat(partition(0).appendListenerCount()).isZero();
    }

    /** Waits until each of the two partitions has {@code count} listeners (the delayed-fetch thread registers them). */
    private void awaitListeners(final int count) throws InterruptedException {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (partition(0).appendListenerCount() != count || partition(1).appendListenerCount() != count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "append listeners: partition 0 has " + partition(0).appendListenerCount() + ", partition 1 has "
                                + partition(1).appendListenerCount() + ", expected " + count);
            }
            Thread.sleep(5);
        }
    }

    @Test
    void shouldCompleteALongPollEmptyAtMaxWait() throws Exception {
        final Response response = Requests.await(
                fetchAsync(BY_NAME, withPartitions(request(50, 1, 1 << 20), "orders", Uuid.ZERO_UUID, 0, 0, 1)));
        responses.add(response);

        final FetchResponseData body = (FetchResponseData) response.body();
        assertThat(partitionData(body, 0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(partitionData(body, 0).records().sizeInBytes()).isZero();
        assertThat(partitionData(body, 1).records().sizeInBytes()).isZero();
        assertThat(response.leases()).isEmpty();
    }

    @Test
    void shouldAnswerAtOnceWithoutMaxWait() throws Exception {
        final CompletableFuture<Response> answer =
                fetchAsync(BY_NAME, withPartitions(request(0, 1, 1 << 20), "orders", Uuid.ZERO_UUID, 0, 0));

        assertThat(answer).isDone();
        assertThat(partitionData((FetchResponseData) answer.get().body(), 0)
                        .records()
                        .sizeInBytes())
                .isZero();
    }
}
