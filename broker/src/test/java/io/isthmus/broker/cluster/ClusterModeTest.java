package io.isthmus.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.Broker;
import io.isthmus.broker.config.BrokerConfig;
import io.isthmus.broker.group.GroupOffsetsLog;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.PartitionLeadership;
import io.isthmus.broker.testkit.Await;
import io.isthmus.broker.testkit.SoftRoceDevice;
import io.isthmus.broker.topic.TopicRegistry;
import io.isthmus.client.consumer.ConsumerBatch;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.client.network.KafkaConnection;
import io.isthmus.client.network.ReceiveBufferPool;
import io.isthmus.client.network.SocketBuffers;
import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.client.security.SecuritySettings;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.PartitionReassignment;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three brokers in one JVM forming one cluster over its metadata quorum (every node broker and voter, unless a test
 * makes some broker-only), driven by the
 * real kafka-clients 4.4: topics spread over the brokers, clients route to each partition's leader, producers that
 * bootstrapped from different brokers never share a producer id, consumer groups find one coordinator, and a broker
 * that leaves hands its partitions back on return with every record.
 */
class ClusterModeTest {
    /** Every port this JVM handed out: never again, bound yet or not. */
    private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private static final int BROKERS = 3;

    @TempDir
    Path dir;

    private final Map<Integer, Broker> brokers = new HashMap<>();
    private final Map<String, String> extra = new HashMap<>();
    private String voters;
    /** The brokers that vote in the metadata quorum; the others are broker-only nodes. */
    private Set<Integer> voterIds = Set.of(1, 2, 3);
    /** How long a broker may take to become active. */
    private Duration activeWithin = Duration.ofSeconds(60);
    /** How long any other awaited condition (leaders, ISRs, grants, replicas alike) may take to come true. */
    private Duration patience = Duration.ofSeconds(30);

    @AfterEach
    void stopAll() throws Exception {
        for (final Broker broker : brokers.values()) {
            broker.close();
        }
    }

