package io.isthmus.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.log.LogFileNames;
import io.isthmus.broker.log.LogReadResult;
import io.isthmus.broker.network.Response;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.PartitionLeadership;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.testkit.KafkaBatches;
import io.isthmus.broker.testkit.TestPartitions;
import io.isthmus.broker.topic.TopicRegistry.TopicInfo;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProduceHandlerTest {
    /** The last version that names topics; later ones carry topic ids. */
    private static final short BY_NAME = 12;

    private static final short BY_ID = 13;

    @TempDir
    Path tmp;

    private PartitionManager partitions;
    private ProduceHandler handler;
    private TopicInfo orders;

    @BeforeEach
    void setUp() throws Exception {
        partitions = TestPartitions.start(tmp);
        orders = partitions.createTopic("orders", 2);
        handler = new ProduceHandler(partitions, AccessControl.allowAll());
    }

    @AfterEach
    void tearDown() throws Exception {
        partitions.close();
    }

    private static ProduceRequestData request(
            final short acks,
            final String topic,
            final Uuid topicId,
            final int partition,
            final MemoryRecords records) {
        final ProduceRequestData data = new ProduceRequestData().setAcks(acks).setTimeoutMs(30_000);
        final ProduceRequestData.TopicProduceData topicData =
                new ProduceRequestData.TopicProduceData().setName(topic).setTopicId(topicId);
        topicData
                .partitionData()
                .add(new ProduceRequestData.PartitionProduceData()
                        .setIndex(partition)
                        .setRecords(records));
        data.topicData().add(topicData);
        return data;
    }

    private ProduceResponseData.PartitionProduceResponse produce(
            final short version,
            final String topic,
            final Uuid topicId,
            final int partition,
            final MemoryRecords records)
            throws Exception {
        final ProduceResponseData response = Requests.body(
                handler, ApiKeys.PRODUCE, version, request((short) -1, topic, topicId, partition, records));
        return response.responses().iterator().next().partitionResponses().getFirst();
    }

    private Partition partition(final int index) {
        return partitions.partition(new TopicPartition("orders", index)).orElseThrow();
    }

    private java.util.List<String> values(final int index) {
        final Partition partition = partition(index);
        try (LogReadResult result = partition.read(partition.logStartOffset(), Integer.MAX_VALUE)) {
            return KafkaBatches.values(result.records());
        }
    }

    @Test
    void shouldAppendAndAnswerTheBaseOffset() throws Exception {
        produce(BY_NAME, "orders", Uuid.ZERO_UUID, 1, KafkaBatches.plain("a", 2, 1L));

        final ProduceResponseData.PartitionProduceResponse response =
                produce(BY_NAME, "orders", Uuid.ZERO_UUID, 1, KafkaBatches.plain("b", 3, 1L));

        assertThat(response.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(response.index()).isEqualTo(1);
        assertThat(response.baseOffset()).isEqualTo(2);
        assertThat(response.logStartOffset()).isZero();
        assertThat(response.logAppendTimeMs()).isEqualTo(-1);
        assertThat(values(1)).containsExactly("a-0", "a-1", "b-0", "b-1", "b-2");
        assertThat(partition(0).logEndOffset()).isZero();
    }

    @Test
    void shouldAppendByTopicId() throws Exception {
        final ProduceResponseData.PartitionProduceResponse response =
                produce(BY_ID, null, orders.id(), 0, KafkaBatches.plain("a", 2, 1L));

        assertThat(response.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(values(0)).containsExactly("a-0", "a-1");
    }

    @Test
    void shouldAnswerUnknownTopicOrPartition() throws Exception {
        assertThat(produce(BY_NAME, "missing", Uuid.ZERO_UUID, 0, KafkaBatches.plain("a", 1, 1L))
                        .errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(produce(BY_NAME, "orders", Uuid.ZERO_UUID, 2, KafkaBatches.plain("a", 1, 1L))
                        .errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(produce(BY_ID, null, Uuid.randomUuid(), 0, KafkaBatches.plain("a", 1, 1L))
                        .errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
    }

    @Test
    void shouldAnswerCorruptMessageForABadCrcAndAppendNothing() throws Exception {
        final byte[] bytes = KafkaBatches.bytes(KafkaBatches.plain("a", 3, 1L));
        bytes[bytes.length - 2] ^= 0x01;

        final ProduceResponseData.PartitionProduceResponse response =
                produce(BY_NAME, "orders", Uuid.ZERO_UUID, 0, MemoryRecords.readableRecords(ByteBuffer.wrap(bytes)));

        assertThat(response.errorCode()).isEqualTo(Errors.CORRUPT_MESSAGE.code());
        assertThat(response.errorMessage()).isNotBlank();
        assertThat(partition(0).logEndOffset()).isZero();
    }

    @Test
    void aBatchShorterThanItsHeaderIsCorruptMessageNotAServerError() throws Exception {
        final byte[] bytes = java.util.Arrays.copyOf(KafkaBatches.bytes(KafkaBatches.plain("a", 3, 1L)), 30);

        final ProduceResponseData.PartitionProduceResponse response =
                produce(BY_NAME, "orders", Uuid.ZERO_UUID, 0, MemoryRecords.readableRecords(ByteBuffer.wrap(bytes)));

        assertThat(response.errorCode()).isEqualTo(Errors.CORRUPT_MESSAGE.code());
        assertThat(response.errorMessage()).contains("TRUNCATED_HEADER");
        assertThat(partition(0).logEndOffset()).isZero();
    }

    @Test
    void aBadLaterBatchRejectsTheWholeRequestForThePartitionAndAppendsNone() throws Exception {
        final byte[] good = KafkaBatches.bytes(KafkaBatches.plain("a", 3, 1L));
        final byte[] bad = KafkaBatches.bytes(KafkaBatches.plain("b", 2, 1L));
        bad[bad.length - 2] ^= 0x01;
        final ByteBuffer both =
                ByteBuffer.allocate(good.length + bad.length).put(good).put(bad).flip();

        final ProduceResponseData.PartitionProduceResponse response =
                produce(BY_NAME, "orders", Uuid.ZERO_UUID, 0, MemoryRecords.readableRecords(both));

        assertThat(response.errorCode()).isEqualTo(Errors.CORRUPT_MESSAGE.code());
        assertThat(partition(0).logEndOffset())
                .as("the good first batch is not appended either")
                .isZero();
    }

    @Test
    void shouldAnswerNothingForAcksZeroButAppend() throws Exception {
        final Response response = Requests.handle(
                handler,
                ApiKeys.PRODUCE,
                BY_NAME,
                request((short) 0, "orders", Uuid.ZERO_UUID, 0, KafkaBatches.plain("a", 2, 1L)));

        assertThat(response).isSameAs(Response.NONE);
        assertThat(values(0)).containsExactly("a-0", "a-1");
    }

    @Test
    void shouldAnswerARetriedIdempotentBatchWithItsOriginalOffset() throws Exception {
        produce(BY_NAME, "orders", Uuid.ZERO_UUID, 0, KafkaBatches.plain("before", 4, 1L));
        final long original = produce(BY_NAME, "orders", Uuid.ZERO_UUID, 0, KafkaBatches.idempotent(9, (short) 0, 0, 3))
                .baseOffset();

        final ProduceResponseData.PartitionProduceResponse retried =
                produce(BY_NAME, "orders", Uuid.ZERO_UUID, 0, KafkaBatches.idempotent(9, (short) 0, 0, 3));

        assertThat(original).isEqualTo(4);
        assertThat(retried.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(retried.baseOffset()).isEqualTo(4);
        assertThat(partition(0).logEndOffset()).isEqualTo(7);
    }

    @Test
    void shouldAnswerOutOfOrderSequenceForAGap() throws Exception {
        produce(BY_NAME, "orders", Uuid.ZERO_UUID, 0, KafkaBatches.idempotent(9, (short) 0, 0, 3));

        final ProduceResponseData.PartitionProduceResponse response =
                produce(BY_NAME, "orders", Uuid.ZERO_UUID, 0, KafkaBatches.idempotent(9, (short) 0, 10, 1));

        assertThat(response.errorCode()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code());
        assertThat(partition(0).logEndOffset()).isEqualTo(3);
    }

    /**
     * A transactional producer's first batch waits for its coordinator's word while its second, sent right behind it,
     * is verified at once: the second must still enter the log after the first, not be refused as a sequence gap.
     * Without the per-producer order the second is appended first and answered OUT_OF_ORDER_SEQUENCE_NUMBER, after
     * which kafka-clients, seeing the first acknowledged, fails the transaction.
     */
    @Test
    void aTransactionalProducersBatchesEnterThePartitionInTheOrderTheyCameWhateverTheirVerificationTakes()
            throws Exception {
        final CompletableFuture<Errors> firstVerified = new CompletableFuture<>();
        final AtomicInteger asked = new AtomicInteger();
        handler = handlerVerifying(partition ->
                asked.getAndIncrement() == 0 ? firstVerified : CompletableFuture.completedFuture(Errors.NONE));
        final ProduceRequestData first =
                request((short) -1, "orders", Uuid.ZERO_UUID, 0, KafkaBatches.idempotent(7, (short) 0, 0, 1));
        final ProduceRequestData second =
                request((short) -1, "orders", Uuid.ZERO_UUID, 0, KafkaBatches.idempotent(7, (short) 0, 1, 3));
        first.setTransactionalId("payments-writer");
        second.setTransactionalId("payments-writer");

        final CompletableFuture<Response> firstAnswer = handler.handle(
                Requests.context(ApiKeys.PRODUCE, BY_NAME), Requests.parse(ApiKeys.PRODUCE, BY_NAME, first));
        final CompletableFuture<Response> secondAnswer = handler.handle(
                Requests.context(ApiKeys.PRODUCE, BY_NAME), Requests.parse(ApiKeys.PRODUCE, BY_NAME, second));
        assertThat(secondAnswer).as("the second batch waits for the first").isNotDone();
        firstVerified.complete(Errors.NONE);

        assertThat(partitionResponse(Requests.await(firstAnswer)).errorCode()).isEqualTo(Errors.NONE.code());
        final ProduceResponseData.PartitionProduceResponse secondResponse =
                partitionResponse(Requests.await(secondAnswer));
        assertThat(secondResponse.errorCode())
                .as("%s", secondResponse.errorMessage())
                .isEqualTo(Errors.NONE.code());
        assertThat(secondResponse.baseOffset()).isEqualTo(1);
        assertThat(partition(0).logEndOffset()).isEqualTo(4);
    }

    /**
     * A partition whose append fails unexpectedly (here its verification throws) is answered with the error that
     * failure maps to, while the request's other partition is answered as usual; and the request is answered only
     * once that partition's queued append is done, since the appends read the request's frame.
     */
    @Test
    void anUnexpectedFailureIsOnePartitionsAnswerAndTheRequestWaitsForItsOtherAppends() throws Exception {
        final CompletableFuture<Errors> firstVerified = new CompletableFuture<>();
        handler = handlerVerifying(partition -> {
            if (partition.partition() == 1) {
                throw new IllegalStateException("the coordinator's client broke");
            }
            return firstVerified;
        });
        final ProduceRequestData both =
                request((short) -1, "orders", Uuid.ZERO_UUID, 0, KafkaBatches.idempotent(7, (short) 0, 0, 2));
        addPartition(both, 1, KafkaBatches.idempotent(7, (short) 0, 0, 3));
        both.setTransactionalId("payments-writer");

        final CompletableFuture<Response> answer = handler.handle(
                Requests.context(ApiKeys.PRODUCE, BY_NAME), Requests.parse(ApiKeys.PRODUCE, BY_NAME, both));
        assertThat(answer)
                .as("partition 0's append still waits for its verification")
                .isNotDone();
        firstVerified.complete(Errors.NONE);

        final List<ProduceResponseData.PartitionProduceResponse> responses =
                partitionResponses(Requests.await(answer).body());
        assertThat(responses.get(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(responses.get(1).errorCode()).isEqualTo(Errors.UNKNOWN_SERVER_ERROR.code());
        assertThat(responses.get(1).errorMessage()).contains("the coordinator's client broke");
        assertThat(partition(0).logEndOffset()).isEqualTo(2);
        assertThat(partition(1).logEndOffset()).isZero();
    }

    /**
     * An append that throws at once (here the roll to a new segment finds a directory where its file must go) is its
     * partition's answer; the request's other partition is answered as usual.
     */
    @Test
    void anAppendThatThrowsAtOnceIsItsPartitionsAnswerAndTheOtherPartitionIsAnsweredAsUsual() throws Exception {
        final MemoryRecords nearlyASegment =
                MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(null, new byte[900_000]));
        assertThat(produce(BY_NAME, "orders", Uuid.ZERO_UUID, 0, nearlyASegment).errorCode())
                .isEqualTo(Errors.NONE.code());
        final Path partitionDir;
        try (var dirs = Files.walk(tmp)) {
            partitionDir = dirs.filter(d -> d.getFileName().toString().equals("orders-0"))
                    .findFirst()
                    .orElseThrow();
        }
        Files.createDirectory(LogFileNames.logFile(partitionDir, 1));
        final ProduceRequestData both = request(
                (short) -1,
                "orders",
                Uuid.ZERO_UUID,
                0,
                MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(null, new byte[200_000])));
        addPartition(both, 1, KafkaBatches.plain("fine", 3, 1_700_000_000_000L));

        final List<ProduceResponseData.PartitionProduceResponse> responses =
                partitionResponses(Requests.body(handler, ApiKeys.PRODUCE, BY_NAME, both));

        assertThat(responses.get(0).errorCode()).isNotEqualTo(Errors.NONE.code());
        assertThat(responses.get(0).errorMessage()).contains("already exists");
        assertThat(responses.get(1).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(partition(0).logEndOffset()).isEqualTo(1);
        assertThat(partition(1).logEndOffset()).isEqualTo(3);
    }

    /** A handler whose verification answers each partition's batches as {@code answer} says. */
    private ProduceHandler handlerVerifying(final Function<TopicPartition, CompletableFuture<Errors>> answer) {
        final ProduceVerification verification = new ProduceVerification() {
            @Override
            public CompletableFuture<Errors> verify(
                    final String transactionalId, final MemoryRecords records, final TopicPartition partition) {
                return answer.apply(partition);
            }

            @Override
            public void markerWritten(final long producerId, final TopicPartition partition) {}
        };
        return new ProduceHandler(
                partitions, AccessControl.allowAll(), PartitionLeadership.SOLE_BROKER, 1, verification);
    }

    /** Adds partition {@code index} of the request's one topic, carrying {@code records}. */
    private static void addPartition(final ProduceRequestData request, final int index, final MemoryRecords records) {
        request.topicData()
                .iterator()
                .next()
                .partitionData()
                .add(new ProduceRequestData.PartitionProduceData()
                        .setIndex(index)
                        .setRecords(records));
    }

    /** The partition answers of a response about one topic. */
    private static List<ProduceResponseData.PartitionProduceResponse> partitionResponses(final ApiMessage body) {
        return ((ProduceResponseData) body).responses().iterator().next().partitionResponses();
    }

    private static ProduceResponseData.PartitionProduceResponse partitionResponse(final Response response) {
        return partitionResponses(response.body()).getFirst();
    }

    @Test
    void shouldRefuseAPartitionWithoutRecords() throws Exception {
        assertThat(produce(BY_NAME, "orders", Uuid.ZERO_UUID, 0, MemoryRecords.EMPTY)
                        .errorCode())
                .isEqualTo(Errors.INVALID_RECORD.code());
    }
}
