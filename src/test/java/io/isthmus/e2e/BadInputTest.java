package io.isthmus.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.Broker;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.CRC32C;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.EndTxnResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input from the network: every bad connection gets an error or is closed (with the reason logged by the
 * broker), the broker keeps serving everyone else, and no acknowledged record is lost.
 */
class BadInputTest {
    private static final short PRODUCE_VERSION = 12;
    private static final String TOPIC = "target";

    private Broker broker;
    private String host;
    private int port;

    @BeforeEach
    void start(@TempDir final Path dir) throws Exception {
        broker = EmbeddedBroker.start(dir);
        host = broker.endpoints().getFirst().host();
        port = broker.endpoints().getFirst().port();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1), new NewTopic("good", 1, (short) 1)))
                    .all()
                    .get();
        }
    }

    @AfterEach
    void stop() throws Exception {
        broker.close();
    }

    @Test
    void shouldCloseAConnectionAnnouncingAHugeFrame() throws Exception {
        try (RawKafkaConnection connection = connect()) {
            connection.send(ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE).array());
            assertThat(connection.closedByBroker()).isTrue();
        }
    }

    @Test
    void shouldCloseAConnectionWithANegativeFrameSize() throws Exception {
        try (RawKafkaConnection connection = connect()) {
            connection.send(ByteBuffer.allocate(4).putInt(-16).array());
            assertThat(connection.closedByBroker()).isTrue();
        }
    }

    @Test
    void shouldCloseAConnectionWithATruncatedHeader() throws Exception {
        try (RawKafkaConnection connection = connect()) {
            connection.send(ByteBuffer.allocate(7)
                    .putInt(3)
                    .put((byte) 0)
                    .put((byte) 3)
                    .put((byte) 0)
                    .array());
            assertThat(connection.closedByBroker()).isTrue();
        }
    }

    @Test
    void shouldCloseAConnectionWithAnUnknownApiKey() throws Exception {
        try (RawKafkaConnection connection = connect()) {
            connection.send(ByteBuffer.allocate(14)
                    .putInt(10)
                    .putShort((short) 9999)
                    .putShort((short) 0)
                    .putInt(1)
                    .putShort((short) -1)
                    .array());
            assertThat(connection.closedByBroker()).isTrue();
        }
    }

    @Test
    void shouldCloseAConnectionSendingProduceAtAnUnsupportedVersion() throws Exception {
        final byte[] valid = RawKafkaConnection.frame(
                produce(validBatch()), new RequestHeader(ApiKeys.PRODUCE, PRODUCE_VERSION, "bad", 1));
        ByteBuffer.wrap(valid).putShort(6, (short) 99);
        try (RawKafkaConnection connection = connect()) {
            connection.send(valid);
            assertThat(connection.closedByBroker()).isTrue();
        }
        assertThat(broker.partitions()
                        .partition(new TopicPartition(TOPIC, 0))
                        .orElseThrow()
                        .logEndOffset())
                .isZero();
    }

    @Test
    void shouldAnswerATooNewApiVersionsRequestInVersionZeroWithTheServedVersions() throws Exception {
        final RequestHeader header = new RequestHeader(ApiKeys.API_VERSIONS, (short) 3, "new-client", 7);
        final byte[] frame =
                RawKafkaConnection.frame(new ApiVersionsRequest(new ApiVersionsRequestData(), (short) 3), header);
        ByteBuffer.wrap(frame).putShort(6, (short) 99);
        try (RawKafkaConnection connection = connect()) {
            connection.send(frame);
            final ApiVersionsResponse response = (ApiVersionsResponse)
                    connection.receive(new RequestHeader(ApiKeys.API_VERSIONS, (short) 0, "new-client", 7));
            assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.UNSUPPORTED_VERSION);
            assertThat(response.data().apiKeys().find(ApiKeys.PRODUCE.id)).isNotNull();
        }
    }

    @Test
    void shouldRejectABatchWithABadCrcAndKeepTheConnectionServing() throws Exception {
        final ByteBuffer corrupt = validBatch();
        corrupt.put(corrupt.limit() - 1, (byte) (corrupt.get(corrupt.limit() - 1) ^ 0x5A));
        try (RawKafkaConnection connection = connect()) {
            assertThat(produceError(connection, corrupt, 1)).isEqualTo(Errors.CORRUPT_MESSAGE);
            assertThat(produceError(connection, validBatch(), 2)).isEqualTo(Errors.NONE);
        }
        assertThat(broker.partitions()
                        .partition(new TopicPartition(TOPIC, 0))
                        .orElseThrow()
                        .logEndOffset())
                .isEqualTo(3);
    }

    @Test
    void shouldRejectABatchWhoseOffsetsDisagreeWithItsRecords() throws Exception {
        final ByteBuffer batch = validBatch();
        batch.putInt(23, 7); // lastOffsetDelta of a 3-record batch must be 2
        fixCrc(batch);
        try (RawKafkaConnection connection = connect()) {
            assertThat(produceError(connection, batch, 1)).isEqualTo(Errors.CORRUPT_MESSAGE);
            assertThat(produceError(connection, validBatch(), 2)).isEqualTo(Errors.NONE);
        }
        assertThat(broker.partitions()
                        .partition(new TopicPartition(TOPIC, 0))
                        .orElseThrow()
                        .logEndOffset())
                .isEqualTo(3);
    }

    @Test
    void shouldSurviveRandomAndMutatedFramesWhileAGoodClientProducesAndConsumes() throws Exception {
        final int goodRecords = 20_000;
        final Set<String> acked = ConcurrentHashMap.newKeySet();
        final ExecutorService goodClient = Executors.newSingleThreadExecutor();
        final Future<?> producing = goodClient.submit(() -> {
            final Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            props.put(ProducerConfig.LINGER_MS_CONFIG, 1);
            try (KafkaProducer<String, String> producer =
                    new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
                for (int i = 0; i < goodRecords; i++) {
                    final String value = "good-" + i;
                    producer.send(new ProducerRecord<>("good", value), (metadata, error) -> {
                        if (error == null) {
                            acked.add(value);
                        }
                    });
                }
                producer.flush();
            }
            return null;
        });

        final Random random = new Random(42);
        final List<byte[]> validFrames = List.of(
                RawKafkaConnection.frame(
                        produce(validBatch()), new RequestHeader(ApiKeys.PRODUCE, PRODUCE_VERSION, "f", 1)),
                RawKafkaConnection.frame(
                        new MetadataRequest(new MetadataRequestData().setTopics(null), (short) 12),
                        new RequestHeader(ApiKeys.METADATA, (short) 12, "f", 1)),
                RawKafkaConnection.frame(
                        new ApiVersionsRequest(new ApiVersionsRequestData(), (short) 3),
                        new RequestHeader(ApiKeys.API_VERSIONS, (short) 3, "f", 1)));
        int closed = 0;
        int answered = 0;
        for (int round = 0; round < 300; round++) {
            final byte[] bad;
            if (round % 3 == 0) {
                bad = new byte[4 + 1 + random.nextInt(200)];
                random.nextBytes(bad);
                ByteBuffer.wrap(bad).putInt(0, bad.length - 4);
            } else {
                final byte[] valid = validFrames.get(random.nextInt(validFrames.size()));
                bad = valid.clone();
                for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
                    // Keep the size prefix intact: a wrong size is covered above and would only stall the frame.
                    bad[4 + random.nextInt(bad.length - 4)] ^= (byte) (1 + random.nextInt(255));
                }
            }
            switch (afterBadFrame(bad)) {
                case CLOSED -> closed++;
                case STILL_SERVING -> answered++;
            }
        }
        producing.get();
        goodClient.shutdown();

        assertThat(closed + answered).isEqualTo(300);
        assertThat(closed).as("some garbage must have been refused by closing").isPositive();
        assertThat((Long) ManagementFactory.getPlatformMBeanServer()
                        .getAttribute(new ObjectName("io.isthmus:type=Broker"), "ConnectionsClosedForBadInput"))
                .isGreaterThanOrEqualTo(closed);
        assertThat(acked).hasSize(goodRecords);
        assertThat(consumeAll("good", goodRecords)).isEqualTo(acked);
    }

    private enum Outcome {
        CLOSED,
        STILL_SERVING
    }

    /**
     * Sends a bad frame then a valid ApiVersions request on the same connection: the broker must either close
     * the connection or answer the ApiVersions request (after whatever it answered to the bad frame).
     */
    private Outcome afterBadFrame(final byte[] bad) throws Exception {
        final int probeCorrelationId = 424242;
        final byte[] probe = RawKafkaConnection.frame(
                new ApiVersionsRequest(new ApiVersionsRequestData(), (short) 3),
                new RequestHeader(ApiKeys.API_VERSIONS, (short) 3, "probe", probeCorrelationId));
        try (RawKafkaConnection connection = connect()) {
            connection.send(bad);
            connection.send(probe);
            while (true) {
                final Optional<ByteBuffer> response = connection.receive();
                if (response.isEmpty()) {
                    return Outcome.CLOSED;
                }
                if (response.get().getInt(0) == probeCorrelationId) {
                    return Outcome.STILL_SERVING;
                }
            }
        } catch (final java.net.SocketTimeoutException hung) {
            throw new AssertionError("the broker neither answered nor closed after a bad frame", hung);
        } catch (final java.net.SocketException reset) {
            return Outcome.CLOSED;
        }
    }

    private Set<String> consumeAll(final String topic, final int expected) {
        final Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        final Set<String> values = new HashSet<>();
        final List<String> duplicates = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            final TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (values.size() < expected && System.nanoTime() < deadline) {
                for (final ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    if (!values.add(record.value())) {
                        duplicates.add(record.value());
                    }
                }
            }
        }
        assertThat(duplicates).isEmpty();
        return values;
    }

    @Test
    void shouldAnswerBadTransactionRequestsWithKafkasErrorsAndKeepServing() throws Exception {
        try (RawKafkaConnection connection = connect()) {
            final InitProducerIdResponseData first = initProducerId(connection, "bad-tx", 1);
            final InitProducerIdResponseData current = initProducerId(connection, "bad-tx", 2);
            assertThat(current.producerEpoch()).isEqualTo((short) (first.producerEpoch() + 1));
            final long producerId = current.producerId();
            final short epoch = current.producerEpoch();

            assertThat(endTxn(connection, "never-initialised", 1, (short) 0, 3))
                    .isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING);
            assertThat(endTxn(connection, "bad-tx", producerId, first.producerEpoch(), 4))
                    .as("a stale epoch")
                    .isEqualTo(Errors.PRODUCER_FENCED);
            assertThat(addPartitions(connection, producerId, epoch, List.of(new TopicPartition("no-such-topic", 0)), 5))
                    .containsEntry(new TopicPartition("no-such-topic", 0), Errors.UNKNOWN_TOPIC_OR_PARTITION);
            final List<TopicPartition> tenThousand = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                tenThousand.add(new TopicPartition(TOPIC, i));
            }
            final Map<TopicPartition, Errors> verdicts = addPartitions(connection, producerId, epoch, tenThousand, 6);
            assertThat(verdicts)
                    .hasSize(10_000)
                    .containsEntry(new TopicPartition(TOPIC, 0), Errors.OPERATION_NOT_ATTEMPTED);
            assertThat(verdicts.values())
                    .filteredOn(e -> e == Errors.UNKNOWN_TOPIC_OR_PARTITION)
                    .hasSize(9_999);

            // Transactional data for a partition the transaction never added, and a control batch from a client.
            assertThat(produceError(connection, transactionalBatch(producerId, epoch, false), 7))
                    .isEqualTo(Errors.INVALID_TXN_STATE);
            assertThat(produceError(connection, transactionalBatch(producerId, epoch, true), 8))
                    .isEqualTo(Errors.INVALID_RECORD);
            assertThat(produceError(connection, validBatch(), 9)).isEqualTo(Errors.NONE);
            assertThat(addPartitions(connection, producerId, epoch, List.of(new TopicPartition(TOPIC, 0)), 10))
                    .containsEntry(new TopicPartition(TOPIC, 0), Errors.NONE);
            assertThat(endTxn(connection, "bad-tx", producerId, epoch, 11)).isEqualTo(Errors.NONE);
        }
        final var partition =
                broker.partitions().partition(new TopicPartition(TOPIC, 0)).orElseThrow();
        assertThat(partition.logEndOffset())
                .as("3 records and the commit marker")
                .isEqualTo(4);
        assertThat(partition.lastStableOffset()).isEqualTo(4);
    }

    private static InitProducerIdResponseData initProducerId(
            final RawKafkaConnection connection, final String transactionalId, final int correlationId)
            throws Exception {
        final short version = ApiKeys.INIT_PRODUCER_ID.latestVersion();
        final RequestHeader header = new RequestHeader(ApiKeys.INIT_PRODUCER_ID, version, "bad", correlationId);
        connection.send(RawKafkaConnection.frame(
                new InitProducerIdRequest.Builder(new InitProducerIdRequestData()
                                .setTransactionalId(transactionalId)
                                .setTransactionTimeoutMs(60_000))
                        .build(version),
                header));
        final InitProducerIdResponseData response = ((InitProducerIdResponse) connection.receive(header)).data();
        assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.NONE);
        return response;
    }

    private static Errors endTxn(
            final RawKafkaConnection connection,
            final String transactionalId,
            final long producerId,
            final short epoch,
            final int correlationId)
            throws Exception {
        final short version = 4;
        final RequestHeader header = new RequestHeader(ApiKeys.END_TXN, version, "bad", correlationId);
        connection.send(RawKafkaConnection.frame(
                new EndTxnRequest.Builder(
                                new EndTxnRequestData()
                                        .setTransactionalId(transactionalId)
                                        .setProducerId(producerId)
                                        .setProducerEpoch(epoch)
                                        .setCommitted(true),
                                false)
                        .build(version),
                header));
        return ((EndTxnResponse) connection.receive(header)).error();
    }

    private static Map<TopicPartition, Errors> addPartitions(
            final RawKafkaConnection connection,
            final long producerId,
            final short epoch,
            final List<TopicPartition> partitions,
            final int correlationId)
            throws Exception {
        final short version = 3;
        final RequestHeader header = new RequestHeader(ApiKeys.ADD_PARTITIONS_TO_TXN, version, "bad", correlationId);
        connection.send(RawKafkaConnection.frame(
                AddPartitionsToTxnRequest.Builder.forClient("bad-tx", producerId, epoch, partitions)
                        .build(version),
                header));
        return ((AddPartitionsToTxnResponse) connection.receive(header))
                .errors()
                .get(AddPartitionsToTxnResponse.V3_AND_BELOW_TXN_ID);
    }

    /** A transactional data batch, or with {@code control} a COMMIT marker as only a coordinator may write it. */
    private static ByteBuffer transactionalBatch(final long producerId, final short epoch, final boolean control) {
        if (control) {
            return MemoryRecords.withEndTransactionMarker(
                            0L, 1L, -1, producerId, epoch, new EndTransactionMarker(ControlRecordType.COMMIT, 0))
                    .buffer();
        }
        return MemoryRecords.withTransactionalRecords(
                        Compression.NONE,
                        producerId,
                        epoch,
                        0,
                        new SimpleRecord("k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8)))
                .buffer();
    }

    private RawKafkaConnection connect() throws Exception {
        return new RawKafkaConnection(host, port);
    }

    private Errors produceError(final RawKafkaConnection connection, final ByteBuffer batch, final int correlationId)
            throws Exception {
        final RequestHeader header = new RequestHeader(ApiKeys.PRODUCE, PRODUCE_VERSION, "bad", correlationId);
        connection.send(RawKafkaConnection.frame(produce(batch), header));
        final ProduceResponse response = (ProduceResponse) connection.receive(header);
        return Errors.forCode(response.data()
                .responses()
                .iterator()
                .next()
                .partitionResponses()
                .getFirst()
                .errorCode());
    }

    private static ProduceRequest produce(final ByteBuffer batch) {
        final ProduceRequestData data =
                new ProduceRequestData().setAcks((short) -1).setTimeoutMs(5000);
        final ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName(TOPIC);
        topic.partitionData()
                .add(new ProduceRequestData.PartitionProduceData()
                        .setIndex(0)
                        .setRecords(MemoryRecords.readableRecords(batch.duplicate())));
        data.topicData().add(topic);
        return new ProduceRequest(data, PRODUCE_VERSION);
    }

    private static ByteBuffer validBatch() {
        final MemoryRecords records = MemoryRecords.withRecords(
                Compression.NONE,
                new SimpleRecord("k1".getBytes(StandardCharsets.UTF_8), "v1".getBytes(StandardCharsets.UTF_8)),
                new SimpleRecord("k2".getBytes(StandardCharsets.UTF_8), "v2".getBytes(StandardCharsets.UTF_8)),
                new SimpleRecord("k3".getBytes(StandardCharsets.UTF_8), "v3".getBytes(StandardCharsets.UTF_8)));
        final ByteBuffer copy = ByteBuffer.allocate(records.sizeInBytes());
        copy.put(records.buffer().duplicate()).flip();
        return copy;
    }

    /** Recomputes the batch CRC-32C over attributes..end, so only the structural fault remains. */
    private static void fixCrc(final ByteBuffer batch) {
        final CRC32C crc = new CRC32C();
        crc.update(batch.duplicate().position(21));
        batch.putInt(17, (int) crc.getValue());
    }
}