    @Test
    void topicsSpreadOverTheBrokersAndKafkaClientsFollowEachPartitionsLeader() throws Exception {
        startCluster();
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("spread", 6, (short) 1)))
                    .all()
                    .get();
            assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("too-many", 2, (short) 4)))
                            .all()
                            .get())
                    .hasCauseInstanceOf(InvalidReplicationFactorException.class);
            final TopicDescription spread = awaitLeaders(admin, "spread");
            final Set<Integer> leaders =
                    spread.partitions().stream().map(p -> p.leader().id()).collect(Collectors.toSet());
            assertThat(leaders).containsExactlyInAnyOrder(1, 2, 3);
            assertThat(spread.partitions())
                    .allSatisfy(p -> assertThat(p.replicas()).hasSize(1));
            assertThat(admin.describeCluster().nodes().get()).hasSize(BROKERS);

            // Each broker holds and serves the partitions it leads, and sends clients to the leader for the rest (once
            // each has applied the topic: its hosting runs on a thread of its own).
            awaitCondition(
                    () -> spread.partitions().stream().allMatch(p -> brokers.entrySet().stream()
                            .allMatch(b -> b.getValue()
                                            .cluster()
                                            .orElseThrow()
                                            .image()
                                            .topic("spread")
                                            .isPresent()
                                    && b.getValue()
                                                    .partitions()
                                                    .partition(new TopicPartition("spread", p.partition()))
                                                    .isPresent()
                                            == (b.getKey() == p.leader().id()))),
                    "every broker holds exactly the partitions of 'spread' it leads");
            for (final TopicPartitionInfo p : spread.partitions()) {
                final TopicPartition tp = new TopicPartition("spread", p.partition());
                for (final Map.Entry<Integer, Broker> b : brokers.entrySet()) {
                    final PartitionLeadership leadership =
                            b.getValue().cluster().orElseThrow().leadership();
                    final Optional<Partition> local = b.getValue().partitions().partition(tp);
                    if (b.getKey() == p.leader().id()) {
                        assertThat(local).isPresent();
                        assertThat(leadership.check(local.get(), -1)).isEqualTo(Errors.NONE);
                        assertThat(leadership.check(local.get(), 1_000)).isEqualTo(Errors.UNKNOWN_LEADER_EPOCH);
                    } else {
                        assertThat(local).isEmpty();
                        assertThat(leadership.heldElsewhere(tp)).isTrue();
                    }
                }
            }
        }

        // Two idempotent producers, each bootstrapped from another broker, write every partition at once: a shared
        // producer id would break their sequences and fail the sends.
        final Map<TopicPartition, List<String>> sent = new HashMap<>();
        final List<Future<RecordMetadata>> acks = new ArrayList<>();
        final List<String> values = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> first = producer(bootstrap(1));
                KafkaProducer<byte[], byte[]> second = producer(bootstrap(2))) {
            for (int i = 0; i < 3_000; i++) {
                final String value = "record-" + i;
                values.add(value);
                final KafkaProducer<byte[], byte[]> producer = i % 2 == 0 ? first : second;
                acks.add(producer.send(
                        new ProducerRecord<>("spread", i % 6, null, value.getBytes(StandardCharsets.UTF_8))));
            }
            first.flush();
            second.flush();
        }
        for (int i = 0; i < acks.size(); i++) {
            final RecordMetadata ack = acks.get(i).get();
            sent.computeIfAbsent(new TopicPartition(ack.topic(), ack.partition()), k -> new ArrayList<>())
                    .add(values.get(i));
        }

        // A consumer group, bootstrapped from the third broker, reads everything once.
        final Map<TopicPartition, List<String>> received = consumeAll("readers", "spread", bootstrap(3), 3_000);
        for (final Map.Entry<TopicPartition, List<String>> partition : sent.entrySet()) {
            assertThat(received.get(partition.getKey()))
                    .as("partition %s", partition.getKey())
                    .containsExactlyInAnyOrderElementsOf(partition.getValue());
        }
        assertThat(received.values().stream().mapToInt(List::size).sum()).isEqualTo(3_000);

        // Deleting the topic through any broker removes every broker's partitions of it.
        try (Admin admin = admin()) {
            admin.deleteTopics(List.of("spread")).all().get();
        }
        for (final Broker broker : brokers.values()) {
            awaitCondition(
                    () -> broker.partitions().topics().byName("spread").isEmpty()
                            && broker.partitions().partitions().stream()
                                    .noneMatch(p -> p.topicPartition().topic().equals("spread")),
                    "broker " + broker.config().nodeId() + " drops the deleted topic and its partitions");
        }
    }

    @Test
    void aBrokerThatLeavesTakesItsPartitionsOfflineAndBringsThemBackWithEveryRecord() throws Exception {
        startCluster();
        final TopicDescription before;
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("comeback", 3, (short) 1)))
                    .all()
                    .get();
            before = awaitLeaders(admin, "comeback");
            // Forty more topics: a log the returning broker's voter replays for a while before it has caught up,
            // during which its partitions must not follow the half-replayed metadata (which lacks them).
            final List<NewTopic> more = new ArrayList<>();
            for (int t = 0; t < 40; t++) {
                more.add(new NewTopic("later-" + t, 1, (short) 1));
            }
            admin.createTopics(more).all().get();
        }
        try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap(1))) {
            for (int i = 0; i < 300; i++) {
                producer.send(new ProducerRecord<>("comeback", i % 3, null, ("v" + i).getBytes(StandardCharsets.UTF_8)))
                        .get();
            }
        }
        final int leaving = before.partitions().getFirst().leader().id();
        brokers.remove(leaving).close();
        final int survivor = leaving == 1 ? 2 : 1;
        final TopicPartition orphan = new TopicPartition("comeback", 0);
        awaitCondition(
                () -> brokers.get(survivor)
                                .cluster()
                                .orElseThrow()
                                .image()
                                .topic("comeback")
                                .orElseThrow()
                                .partition(0)
                                .leader()
                        == -1,
                "partition 0 loses its leader when broker " + leaving + " shuts down");
        for (final Broker broker : brokers.values()) {
            assertThat(broker.partitions().partition(orphan)).isEmpty();
            assertThat(broker.cluster().orElseThrow().leadership().heldElsewhere(orphan))
                    .isTrue();
        }

        start(leaving);
        brokers.get(leaving).cluster().orElseThrow().awaitActive(activeWithin);
        awaitCondition(
                () -> brokers.get(leaving)
                                .partitions()
                                .partition(orphan)
                                .map(p -> brokers.get(leaving)
                                        .cluster()
                                        .orElseThrow()
                                        .leadership()
                                        .check(p, -1))
                                .orElse(Errors.UNKNOWN_TOPIC_OR_PARTITION)
                        == Errors.NONE,
                "broker " + leaving + " leads partition 0 again");
        final Map<TopicPartition, List<String>> received =
                consumeAll("after-return", "comeback", bootstrap(survivor), 300);
        assertThat(received.values().stream().mapToInt(List::size).sum()).isEqualTo(300);
        assertThat(received.get(orphan)).hasSize(100);
        final Broker returned = brokers.get(leaving);
        assertThat(returned.partitions().topics().topics().stream()
                        .map(TopicRegistry.TopicInfo::name)
                        .filter(name -> !name.equals(GroupOffsetsLog.TOPIC)))
                .as("the returned broker knows every topic (besides __consumer_offsets, which the group made)")
                .hasSize(41);
    }

    @Test
    void aNodeWhoseRolesDisagreeWithTheVotersOrWithoutAFormattedDirectoryIsRefusedWithTheReason() throws Exception {
        voters = "1@127.0.0.1:" + freePort();
        assertThatThrownBy(() -> Broker.start(config(1, Map.of(BrokerConfig.PROCESS_ROLES, "broker"))))
                .isInstanceOf(org.apache.kafka.common.config.ConfigException.class)
                .hasMessageContaining("no controller role");
        assertThatThrownBy(() -> Broker.start(config(1, Map.of(BrokerConfig.PROCESS_ROLES, "controller"))))
                .isInstanceOf(org.apache.kafka.common.config.ConfigException.class)
                .hasMessageContaining("controller-only");
        assertThatThrownBy(() -> Broker.start(config(2, Map.of(BrokerConfig.PROCESS_ROLES, "broker,controller"))))
                .isInstanceOf(org.apache.kafka.common.config.ConfigException.class)
                .hasMessageContaining("not among controller.quorum.voters");
        assertThatThrownBy(() -> Broker.start(config(
                        1,
                        Map.of(
                                BrokerConfig.AUTHORIZER_CLASS_NAME,
                                io.isthmus.broker.security.AclAuthorizer.CLASS_NAME))))
                .hasMessageContaining("authorizer");
        assertThatThrownBy(() -> Broker.start(config(
                        1,
                        Map.of(
                                BrokerConfig.LISTENERS, "SECURE://127.0.0.1:0",
                                BrokerConfig.LISTENER_SECURITY_PROTOCOL_MAP, "SECURE:SASL_PLAINTEXT"))))
                .hasMessageContaining("PLAINTEXT listener");
        assertThatThrownBy(() -> Broker.start(config(1, Map.of())))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("format");

        // Log directories a single broker wrote: following the cluster's metadata would delete their topics.
        final BrokerConfig node = config(1, Map.of());
        try (Broker single = Broker.startEmbedded(node.logDirs().getFirst(), Map.of())) {
            single.partitions().createTopic("kept", 1);
        }
        Broker.format(node);
        assertThatThrownBy(() -> Broker.start(node))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("single broker");
        try (Broker single = Broker.startEmbedded(node.logDirs().getFirst(), Map.of())) {
            assertThat(single.partitions().topics().byName("kept")).isPresent();
        }
    }

    @Test
    void aReplicatedTopicKeepsEveryAcknowledgedRecordOnEveryInSyncReplicaWhileItsLeaderLeavesAndReturns()
            throws Exception {
        startReplicatedCluster(2, "replicated", 3);
        final List<String> values = new ArrayList<>();
        final Map<TopicPartition, List<String>> sent = new HashMap<>();
        produce(bootstrap(1), "replicated", 0, 1_500, values, sent);
        assertReplicasIdentical("replicated", 3);

        // The leader of partition 0 shuts down; writes go on with two in-sync replicas (min.insync.replicas=2).
        final int leaving = leaderOf("replicated", 0);
        brokers.remove(leaving).close();
        final int survivor = brokers.keySet().iterator().next();
        produce(bootstrap(survivor), "replicated", 1_500, 3_000, values, sent);
        try (Admin admin = admin()) {
            awaitIsr(admin, "replicated", 2);
        }

        // Back, it truncates to its new leaders' history, catches up and rejoins every ISR.
        start(leaving);
        brokers.get(leaving).cluster().orElseThrow().awaitActive(activeWithin);
        try (Admin admin = admin()) {
            awaitIsr(admin, "replicated", 3);
        }
        produce(bootstrap(leaving), "replicated", 3_000, 3_600, values, sent);
        assertReplicasIdentical("replicated", 3);

        // The isthmus consumer reads every partition, whichever broker leads it.
        try (IsthmusConsumer consumer = new IsthmusConsumer(Map.of("bootstrap.servers", bootstrap(survivor)))) {
            final List<TopicPartition> partitions = List.of(
                    new TopicPartition("replicated", 0),
                    new TopicPartition("replicated", 1),
                    new TopicPartition("replicated", 2));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            int read = 0;
            final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (read < 3_600 && System.nanoTime() < deadline) {
                try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(500))) {
                    while (batch.next()) {
                        read++;
                    }
                }
            }
            assertThat(read).as("records the isthmus consumer read").isEqualTo(3_600);
        }
        final Map<TopicPartition, List<String>> received =
                consumeAll("replicated-readers", "replicated", bootstrap(survivor), 3_600);
        for (final Map.Entry<TopicPartition, List<String>> partition : sent.entrySet()) {
            assertThat(received.get(partition.getKey()))
                    .as("partition %s: every acknowledged record once, in order", partition.getKey())
                    .containsExactlyElementsOf(partition.getValue());
        }
    }

    @Test
    void sharedMemoryIsGrantedByEachPartitionsLeaderOnlyAndTakenBackWhenItsLeadershipMoves() throws Exception {
        replicateWith(2);
        startCluster();
        final TopicPartition tp = createLedByBrokerOne("shm-orders");
        final String everyBroker = String.join(",", bootstrap(1), bootstrap(2), bootstrap(3));
        // What each reader must see, in log order: read_uncommitted every record, read_committed no aborted one.
        final List<String> everyRecord = java.util.Collections.synchronizedList(new ArrayList<>());
        final List<String> committedRecords = java.util.Collections.synchronizedList(new ArrayList<>());
        final List<Exception> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        final List<String> read = new ArrayList<>();
        final List<String> readCommitted = new ArrayList<>();
        try (IsthmusProducer producer = new IsthmusProducer(
                        Map.of("bootstrap.servers", everyBroker, "transport", "shm", "linger.ms", "1"));
                KafkaProducer<byte[], byte[]> transactions = transactionalProducer(everyBroker, "shm-orders-tx");
                IsthmusConsumer consumer =
                        new IsthmusConsumer(Map.of("bootstrap.servers", everyBroker, "transport", "shm"));
                IsthmusConsumer committedConsumer = new IsthmusConsumer(Map.of(
                        "bootstrap.servers", everyBroker, "transport", "shm", "isolation.level", "read_committed"))) {
            assertThat(producer.transport()).isEqualTo(io.isthmus.client.config.Transport.SHM);
            assertThat(consumer.transport()).isEqualTo(io.isthmus.client.config.Transport.SHM);
            assertThat(committedConsumer.transport()).isEqualTo(io.isthmus.client.config.Transport.SHM);
            for (final IsthmusConsumer c : List.of(consumer, committedConsumer)) {
                c.assign(List.of(tp));
                c.seek(tp, 0);
            }
            transactions.initTransactions();

            sendOverShm(producer, 0, 400, everyRecord, committedRecords, failures);
            abortThenCommit(transactions, "first", everyRecord, committedRecords);
            readRecords(consumer, read, everyRecord.size());
            readRecords(committedConsumer, readCommitted, committedRecords.size());
            assertThat(leaderOf("shm-orders", 0)).isEqualTo(1);
            assertGrantsHeldBy(1);

            // The leader leaves: its successor grants, the clients follow without an error.
            brokers.remove(1).close();
            sendOverShm(producer, 400, 800, everyRecord, committedRecords, failures);
            abortThenCommit(transactions, "second", everyRecord, committedRecords);
            readRecords(consumer, read, everyRecord.size());
            readRecords(committedConsumer, readCommitted, committedRecords.size());
            final int successor = leaderOf("shm-orders", 0);
            assertGrantsHeldBy(successor);

            // Back and in sync, broker 1 is elected again while its predecessor keeps running: the predecessor
            // revokes what it granted (its slots say REVOKED, its doorbells are refused) and the clients move on.
            restartAndElectBrokerOne(tp);
            sendOverShm(producer, 800, 1_200, everyRecord, committedRecords, failures);
            abortThenCommit(transactions, "third", everyRecord, committedRecords);
            readRecords(consumer, read, everyRecord.size());
            readRecords(committedConsumer, readCommitted, committedRecords.size());
            assertGrantsHeldBy(1);
            assertThat(brokers.get(successor).shm().revokedGrants())
                    .as("broker %d took back its grants when it stopped leading", successor)
                    .isGreaterThanOrEqualTo(3);
        }
        assertThat(failures).as("sends that failed").isEmpty();
        assertThat(read)
                .as("every record read once, in order, over shared memory through two leader changes")
                .containsExactlyElementsOf(everyRecord);
        assertThat(readCommitted)
                .as("read_committed over shared memory: every committed record once, in order, no aborted one")
                .containsExactlyElementsOf(committedRecords);
        assertReplicasIdentical("shm-orders", 3);
    }

    /**
     * RDMA on a cluster, on the Soft-RoCE guest's device: only each partition's leader grants read and produce access,
     * readers stop at the high watermark, an {@code acks=all} write is answered only once the in-sync replicas hold
     * it, and a leader that loses the partition takes its grants back while it keeps running. The isthmus producer and
     * consumer, both over RDMA, follow both leader changes without an error.
     */
    @Test
    @org.junit.jupiter.api.Tag("rdma")
    void rdmaAccessIsGrantedByEachPartitionsLeaderOnlyAndTheProducerAndConsumerFollowLeaderChanges() throws Exception {
        replicateWith(2);
        timedForAnEmulatedMachine();
        extra.putAll(Map.of(
                BrokerConfig.RDMA_ENABLED, "true",
                BrokerConfig.RDMA_DEVICE, SoftRoceDevice.name(),
                BrokerConfig.RDMA_GID_INDEX, SoftRoceDevice.gidIndex(),
                BrokerConfig.RDMA_CQ_SIZE, "1024",
                BrokerConfig.RDMA_MAX_CONNECTIONS, "8",
                // Shared memory off, so that transport=auto shows which datapath a cluster gives producers: RDMA.
                BrokerConfig.SHM_ENABLED, "false"));
        // One voter, broker 3, which stays up: the test is about grants following partition leadership, and in the
        // guest a three-voter quorum's own replication is most of what the one emulated vCPU has to do.
        startCluster(Set.of(3));
        final TopicPartition tp = createLedByBrokerOne("rdma-orders");
        for (final Broker broker : brokers.values()) {
            assertThat(broker.rdma().unavailableReason()).isEmpty();
        }
        final Map<String, Object> client = new HashMap<>(Map.of(
                "bootstrap.servers", String.join(",", bootstrap(1), bootstrap(2), bootstrap(3)),
                "rdma.device", SoftRoceDevice.name(),
                "rdma.gid.index", SoftRoceDevice.gidIndex()));
        client.put("transport", "rdma");
        final Map<String, Object> producerSettings = new HashMap<>(client);
        producerSettings.put("transport", "auto");
        producerSettings.put("acks", "all");
        producerSettings.put("linger.ms", "1");
        final List<String> sent = new ArrayList<>();
        final List<String> read = new ArrayList<>();
        try (IsthmusProducer producer = new IsthmusProducer(producerSettings);
                IsthmusConsumer consumer = new IsthmusConsumer(client)) {
            assertThat(producer.transport()).isEqualTo(io.isthmus.client.config.Transport.RDMA);
            assertThat(consumer.transport()).isEqualTo(io.isthmus.client.config.Transport.RDMA);
            consumer.assign(List.of(tp));
            consumer.seek(tp, 0);

            sendOverRdma(producer, 1, "rdma-orders", 0, 100, sent);
            readRecords(consumer, read, sent.size());
            assertThat(leaderOf("rdma-orders", 0)).isEqualTo(1);

            // The leader leaves: the producer and the consumer find its successor and go on over RDMA.
            brokers.remove(1).close();
            awaitCondition(
                    () -> brokers.containsKey(leaderOf("rdma-orders", 0)), "a running broker leads rdma-orders-0");
            final int successor = leaderOf("rdma-orders", 0);
            sendOverRdma(producer, successor, "rdma-orders", 100, 200, sent);
            readRecords(consumer, read, sent.size());

            // Broker 1 returns and is elected again while its predecessor runs on: the predecessor revokes.
            restartAndElectBrokerOne(tp);
            sendOverRdma(producer, 1, "rdma-orders", 200, 300, sent);
            readRecords(consumer, read, sent.size());
            assertThat(producer.transport()).isEqualTo(io.isthmus.client.config.Transport.RDMA);
            assertThat(consumer.transport()).isEqualTo(io.isthmus.client.config.Transport.RDMA);
            final io.isthmus.broker.rdma.RdmaDatapath predecessor =
                    brokers.get(successor).rdma().datapath().orElseThrow();
            assertThat(predecessor.revokedProduceGrants())
                    .as("broker %d took back the produce grant when it stopped leading", successor)
                    .isGreaterThanOrEqualTo(1);
            assertThat(predecessor.revokedGrants() - predecessor.revokedProduceGrants())
                    .as("broker %d took back the read grant when it stopped leading", successor)
                    .isGreaterThanOrEqualTo(1);
        }
        assertThat(read)
                .as("every record read once, in order, over RDMA through two leader changes")
                .containsExactlyElementsOf(sent);
        assertReplicasIdentical("rdma-orders", 3);
    }

    /**
     * Sends {@code from..to} with {@code acks=all} to partition 0 of {@code topic}, led by {@code leader}, and waits for
     * every acknowledgement; checks that each came only once {@code min.insync.replicas} (2) running replicas held its
     * record (counted in the callback, the moment the acknowledgement arrives), and that the batches went over RDMA to
     * the leader.
     */
    private void sendOverRdma(
            final IsthmusProducer producer,
            final int leader,
            final String topic,
            final int from,
            final int to,
            final List<String> sent)
            throws InterruptedException {
        final io.isthmus.broker.rdma.RdmaDatapath datapath =
                brokers.get(leader).rdma().datapath().orElseThrow();
        final long commitsBefore = datapath.commits();
        final TopicPartition tp = new TopicPartition(topic, 0);
        // Push replication: the leader pushes to each running follower once that follower is in line with it.
        final Partition led = brokers.get(leader).partitions().partition(tp).orElseThrow();
        final List<Integer> followers =
                brokers.keySet().stream().filter(id -> id != leader).toList();
        awaitCondition(
                () -> followers.stream().allMatch(f -> brokers.get(leader)
                        .cluster()
                        .orElseThrow()
                        .pushedReplicas()
                        .pushes(f, led)),
                "leader " + leader + " pushes " + tp + " to followers " + followers + " over RDMA");
        final Map<Integer, Long> pushedBefore = new HashMap<>();
        for (final int f : followers) {
            pushedBefore.put(f, brokers.get(f).rdma().datapath().orElseThrow().pushedAppends());
        }
        final List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int i = from; i < to; i++) {
            final String value = topic + "-" + i;
            producer.send(topic, 0, IsthmusProducer.NOW, null, value.getBytes(StandardCharsets.UTF_8), null, (m, e) -> {
                if (e != null) {
                    failures.add(value + ": " + e);
                    return;
                }
                final long holders = brokers.values().stream()
                        .map(b -> b.partitions().partition(tp))
                        .flatMap(Optional::stream)
                        .filter(p -> p.logEndOffset() > m.offset())
                        .count();
                if (holders < 2) {
                    failures.add(value + " at offset " + m.offset() + " acknowledged while " + holders
                            + " replica(s) held it");
                }
            });
            sent.add(value);
        }
        producer.flush();
        assertThat(failures)
                .as("sends that failed or were acknowledged too early")
                .isEmpty();
        assertThat(datapath.commits() - commitsBefore)
                .as("batches written over RDMA to leader %d", leader)
                .isPositive();
        assertThat(datapath.writesAwaitingReplication()).isZero();
        for (final int f : followers) {
            assertThat(brokers.get(f).rdma().datapath().orElseThrow().pushedAppends() - pushedBefore.get(f))
                    .as("writes leader %d pushed into follower %d's replica over RDMA", leader, f)
                    .isPositive();
        }
    }

    /**
     * Partition 0 of a new topic {@code topic} on brokers 1, 2 and 3, all in sync; broker 1, its preferred replica,
     * leads it (and leads it again after a preferred election).
     */
    private TopicPartition createLedByBrokerOne(final String topic) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, Map.of(0, List.of(1, 2, 3)))))
                    .all()
                    .get();
            awaitLeaders(admin, topic);
            awaitIsr(admin, topic, 3);
        }
        return new TopicPartition(topic, 0);
    }

    /** Starts broker 1 again and, once it is back in sync, elects it, {@code tp}'s preferred replica, leader again. */
    private void restartAndElectBrokerOne(final TopicPartition tp) throws Exception {
        start(1);
        brokers.get(1).cluster().orElseThrow().awaitActive(activeWithin);
        try (Admin admin = admin()) {
            awaitIsr(admin, tp.topic(), 3);
            admin.electLeaders(org.apache.kafka.common.ElectionType.PREFERRED, Set.of(tp))
                    .partitions()
                    .get();
        }
        awaitCondition(() -> leaderOf(tp.topic(), tp.partition()) == 1, "broker 1, the preferred replica, leads again");
    }

    /** Five records to partition 0 of shm-orders in an aborted transaction, then five in a committed one. */
    private static void abortThenCommit(
            final KafkaProducer<byte[], byte[]> transactions,
            final String phase,
            final List<String> everyRecord,
            final List<String> committedRecords) {
        for (final boolean abort : new boolean[] {true, false}) {
            transactions.beginTransaction();
            final List<String> values = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                final String value = phase + (abort ? "-aborted-" : "-committed-") + i;
                values.add(value);
                transactions.send(new ProducerRecord<>("shm-orders", 0, null, value.getBytes(StandardCharsets.UTF_8)));
            }
            // Flushed first, so the aborted records are in the log (an abort drops what was not sent yet).
            transactions.flush();
            if (abort) {
                transactions.abortTransaction();
            } else {
                transactions.commitTransaction();
                committedRecords.addAll(values);
            }
            everyRecord.addAll(values);
        }
    }

    /** Sends {@code from..to} to partition 0 of shm-orders and waits for every acknowledgement. */
    private static void sendOverShm(
            final IsthmusProducer producer,
            final int from,
            final int to,
            final List<String> everyRecord,
            final List<String> committedRecords,
            final List<Exception> failures) {
        for (int i = from; i < to; i++) {
            final String value = "shm-" + i;
            producer.send(
                    "shm-orders",
                    0,
                    IsthmusProducer.NOW,
                    null,
                    value.getBytes(StandardCharsets.UTF_8),
                    null,
                    (metadata, exception) -> {
                        if (exception != null) {
                            failures.add(exception);
                        } else {
                            everyRecord.add(value);
                            committedRecords.add(value);
                        }
                    });
        }
        producer.flush();
    }

    /** Polls {@code consumer} until {@code read} holds {@code until} record values (two minutes at most). */
    private static void readRecords(final IsthmusConsumer consumer, final List<String> read, final int until) {
        final long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (read.size() < until && System.nanoTime() < deadline) {
            consumer.poll(
                    record -> read.add(new String(
                            record.segment()
                                    .asSlice(record.valueOffset(), record.valueSize())
                                    .toArray(ValueLayout.JAVA_BYTE),
                            StandardCharsets.UTF_8)),
                    1_000,
                    Duration.ofMillis(100));
        }
        assertThat(read).as("records read").hasSize(until);
    }

    /**
     * Only {@code leader} holds the shared-memory grants (one per reader, one to produce); its followers hold none.
     */
    private void assertGrantsHeldBy(final int leader) throws InterruptedException {
        awaitCondition(
                () -> brokers.entrySet().stream()
                        .allMatch(b -> b.getValue().shm().grantCount() == (b.getKey() == leader ? 2 : 0)
                                && b.getValue().shm().produceGrantCount() == (b.getKey() == leader ? 1 : 0)),
                "broker " + leader + " alone holds the shared-memory grants");
    }

    @Test
    void brokerOnlyNodesFollowAQuorumOfOneVoterAndHoldReplicasLikeVoters() throws Exception {
        replicateWith(2);
        startCluster(Set.of(1));
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(3));
        // Through a broker-only node: it forwards the topic to the quorum and answers from the image it was sent.
        try (Admin admin = Admin.create(p)) {
            awaitCondition(
                    () -> {
                        try {
                            return admin.describeCluster().nodes().get().size() == BROKERS;
                        } catch (final Exception notNow) {
                            return false;
                        }
                    },
                    "broker 3's image shows every broker registered and unfenced");
            assertThat(admin.describeCluster().controller().get().id()).isEqualTo(1);
            admin.createTopics(List.of(new NewTopic("observed", 3, (short) 3)))
                    .all()
                    .get();
            final TopicDescription described = awaitLeaders(admin, "observed");
            assertThat(described.partitions().stream().map(info -> info.leader().id()))
                    .as("leaders spread over the voter and the broker-only nodes")
                    .containsExactlyInAnyOrder(1, 2, 3);
            awaitIsr(admin, "observed", 3);
        }
        final List<String> values = new ArrayList<>();
        final Map<TopicPartition, List<String>> sent = new HashMap<>();
        produce(bootstrap(2), "observed", 0, 900, values, sent);
        assertReplicasIdentical("observed", 3);
        final Map<TopicPartition, List<String>> received =
                consumeAll("observed-readers", "observed", bootstrap(3), 900);
        for (final Map.Entry<TopicPartition, List<String>> partition : sent.entrySet()) {
            assertThat(received.get(partition.getKey()))
                    .as("partition %s: every acknowledged record once, in order", partition.getKey())
                    .containsExactlyElementsOf(partition.getValue());
        }
    }

    @Test
    void aPartitionMovesToNewReplicasThroughAlterPartitionReassignmentsAndLosesNothing() throws Exception {
        replicateWith(2);
        startCluster();
        final TopicPartition moving = new TopicPartition("moving", 0);
        final List<String> values = new ArrayList<>();
        final Map<TopicPartition, List<String>> sent = new HashMap<>();
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("moving", Map.of(0, List.of(1, 2)))))
                    .all()
                    .get();
            awaitLeaders(admin, "moving");
            awaitIsr(admin, "moving", 2);
            produce(bootstrap(2), "moving", 0, 500, values, sent);

            // Broker 3 is down: the move to [2, 3] starts and stays in progress, 3 added and 1 leaving.
            brokers.remove(3).close();
            admin.alterPartitionReassignments(Map.of(moving, Optional.of(new NewPartitionReassignment(List.of(2, 3)))))
                    .all()
                    .get();
            // Listed by whichever broker answers, from its image: waited for, since it may trail the quorum by a
            // moment.
            final java.util.concurrent.atomic.AtomicReference<PartitionReassignment> ongoing =
                    new java.util.concurrent.atomic.AtomicReference<>();
            awaitCondition(
                    () -> {
                        ongoing.set(reassignments(admin).get(moving));
                        return ongoing.get() != null;
                    },
                    "the move is listed as in progress");
            assertThat(ongoing.get().addingReplicas()).containsExactly(3);
            assertThat(ongoing.get().removingReplicas()).containsExactly(1);
            produce(bootstrap(2), "moving", 500, 700, values, sent);

            // Back, broker 3 catches up, joins the ISR, and the move completes: broker 1 leaves the partition.
            start(3);
            brokers.get(3).cluster().orElseThrow().awaitActive(activeWithin);
            awaitCondition(
                    () -> replicasOf(admin, "moving").equals(List.of(2, 3))
                            && reassignments(admin).isEmpty(),
                    "the move completes: replicas 2 and 3, nothing in progress");
            awaitCondition(
                    () -> brokers.get(1).partitions().partition(moving).isEmpty(),
                    "broker 1 no longer holds a replica");

            // The preferred leader (the first replica) is elected if it does not lead already.
            admin.electLeaders(org.apache.kafka.common.ElectionType.PREFERRED, java.util.Set.of(moving))
                    .partitions()
                    .get();
            awaitCondition(() -> leaderOf("moving", 0) == 2, "broker 2, the preferred replica, leads");
        }
        produce(bootstrap(3), "moving", 700, 900, values, sent);
        assertReplicasIdentical("moving", 2);
        assertThat(consumeAll("moving-readers", "moving", bootstrap(1), 900).get(moving))
                .as("every acknowledged record once, in order, through the move")
                .containsExactlyElementsOf(sent.get(moving));
    }

    @Test
    void followersDropTheSegmentsTheirLeaderNoLongerHolds() throws Exception {
        startReplicatedCluster(2, "trimmed", 1);
        // About 3 MiB in 1 MiB segments.
        final byte[] value = new byte[1000];
        try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap(1))) {
            for (int i = 0; i < 3_000; i++) {
                producer.send(new ProducerRecord<>("trimmed", 0, null, value));
            }
            producer.flush();
        }
        final TopicPartition tp = new TopicPartition("trimmed", 0);
        final Partition leader =
                brokers.get(leaderOf("trimmed", 0)).partitions().partition(tp).orElseThrow();
        awaitCondition(() -> leader.highWatermark() == leader.logEndOffset(), "every record committed");
        // What the transaction state log's compaction does on its leader: the segments before an offset go.
        assertThat(leader.log().deleteSegmentsBelow(leader.highWatermark())).isPositive();
        final long leaderStart = leader.logStartOffset();
        try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap(1))) {
            producer.send(new ProducerRecord<>("trimmed", 0, null, value)).get();
        }
        awaitCondition(
                () -> brokers.values().stream()
                        .map(b -> b.partitions().partition(tp).orElseThrow().logStartOffset())
                        .allMatch(start -> start == leaderStart),
                "every replica starts at the leader's log start " + leaderStart);
    }

    @Test
    void acksAllIsRefusedWithNotEnoughReplicasWhileTheIsrIsBelowItsMinimum() throws Exception {
        startReplicatedCluster(3, "strict", 1);
        final List<String> values = new ArrayList<>();
        final Map<TopicPartition, List<String>> sent = new HashMap<>();
        produce(bootstrap(1), "strict", 0, 100, values, sent);
        final int leader = leaderOf("strict", 0);
        final int follower =
                brokers.keySet().stream().filter(id -> id != leader).findFirst().orElseThrow();
        brokers.remove(follower).close();
        try (Admin admin = admin()) {
            awaitIsr(admin, "strict", 2);
        }
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(leader));
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "3000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        // NOT_ENOUGH_REPLICAS is retriable: without retries the producer reports it instead of a later timeout.
        p.put(ProducerConfig.RETRIES_CONFIG, "0");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            final Future<RecordMetadata> refused =
                    producer.send(new ProducerRecord<>("strict", 0, null, "refused".getBytes(StandardCharsets.UTF_8)));
            assertThatThrownBy(refused::get)
                    .hasCauseInstanceOf(org.apache.kafka.common.errors.NotEnoughReplicasException.class);
        }
        // Over shared memory likewise: the producer's acks travel with its grant.
        assertThat(sendOverShmWithAcks(bootstrap(leader), "all", "refused-over-shm"))
                .isInstanceOf(org.apache.kafka.common.errors.TimeoutException.class)
                .hasCauseInstanceOf(org.apache.kafka.common.errors.NotEnoughReplicasException.class);
        // Nothing of the refused writes is in the log; what was acknowledged is.
        final Partition local = brokers.get(leader)
                .partitions()
                .partition(new TopicPartition("strict", 0))
                .orElseThrow();
        assertThat(local.logEndOffset()).isEqualTo(100);
        // acks=1 over shared memory is the leader's alone to answer, as over TCP.
        assertThat(sendOverShmWithAcks(bootstrap(leader), "1", "one-ack-over-shm"))
                .isNull();
        assertThat(local.logEndOffset()).isEqualTo(101);
        sent.get(new TopicPartition("strict", 0)).add("one-ack-over-shm");
        // Read without a group: the broker shut down may be the group's coordinator, which a group would wait for.
        assertThat(readPartition(bootstrap(leader), new TopicPartition("strict", 0), 101))
                .containsExactlyElementsOf(sent.get(new TopicPartition("strict", 0)));
    }

    /** Sends {@code value} to partition 0 of "strict" over shared memory with {@code acks}, no retry: the error, or null. */
    private static Exception sendOverShmWithAcks(final String bootstrap, final String acks, final String value) {
        final java.util.concurrent.CompletableFuture<Exception> outcome =
                new java.util.concurrent.CompletableFuture<>();
        try (IsthmusProducer producer = new IsthmusProducer(Map.of(
                "bootstrap.servers",
                bootstrap,
                "transport",
                "shm",
                "acks",
                acks,
                "enable.idempotence",
                "false",
                "retries",
                "0",
                "linger.ms",
                "0"))) {
            producer.send(
                    "strict",
                    0,
                    IsthmusProducer.NOW,
                    null,
                    value.getBytes(StandardCharsets.UTF_8),
                    null,
                    (metadata, exception) -> outcome.complete(exception));
            producer.flush();
        }
        return outcome.join();
    }

    @Test
    void transactionsCommitAndAbortAcrossBrokersAndOutliveTheirCoordinatorLeaving() throws Exception {
        extra.put(BrokerConfig.TRANSACTION_STATE_LOG_NUM_PARTITIONS, "3");
        startReplicatedCluster(2, "orders", 3);
        final Map<TopicPartition, List<String>> committed = new HashMap<>();
        int aborted = 0;
        try (KafkaProducer<byte[], byte[]> producer = transactionalProducer(bootstrap(1), "order-writer")) {
            producer.initTransactions();
            for (int t = 0; t < 6; t++) {
                aborted += transaction(producer, "before-" + t, t % 3 == 2, committed);
            }
            // A transaction is open, with records in every partition, when its coordinator leaves.
            producer.beginTransaction();
            final List<String> open = sendTransactional(producer, "open", 30);
            producer.flush();
            final int coordinator = coordinatorOf("order-writer");
            brokers.remove(coordinator).close();
            producer.commitTransaction();
            record(open, 3, committed);
            assertThat(coordinatorOf("order-writer"))
                    .as("the transaction state partition's new leader coordinates the id")
                    .isNotEqualTo(coordinator);
            for (int t = 0; t < 6; t++) {
                aborted += transaction(producer, "after-" + t, t % 3 == 2, committed);
            }

            // Back, the old coordinator's broker follows the new one's log, markers included, byte for byte.
            start(coordinator);
            brokers.get(coordinator).cluster().orElseThrow().awaitActive(activeWithin);
            try (Admin admin = admin()) {
                awaitIsr(admin, "orders", 3);
            }
        }
        assertReplicasIdentical("orders", 3);
        assertReplicasIdentical("__transaction_state", 3);

        final int committedCount =
                committed.values().stream().mapToInt(List::size).sum();
        final Map<TopicPartition, List<String>> readCommitted =
                consumeAll("committed-readers", "orders", bootstrap(1), committedCount, "read_committed");
        for (final Map.Entry<TopicPartition, List<String>> partition : committed.entrySet()) {
            assertThat(readCommitted.get(partition.getKey()))
                    .as(
                            "partition %s under read_committed: every committed record once, in order, no aborted one",
                            partition.getKey())
                    .containsExactlyElementsOf(partition.getValue());
        }
        final Map<TopicPartition, List<String>> readUncommitted =
                consumeAll("uncommitted-readers", "orders", bootstrap(1), committedCount + aborted, "read_uncommitted");
        assertThat(readUncommitted.values().stream().mapToInt(List::size).sum())
                .as("read_uncommitted also sees the aborted records")
                .isEqualTo(committedCount + aborted);
    }

    @Test
    void theIsthmusTransactionalProducerCommitsThroughItsCoordinatorAndALeaderLeaving() throws Exception {
        extra.put(BrokerConfig.TRANSACTION_STATE_LOG_NUM_PARTITIONS, "3");
        startReplicatedCluster(2, "orders", 3);
        final Map<TopicPartition, List<String>> committed = new HashMap<>();
        final String bootstrap = bootstrap(1) + "," + bootstrap(2) + "," + bootstrap(3);
        try (IsthmusProducer producer = new IsthmusProducer(
                Map.of("bootstrap.servers", bootstrap, "transactional.id", "isthmus-writer", "transport", "tcp"))) {
            producer.initTransactions();
            for (int t = 0; t < 4; t++) {
                isthmusTransaction(producer, "before-" + t, committed);
            }
            final int coordinator = coordinatorOf("isthmus-writer");
            producer.beginTransaction();
            final List<String> open = sendIsthmus(producer, "open");
            producer.flush();
            brokers.remove(coordinator).close();
            producer.commitTransaction();
            record(open, 3, committed);
            for (int t = 0; t < 4; t++) {
                isthmusTransaction(producer, "after-" + t, committed);
            }
            // Back (a consumer group whose coordinator is down waits for it), before the reads.
            start(coordinator);
            brokers.get(coordinator).cluster().orElseThrow().awaitActive(activeWithin);
        }
        final int committedCount =
                committed.values().stream().mapToInt(List::size).sum();
        final Map<TopicPartition, List<String>> readCommitted =
                consumeAll("isthmus-committed", "orders", bootstrap(1), committedCount, "read_committed");
        for (final Map.Entry<TopicPartition, List<String>> partition : committed.entrySet()) {
            assertThat(readCommitted.get(partition.getKey()))
                    .as("partition %s under read_committed", partition.getKey())
                    .containsExactlyElementsOf(partition.getValue());
        }
    }

    @Test
    void aLeaderRefusesATransactionalBatchItsCoordinatorHasNoOpenTransactionFor() throws Exception {
        extra.put(BrokerConfig.TRANSACTION_STATE_LOG_NUM_PARTITIONS, "3");
        startReplicatedCluster(2, "orders", 3);
        final Map<TopicPartition, List<String>> committed = new HashMap<>();
        try (IsthmusProducer producer = new IsthmusProducer(
                Map.of("bootstrap.servers", bootstrap(1), "transactional.id", "late-writer", "transport", "tcp"))) {
            producer.initTransactions();
            isthmusTransaction(producer, "first", committed);

            // A batch of the producer's, delayed past the end of its transaction (a retry, say), reaches the leader.
            final int leader = leaderOf("orders", 0);
            final Partition partition = brokers.get(leader)
                    .partitions()
                    .partition(new TopicPartition("orders", 0))
                    .orElseThrow();
            final long end = partition.logEndOffset();
            final MemorySegment late = io.isthmus.broker.testkit.TransactionalBatches.transactional(
                    producer.producerId(), producer.producerEpoch(), 10, 1);
            final ProduceRequestData request = new ProduceRequestData()
                    .setTransactionalId("late-writer")
                    .setAcks((short) -1)
                    .setTimeoutMs(10_000);
            final ProduceRequestData.TopicProduceData topic =
                    new ProduceRequestData.TopicProduceData().setName("orders");
            topic.partitionData()
                    .add(new ProduceRequestData.PartitionProduceData()
                            .setIndex(0)
                            .setRecords(MemoryRecords.readableRecords(
                                    java.nio.ByteBuffer.wrap(late.toArray(ValueLayout.JAVA_BYTE)))));
            request.topicData().add(topic);
            final String[] hostPort = bootstrap(leader).split(":");
            try (ReceiveBufferPool buffers = new ReceiveBufferPool(1 << 16);
                    KafkaConnection connection = KafkaConnection.open(
                            new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])),
                            "late-batch",
                            buffers,
                            Duration.ofSeconds(5),
                            SecuritySettings.PLAINTEXT,
                            SocketBuffers.DEFAULT)) {
                final ProduceResponseData response = (ProduceResponseData)
                        connection.request(ApiKeys.PRODUCE, request, (short) 11, Duration.ofSeconds(15));
                assertThat(Errors.forCode(response.responses()
                                .iterator()
                                .next()
                                .partitionResponses()
                                .getFirst()
                                .errorCode()))
                        .as("a batch outside an open transaction of its producer")
                        .isEqualTo(Errors.INVALID_TXN_STATE);
            }
            assertThat(partition.logEndOffset()).as("nothing appended").isEqualTo(end);
            assertThat(partition.lastStableOffset())
                    .as("no transaction left open to hold read_committed back")
                    .isEqualTo(end);

            // The producer's own next transaction goes in as usual.
            isthmusTransaction(producer, "second", committed);
        }
        final int committedCount =
                committed.values().stream().mapToInt(List::size).sum();
        final Map<TopicPartition, List<String>> readCommitted =
                consumeAll("late-readers", "orders", bootstrap(1), committedCount, "read_committed");
        for (final Map.Entry<TopicPartition, List<String>> partition : committed.entrySet()) {
            assertThat(readCommitted.get(partition.getKey()))
                    .as("partition %s under read_committed", partition.getKey())
                    .containsExactlyElementsOf(partition.getValue());
        }
    }

    @Test
    void aConsumeTransformProduceLoopCommitsItsOffsetsWithItsTransactionsThroughItsGroupCoordinatorLeaving()
            throws Exception {
        extra.put(BrokerConfig.TRANSACTION_STATE_LOG_NUM_PARTITIONS, "3");
        startReplicatedCluster(2, "orders", 3);
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("shipments", 3, (short) 3)))
                    .all()
                    .get();
            awaitLeaders(admin, "shipments");
        }
        final List<String> input = new ArrayList<>();
        produce(bootstrap(1), "orders", 0, 90, input, new HashMap<>());
        final String group = "transformers";
        final String everyBroker = bootstrap(1) + "," + bootstrap(2) + "," + bootstrap(3);
        final List<String> transformed = new ArrayList<>();
        int left = -1;
        int generationWhenItLeft = -1;
        int generationAtTheEnd = -1;
        String memberWhenItLeft = null;
        String memberAtTheEnd = null;
        final List<CommitFailedException> rebalances = new ArrayList<>();
        final Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, everyBroker);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10");
        try (KafkaProducer<byte[], byte[]> producer = transactionalProducer(everyBroker, "transformer");
                KafkaConsumer<byte[], byte[]> consumer =
                        new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            producer.initTransactions();
            consumer.subscribe(List.of("orders"));
            int round = 0;
            final long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (transformed.size() < input.size() && System.nanoTime() < deadline) {
                final var polled = consumer.poll(Duration.ofMillis(200));
                if (polled.isEmpty()) {
                    continue;
                }
                final Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
                final List<String> batch = new ArrayList<>();
                producer.beginTransaction();
                for (final ConsumerRecord<byte[], byte[]> record : polled) {
                    final String shipped = new String(record.value(), StandardCharsets.UTF_8).toUpperCase();
                    producer.send(new ProducerRecord<>(
                            "shipments", record.partition(), null, shipped.getBytes(StandardCharsets.UTF_8)));
                    batch.add(shipped);
                    next.put(
                            new TopicPartition(record.topic(), record.partition()),
                            new OffsetAndMetadata(record.offset() + 1));
                }
                try {
                    producer.sendOffsetsToTransaction(next, consumer.groupMetadata());
                    if (round++ == 1) {
                        // Aborted: its output vanishes, its offsets are never the group's, and the loop reads again
                        // from the committed ones.
                        producer.abortTransaction();
                        rewind(consumer, next.keySet());
                        continue;
                    }
                    if (left < 0 && transformed.size() >= 30) {
                        // The group's coordinator leaves while this transaction's offsets wait in its partition of
                        // __consumer_offsets: the partition's next leader finds them in the log, and the marker the
                        // transaction's coordinator writes there makes them the group's.
                        left = leaderOfKey(GroupOffsetsLog.TOPIC, group);
                        generationWhenItLeft = consumer.groupMetadata().generationId();
                        memberWhenItLeft = consumer.groupMetadata().memberId();
                        brokers.remove(left).close();
                    }
                    producer.commitTransaction();
                    transformed.addAll(batch);
                } catch (final CommitFailedException rebalanced) {
                    // The group's membership changed under the transaction. Kafka's exactly-once loop aborts and reads
                    // again from the committed offsets, as for any rebalance.
                    rebalances.add(rebalanced);
                    producer.abortTransaction();
                    rewind(consumer, next.keySet());
                }
            }
            generationAtTheEnd = consumer.groupMetadata().generationId();
            memberAtTheEnd = consumer.groupMetadata().memberId();
        }
        assertThat(left).as("the group coordinator left mid-transaction").isPositive();
        assertThat(rebalances)
                .as("the new coordinator restored the group from its membership: no transaction failed on a rebalance")
                .isEmpty();
        assertThat(memberAtTheEnd)
                .as("the consumer's member id after its coordinator left (a rejoin would have given it a new one)")
                .isEqualTo(memberWhenItLeft);
        assertThat(generationAtTheEnd)
                .as("the group's generation after its coordinator left")
                .isEqualTo(generationWhenItLeft);
        final List<String> expected = input.stream().map(String::toUpperCase).toList();
        assertThat(transformed)
                .as("each input record transformed in one committed transaction")
                .hasSameSizeAs(input);
        final List<String> shipped =
                readCommitted(bootstrap(brokers.keySet().iterator().next()), "shipments", 3, expected.size());
        assertThat(shipped).as("the output, read_committed").containsExactlyInAnyOrderElementsOf(expected);
        try (Admin admin = admin()) {
            final Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get();
            assertThat(committed.values().stream()
                            .mapToLong(OffsetAndMetadata::offset)
                            .sum())
                    .as("the group's committed offsets: the end of each input partition, from the new coordinator")
                    .isEqualTo(input.size());
        }
        start(left);
        brokers.get(left).cluster().orElseThrow().awaitActive(activeWithin);
        assertReplicasIdentical(GroupOffsetsLog.TOPIC, 3);
    }

    /**
     * The first {@code count} records of the topic's partitions under read_committed, read by a consumer assigned to
     * them (no group, so no rebalance of a group of readers bears on what is read).
     */
    private static List<String> readCommitted(
            final String bootstrap, final String topic, final int partitions, final int count) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        final List<TopicPartition> assigned = new ArrayList<>();
        for (int partition = 0; partition < partitions; partition++) {
            assigned.add(new TopicPartition(topic, partition));
        }
        final List<String> read = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(assigned);
            consumer.seekToBeginning(assigned);
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (read.size() < count && System.nanoTime() < deadline) {
                for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    read.add(new String(r.value(), StandardCharsets.UTF_8));
                }
            }
            // Anything past the count would be a duplicate: one more poll to see it.
            consumer.poll(Duration.ofMillis(500)).forEach(r -> read.add(new String(r.value(), StandardCharsets.UTF_8)));
        }
        return read;
    }

    /** Seeks the assigned ones of {@code partitions} back to the group's committed offsets (stable ones only). */
    private static void rewind(final KafkaConsumer<byte[], byte[]> consumer, final Set<TopicPartition> partitions) {
        final Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(partitions);
        for (final TopicPartition partition : partitions) {
            if (consumer.assignment().contains(partition)) {
                final OffsetAndMetadata offset = committed.get(partition);
                consumer.seek(partition, offset == null ? 0 : offset.offset());
            }
        }
    }

    private static void isthmusTransaction(
            final IsthmusProducer producer, final String name, final Map<TopicPartition, List<String>> committed) {
        producer.beginTransaction();
        final List<String> values = sendIsthmus(producer, name);
        producer.commitTransaction();
        record(values, 3, committed);
    }

    private static List<String> sendIsthmus(final IsthmusProducer producer, final String name) {
        final List<String> values = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            final String value = name + "-" + i;
            values.add(value);
            producer.send(
                    "orders",
                    i % 3,
                    System.currentTimeMillis(),
                    null,
                    value.getBytes(StandardCharsets.UTF_8),
                    null,
                    null);
        }
        return values;
    }

    /** Sends 30 records in one transaction and commits or aborts it; returns how many were aborted. */
    private static int transaction(
            final KafkaProducer<byte[], byte[]> producer,
            final String name,
            final boolean abort,
            final Map<TopicPartition, List<String>> committed) {
        producer.beginTransaction();
        final List<String> values = sendTransactional(producer, name, 30);
        if (abort) {
            // Flushed first, so the aborted records are in the log (an abort drops what was not sent yet).
            producer.flush();
            producer.abortTransaction();
            return values.size();
        }
        producer.commitTransaction();
        record(values, 3, committed);
        return 0;
    }

    private static List<String> sendTransactional(
            final KafkaProducer<byte[], byte[]> producer, final String name, final int count) {
        final List<String> values = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            final String value = name + "-" + i;
            values.add(value);
            producer.send(new ProducerRecord<>("orders", i % 3, null, value.getBytes(StandardCharsets.UTF_8)));
        }
        return values;
    }

    /** Files values sent round robin over {@code partitions} partitions under the partition each went to. */
    private static void record(
            final List<String> values, final int partitions, final Map<TopicPartition, List<String>> byPartition) {
        for (int i = 0; i < values.size(); i++) {
            byPartition
                    .computeIfAbsent(new TopicPartition("orders", i % partitions), k -> new ArrayList<>())
                    .add(values.get(i));
        }
    }

    /** The broker whose image names it leader of the transactional id's state partition. */
    private int coordinatorOf(final String transactionalId) {
        return leaderOfKey("__transaction_state", transactionalId);
    }

    /** The leader, as a running broker's image has it, of the partition of the internal topic that {@code key} maps to. */
    private int leaderOfKey(final String topic, final String key) {
        final io.isthmus.metadata.image.TopicImage image = topicImage(topic);
        return image.partition(
                        InternalTopic.partitionFor(key, image.partitions().size()))
                .leader();
    }

    private static KafkaProducer<byte[], byte[]> transactionalProducer(
            final String bootstrap, final String transactionalId) {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /**
     * Timeouts for the Soft-RoCE guest, where three brokers share one emulated vCPU (QEMU TCG, several times slower than
     * the host, slower still on a loaded CI machine). With the host's timings there (election 500 ms, session 3 s) a
     * three-voter quorum's followers answered its leader up to 5 s late: leaders lost office within seconds of winning
     * it, no broker's registration was committed, and startup failed after a minute (CI of 65998c9, and again here under
     * load). Kafka's own defaults are of this order (election 1 s, session 9 s); the test moves leadership by
     * controlled shutdown and preferred election, never by a session running out, so longer timeouts cost it nothing.
     */
    private void timedForAnEmulatedMachine() {
        extra.put(BrokerConfig.BROKER_HEARTBEAT_INTERVAL_MS, "1000");
        extra.put(BrokerConfig.BROKER_SESSION_TIMEOUT_MS, "20000");
        extra.put(BrokerConfig.CONTROLLER_QUORUM_ELECTION_TIMEOUT_MS, "4000");
        extra.put(BrokerConfig.REPLICA_LAG_TIME_MAX_MS, "20000");
        activeWithin = Duration.ofMinutes(3);
        patience = Duration.ofMinutes(2);
    }

    /** Brokers started from now on need {@code minInsyncReplicas} for acks=all; followers 2 s behind leave the ISR. */
    private void replicateWith(final int minInsyncReplicas) {
        extra.put(BrokerConfig.MIN_INSYNC_REPLICAS, Integer.toString(minInsyncReplicas));
        extra.put(BrokerConfig.REPLICA_LAG_TIME_MAX_MS, "2000");
        extra.put(BrokerConfig.REPLICA_FETCH_WAIT_MAX_MS, "200");
    }

    /**
     * Three brokers whose followers leave the ISR after 2 s behind, with {@code minInsyncReplicas}, and {@code topic}
     * of {@code partitions} partitions of three replicas each, all in sync.
     */
    private void startReplicatedCluster(final int minInsyncReplicas, final String topic, final int partitions)
            throws Exception {
        replicateWith(minInsyncReplicas);
        startCluster();
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 3)))
                    .all()
                    .get();
            awaitLeaders(admin, topic);
            awaitIsr(admin, topic, 3);
        }
    }

    /** Sends records {@code from..to} round robin over the topic's partitions, each acknowledged by acks=all. */
    private static void produce(
            final String bootstrap,
            final String topic,
            final int from,
            final int to,
            final List<String> values,
            final Map<TopicPartition, List<String>> sent)
            throws Exception {
        final List<Future<RecordMetadata>> acks = new ArrayList<>();
        final List<String> batch = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap)) {
            final int partitions = producer.partitionsFor(topic).size();
            for (int i = from; i < to; i++) {
                final String value = "record-" + i;
                batch.add(value);
                acks.add(producer.send(
                        new ProducerRecord<>(topic, i % partitions, null, value.getBytes(StandardCharsets.UTF_8))));
            }
            producer.flush();
        }
        for (int i = 0; i < acks.size(); i++) {
            final RecordMetadata ack = acks.get(i).get();
            sent.computeIfAbsent(new TopicPartition(ack.topic(), ack.partition()), k -> new ArrayList<>())
                    .add(batch.get(i));
        }
        values.addAll(batch);
    }

    /** {@code topic} as a running broker's metadata has it. */
    private io.isthmus.metadata.image.TopicImage topicImage(final String topic) {
        return brokers.values()
                .iterator()
                .next()
                .cluster()
                .orElseThrow()
                .image()
                .topic(topic)
                .orElseThrow();
    }

    private int leaderOf(final String topic, final int partition) {
        return topicImage(topic).partition(partition).leader();
    }

    /** Waits until every replica of every partition of {@code topic} holds the leader's log byte for byte. */
    private void assertReplicasIdentical(final String topic, final int replicas) throws InterruptedException {
        final int partitions = topicImage(topic).partitions().size();
        for (int p = 0; p < partitions; p++) {
            final TopicPartition tp = new TopicPartition(topic, p);
            awaitCondition(
                    () -> {
                        final List<byte[]> logs = brokers.values().stream()
                                .map(b -> b.partitions().partition(tp))
                                .flatMap(Optional::stream)
                                .map(ClusterModeTest::logBytes)
                                .toList();
                        return logs.size() == replicas
                                && logs.stream().allMatch(bytes -> java.util.Arrays.equals(bytes, logs.getFirst()));
                    },
                    "every replica of " + tp + " holds the same log");
        }
    }

    private static byte[] logBytes(final Partition partition) {
        final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        long offset = partition.logStartOffset();
        final long end = partition.logEndOffset();
        while (offset < end) {
            try (var result = partition.read(offset, 1 << 20, io.isthmus.broker.log.FetchIsolation.LOG_END)) {
                out.writeBytes(result.records().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
                offset = result.nextOffset();
            }
        }
        return out.toByteArray();
    }

    /** The reassignments in progress, as the broker the admin asks answers; empty if it cannot answer now. */
    private static Map<TopicPartition, PartitionReassignment> reassignments(final Admin admin) {
        try {
            return admin.listPartitionReassignments().reassignments().get();
        } catch (final Exception notNow) {
            return Map.of();
        }
    }

    /** Partition 0's replicas as a broker describes them; empty if it cannot answer now. */
    private static List<Integer> replicasOf(final Admin admin, final String topic) {
        try {
            return admin
                    .describeTopics(List.of(topic))
                    .allTopicNames()
                    .get()
                    .get(topic)
                    .partitions()
                    .getFirst()
                    .replicas()
                    .stream()
                    .map(org.apache.kafka.common.Node::id)
                    .toList();
        } catch (final Exception notNow) {
            return List.of();
        }
    }

    private void awaitIsr(final Admin admin, final String topic, final int size) throws InterruptedException {
        awaitCondition(
                () -> {
                    try {
                        return admin
                                .describeTopics(List.of(topic))
                                .allTopicNames()
                                .get()
                                .get(topic)
                                .partitions()
                                .stream()
                                .allMatch(p -> p.isr().size() == size
                                        && p.leader() != null
                                        && !p.leader().isEmpty());
                    } catch (final Exception e) {
                        return false;
                    }
                },
                "every partition of " + topic + " has " + size + " in-sync replicas");
    }

    private void startCluster() throws Exception {
        startCluster(Set.of(1, 2, 3));
    }

    /** Starts {@value #BROKERS} brokers, {@code voterIds} of them voters, and waits until all are active. */
    private void startCluster(final Set<Integer> voterIds) throws Exception {
        this.voterIds = voterIds;
        final List<String> entries = new ArrayList<>();
        for (final int id : new TreeSet<>(voterIds)) {
            entries.add(id + "@127.0.0.1:" + freePort());
        }
        voters = String.join(",", entries);
        for (int id = 1; id <= BROKERS; id++) {
            Broker.format(config(id, Map.of()));
            start(id);
        }
        for (final Broker broker : brokers.values()) {
            broker.cluster().orElseThrow().awaitActive(activeWithin);
        }
    }

    private void start(final int id) throws Exception {
        brokers.put(id, Broker.start(config(id, extra)));
    }

    private BrokerConfig config(final int id, final Map<String, String> overrides) {
        final Map<String, String> settings = new HashMap<>();
        settings.put(BrokerConfig.NODE_ID, Integer.toString(id));
        settings.put(BrokerConfig.PROCESS_ROLES, voterIds.contains(id) ? "broker,controller" : "broker");
        settings.put(BrokerConfig.CONTROLLER_QUORUM_VOTERS, voters);
        settings.put(BrokerConfig.CLUSTER_ID, "cluster-mode-test");
        settings.put(BrokerConfig.LISTENERS, "PLAINTEXT://127.0.0.1:0");
        settings.put(BrokerConfig.LOG_DIRS, dir.resolve("broker-" + id).toString());
        settings.put(BrokerConfig.BROKER_HEARTBEAT_INTERVAL_MS, "200");
        settings.put(BrokerConfig.BROKER_SESSION_TIMEOUT_MS, "3000");
        settings.put(BrokerConfig.CONTROLLER_QUORUM_ELECTION_TIMEOUT_MS, "500");
        settings.put("log.segment.bytes", "1048576");
        settings.put("num.network.threads", "1");
        // Consumer groups' offsets in three partitions of __consumer_offsets rather than Kafka's 50: a light cluster.
        settings.put(BrokerConfig.OFFSETS_TOPIC_NUM_PARTITIONS, "3");
        settings.putAll(overrides);
        return BrokerConfig.of(settings);
    }

    private String bootstrap(final int id) {
        return brokers.get(id).bootstrapServers();
    }

    private Admin admin() {
        final Properties p = new Properties();
        p.put(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap(brokers.keySet().iterator().next()));
        return Admin.create(p);
    }

    private static KafkaProducer<byte[], byte[]> producer(final String bootstrap) {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** The first {@code count} records of {@code tp}, read by a consumer assigned to it (no group). */
    private static List<String> readPartition(final String bootstrap, final TopicPartition tp, final int count) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        final List<String> read = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (read.size() < count && System.nanoTime() < deadline) {
                for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    read.add(new String(r.value(), StandardCharsets.UTF_8));
                }
            }
        }
        return read;
    }

    private Map<TopicPartition, List<String>> consumeAll(
            final String group, final String topic, final String bootstrap, final int count) {
        return consumeAll(group, topic, bootstrap, count, "read_uncommitted");
    }

    private Map<TopicPartition, List<String>> consumeAll(
            final String group, final String topic, final String bootstrap, final int count, final String isolation) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        final Map<TopicPartition, List<String>> received = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            int total = 0;
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (total < count && System.nanoTime() < deadline) {
                for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    received.computeIfAbsent(new TopicPartition(r.topic(), r.partition()), k -> new ArrayList<>())
                            .add(new String(r.value(), StandardCharsets.UTF_8));
                    total++;
                }
            }
            consumer.commitSync();
        }
        return received;
    }

    private TopicDescription awaitLeaders(final Admin admin, final String topic) throws Exception {
        final long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            try {
                final TopicDescription d = admin.describeTopics(List.of(topic))
                        .allTopicNames()
                        .get()
                        .get(topic);
                if (d.partitions().stream()
                        .allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
                    return d;
                }
            } catch (final ExecutionException e) {
                if (!(e.getCause() instanceof KafkaException) || System.nanoTime() > deadline) {
                    throw e;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "topic " + topic + " has no leader for every partition within " + patience.toSeconds() + " s");
            }
            Thread.sleep(50);
        }
    }

    private void awaitCondition(final BooleanSupplier condition, final String what) throws InterruptedException {
        Await.until(condition, patience, what);
    }

    /**
     * A loopback port free now, below Linux's ephemeral range (32768-60999): a port from that range can meanwhile
     * become the local port of any outgoing connection, and a broker restarted on its old port would fail to bind.
     */
    private static int freePort() throws IOException {
        for (int attempt = 0; attempt < 1_000; attempt++) {
            final int port =
                    20_000 + java.util.concurrent.ThreadLocalRandom.current().nextInt(12_000);
            if (!HANDED_OUT.add(port)) {
                continue; // given to an earlier caller, which may not have bound it yet
            }
            try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return port;
            } catch (final IOException taken) {
                // in use: draw another
            }
        }
        throw new IOException("no free loopback port between 20000 and 32000");
    }
}
