package io.isthmus.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.metadata.broker.BrokerIdentity;
import io.isthmus.metadata.broker.BrokerLifecycle;
import io.isthmus.metadata.image.BrokerRegistration;
import io.isthmus.metadata.image.ClusterImage;
import io.isthmus.metadata.image.PartitionState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Three voters on loopback: elections, replication, failover, restarts, snapshots and broker sessions. */
class MetadataQuorumTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Duration ELECTION = Duration.ofMillis(500);

    @TempDir
    Path dir;

    private LocalQuorum quorum;
    private final Map<Integer, Long> brokerEpochs = new ConcurrentHashMap<>();

    @AfterEach
    void stop() {
        if (quorum != null) {
            quorum.close();
        }
    }

    private LocalQuorum quorum(Duration sessionTimeout, long snapshotEvery) throws Exception {
        quorum = new LocalQuorum(3, dir, ELECTION, sessionTimeout, snapshotEvery).startAll();
        return quorum;
    }

    private static <T> T get(CompletableFuture<T> future) throws Exception {
        return future.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    private void registerAndUnfence(MetadataQuorum via, int broker) throws Exception {
        BrokerRegistrationRequestData r = new BrokerRegistrationRequestData()
                .setBrokerId(broker)
                .setClusterId(LocalQuorum.CLUSTER_ID)
                .setIncarnationId(Uuid.randomUuid());
        r.listeners()
                .add(new BrokerRegistrationRequestData.Listener()
                        .setName("PLAINTEXT")
                        .setHost("127.0.0.1")
                        .setPort(9090 + broker));
        long epoch = get(via.controller().registerBroker(r)).brokerEpoch();
        brokerEpochs.put(broker, epoch);
        BrokerHeartbeatResponseData answer = heartbeat(via, broker);
        assertThat(answer.isFenced()).isFalse();
    }

    private BrokerHeartbeatResponseData heartbeat(MetadataQuorum via, int broker) throws Exception {
        return get(via.controller()
                .heartbeat(new BrokerHeartbeatRequestData()
                        .setBrokerId(broker)
                        .setBrokerEpoch(brokerEpochs.get(broker))
                        // A broker whose metadata is as new as the voter's: past its registration and any fence of it.
                        .setCurrentMetadataOffset(
                                Math.max(brokerEpochs.get(broker), via.image().appliedIndex()))));
    }

    /** Broker {@code broker}, registered and heartbeating every 200 ms through voter {@code broker}'s client; active. */
    private BrokerLifecycle heartbeatingThroughItsVoter(int broker, Duration session) throws Exception {
        MetadataQuorum via = quorum.voter(broker);
        BrokerLifecycle lifecycle = new BrokerLifecycle(
                via.controller(),
                new BrokerIdentity(broker, LocalQuorum.CLUSTER_ID, List.of(), null),
                Duration.ofMillis(200),
                session,
                () -> via.image().appliedIndex(),
                System::nanoTime);
        lifecycle.start();
        lifecycle.awaitActive(WAIT);
        return lifecycle;
    }

    private static CreateTopicsResponseData create(MetadataQuorum via, String topic, int partitions, int rf)
            throws Exception {
        CreateTopicsRequestData request = new CreateTopicsRequestData();
        request.topics()
                .add(new CreatableTopic()
                        .setName(topic)
                        .setNumPartitions(partitions)
                        .setReplicationFactor((short) rf));
        return get(via.controller().createTopics(request));
    }

    @Test
    void everyVoterAppliesTheSameCommandsWhicheverVoterTheyWereSentTo() throws Exception {
        quorum(Duration.ofSeconds(30), 10_000);
        quorum.awaitLeader(WAIT);

        for (int broker = 1; broker <= 3; broker++) {
            registerAndUnfence(quorum.voter(broker), broker);
        }
        CreateTopicsResponseData answer = create(quorum.voter(2), "orders", 6, 3);

        assertThat(answer.topics().find("orders").errorCode()).isZero();
        quorum.awaitConverged(quorum.voter(1), WAIT);
        ClusterImage image = quorum.voter(3).image();
        assertThat(image.brokers().keySet()).containsExactly(1, 2, 3);
        assertThat(image.unfencedBrokers()).hasSize(3);
        assertThat(image.topic("orders").orElseThrow().partitions()).hasSize(6).allSatisfy(p -> assertThat(p.isr())
                .hasSize(3));
        assertThat(Errors.forCode(create(quorum.voter(3), "orders", 1, 1)
                        .topics()
                        .find("orders")
                        .errorCode()))
                .isEqualTo(Errors.TOPIC_ALREADY_EXISTS);
    }

    @Test
    void theQuorumGoesOnWithoutItsLeaderAndTheStoppedVoterCatchesUpWhenItReturns() throws Exception {
        quorum(Duration.ofSeconds(30), 10_000);
        MetadataQuorum first = quorum.awaitLeader(WAIT);
        registerAndUnfence(first, 1);
        create(first, "before", 1, 1);

        int stopped = first.nodeId();
        quorum.stop(stopped);
        MetadataQuorum second = quorum.awaitLeader(WAIT);
        assertThat(second.nodeId()).isNotEqualTo(stopped);
        for (int i = 0; i < 20; i++) {
            assertThat(create(second, "during-" + i, 1, 1)
                            .topics()
                            .find("during-" + i)
                            .errorCode())
                    .isZero();
        }

        MetadataQuorum returned = quorum.start(stopped);
        quorum.awaitConverged(second, WAIT);
        assertThat(returned.image().topics()).hasSize(21).containsKey("before").containsKey("during-19");
    }

    @Test
    void aMinorityCommitsNothingAndTheCommandCompletesOnceAMajorityIsBack() throws Exception {
        quorum(Duration.ofSeconds(30), 10_000);
        MetadataQuorum leader = quorum.awaitLeader(WAIT);
        registerAndUnfence(leader, 1);
        int survivor = leader.nodeId();
        List<Integer> others = quorum.runningVoters().stream()
                .map(MetadataQuorum::nodeId)
                .filter(id -> id != survivor)
                .toList();
        for (int id : others) {
            quorum.stop(id);
        }

        CreateTopicsRequestData request = new CreateTopicsRequestData();
        request.topics()
                .add(new CreatableTopic()
                        .setName("needs-a-majority")
                        .setNumPartitions(1)
                        .setReplicationFactor((short) 1));
        CompletableFuture<CreateTopicsResponseData> pending =
                quorum.voter(survivor).controller().createTopics(request);

        assertThatThrownBy(() -> pending.get(3, TimeUnit.SECONDS)).isInstanceOf(TimeoutException.class);
        assertThat(quorum.voter(survivor).image().topics()).doesNotContainKey("needs-a-majority");

        quorum.start(others.getFirst());
        assertThat(get(pending).topics().find("needs-a-majority").errorCode()).isZero();
        quorum.awaitConverged(quorum.voter(survivor), WAIT);
    }

    @Test
    void votersRestartFromTheirSnapshotsAndLogsToTheSameImage() throws Exception {
        quorum(Duration.ofSeconds(30), 5);
        MetadataQuorum leader = quorum.awaitLeader(WAIT);
        for (int broker = 1; broker <= 3; broker++) {
            registerAndUnfence(leader, broker);
        }
        for (int i = 0; i < 12; i++) {
            create(leader, "t" + i, 2, 2);
        }
        quorum.awaitConverged(leader, WAIT);
        for (MetadataQuorum voter : quorum.runningVoters()) {
            assertThat(voter.takeSnapshot(WAIT)).isPositive();
        }
        create(leader, "after-snapshot", 1, 3);
        quorum.awaitConverged(leader, WAIT);
        ClusterImage before = leader.image();

        quorum.close();
        quorum.startAll();

        MetadataQuorum newLeader = quorum.awaitLeader(WAIT);
        LocalQuorum.await(WAIT, () -> newLeader.image().equals(before), "the image from before the restart");
        quorum.awaitConverged(newLeader, WAIT);
        assertThat(dir.resolve("voter-1")).isDirectoryRecursivelyContaining("glob:**/snapshot.*");
    }

    @Test
    void aBrokerThatStopsHeartbeatingIsFencedAndItsPartitionsGetNewLeaders() throws Exception {
        Duration session = Duration.ofSeconds(2);
        quorum(session, 10_000);
        MetadataQuorum leader = quorum.awaitLeader(WAIT);
        // Brokers 1 and 2 heartbeat all along, as brokers do; broker 3 registers, heartbeats once, and falls silent.
        List<BrokerLifecycle> live = new ArrayList<>();
        try {
            for (int broker = 1; broker <= 2; broker++) {
                live.add(heartbeatingThroughItsVoter(broker, session));
            }
            registerAndUnfence(leader, 3);
            long silentSince = System.nanoTime();
            assertThat(create(leader, "t", 3, 3).topics().find("t").errorCode()).isZero();

            LocalQuorum.await(
                    WAIT,
                    () -> quorum.awaitLeader(WAIT)
                            .image()
                            .broker(3)
                            .orElseThrow()
                            .fenced(),
                    "broker 3 fenced");

            assertThat(System.nanoTime() - silentSince).isGreaterThanOrEqualTo(session.toNanos());
            ClusterImage image = quorum.awaitLeader(WAIT).image();
            assertThat(image.broker(1).orElseThrow().fenced()).isFalse();
            assertThat(image.broker(2).orElseThrow().fenced()).isFalse();
            for (PartitionState p : image.topic("t").orElseThrow().partitions()) {
                assertThat(p.leader()).isIn(1, 2);
                assertThat(p.isr()).doesNotContain(3);
            }

            // Back: its heartbeat unfences it, but it leads nothing until a leader returns it to an ISR.
            assertThat(heartbeat(quorum.awaitLeader(WAIT), 3).isFenced()).isFalse();
            LocalQuorum.await(
                    WAIT,
                    () -> !quorum.awaitLeader(WAIT)
                            .image()
                            .broker(3)
                            .orElseThrow()
                            .fenced(),
                    "broker 3 unfenced");
            assertThat(quorum.awaitLeader(WAIT).image().topic("t").orElseThrow().partitions())
                    .allSatisfy(p -> assertThat(p.leader()).isNotEqualTo(3));
        } finally {
            for (BrokerLifecycle lifecycle : live) {
                lifecycle.shutDown(Duration.ZERO);
            }
        }
    }

    @Test
    void brokersWhoseQuorumLeaderStopsReachTheNextLeaderWithinTheirSessionAndStayUnfenced() throws Exception {
        Duration session = Duration.ofSeconds(3);
        quorum(session, 10_000);
        int stopped = quorum.awaitLeader(WAIT).nodeId();
        // Each broker heartbeats through its own voter's client, as a broker of a cluster does. Their last heartbeats
        // before the stop went to the leader, where the next ones start.
        Map<Integer, BrokerLifecycle> lifecycles = new HashMap<>();
        try {
            for (int broker = 1; broker <= 3; broker++) {
                lifecycles.put(broker, heartbeatingThroughItsVoter(broker, session));
            }
            lifecycles.remove(stopped).shutDown(Duration.ZERO);
            // The log index of each broker's last fence: any fence after the stop, even one undone since, moves it.
            Map<Integer, Long> lastFenced = new HashMap<>();
            for (int broker : lifecycles.keySet()) {
                lastFenced.put(
                        broker,
                        quorum.voter(broker)
                                .image()
                                .broker(broker)
                                .orElseThrow()
                                .fencedAt());
            }
            quorum.stop(stopped);
            MetadataQuorum next = quorum.awaitLeader(WAIT);

            // The window under test, not a wait for an event: three sessions after the new leader took over (it gives
            // each broker two to find it), nothing may have fenced a broker whose voter still runs.
            Thread.sleep(3 * session.toMillis());
            ClusterImage image = next.image();
            for (int broker : lifecycles.keySet()) {
                BrokerRegistration registration = image.broker(broker).orElseThrow();
                assertThat(registration.fenced())
                        .as("broker %d, whose voter %d still runs, fenced", broker, broker)
                        .isFalse();
                assertThat(registration.fencedAt())
                        .as("broker %d fenced at some point after the leading voter stopped", broker)
                        .isEqualTo(lastFenced.get(broker));
            }
            for (BrokerLifecycle lifecycle : lifecycles.values()) {
                assertThat(lifecycle.isActive())
                        .as("broker %d holds its lease", lifecycle.brokerId())
                        .isTrue();
            }
        } finally {
            for (BrokerLifecycle lifecycle : lifecycles.values()) {
                lifecycle.shutDown(Duration.ZERO);
            }
        }
    }

    @Test
    void aBrokerWhoseMetadataHasNotReachedItsRegistrationStaysFenced() throws Exception {
        quorum(Duration.ofSeconds(30), 10_000);
        MetadataQuorum leader = quorum.awaitLeader(WAIT);
        BrokerRegistrationRequestData r = new BrokerRegistrationRequestData()
                .setBrokerId(1)
                .setClusterId(LocalQuorum.CLUSTER_ID)
                .setIncarnationId(Uuid.randomUuid());
        long epoch = get(leader.controller().registerBroker(r)).brokerEpoch();

        BrokerHeartbeatResponseData behind = get(leader.controller()
                .heartbeat(new BrokerHeartbeatRequestData()
                        .setBrokerId(1)
                        .setBrokerEpoch(epoch)
                        .setCurrentMetadataOffset(epoch - 1)));

        assertThat(behind.isFenced()).isTrue();
        assertThat(behind.isCaughtUp()).isFalse();
        assertThat(leader.image().broker(1).orElseThrow().fenced()).isTrue();

        BrokerHeartbeatResponseData caughtUp = get(leader.controller()
                .heartbeat(new BrokerHeartbeatRequestData()
                        .setBrokerId(1)
                        .setBrokerEpoch(epoch)
                        .setCurrentMetadataOffset(epoch)));
        assertThat(caughtUp.isFenced()).isFalse();
    }

    @Test
    void aVoterThatFellBehindThePurgedLogCatchesUpFromTheLeadersSnapshot() throws Exception {
        quorum = new LocalQuorum(3, dir, ELECTION, Duration.ofSeconds(30), 10, 1024).startAll();
        MetadataQuorum leader = quorum.awaitLeader(WAIT);
        registerAndUnfence(leader, 1);
        int behind = quorum.runningVoters().stream()
                .map(MetadataQuorum::nodeId)
                .filter(id -> id != leader.nodeId())
                .findFirst()
                .orElseThrow();
        quorum.stop(behind);

        for (int i = 0; i < 60; i++) {
            assertThat(create(leader, "topic-with-a-long-name-to-fill-segments-" + i, 1, 1)
                            .topics()
                            .iterator()
                            .next()
                            .errorCode())
                    .isZero();
        }
        for (MetadataQuorum voter : quorum.runningVoters()) {
            voter.takeSnapshot(WAIT);
        }

        MetadataQuorum returned = quorum.start(behind);
        quorum.awaitConverged(leader, WAIT);
        assertThat(returned.image().topics()).hasSize(60);
        assertThat(returned.snapshotsInstalled())
                .as("caught up from a snapshot, not the log")
                .isPositive();
        assertThat(create(returned, "after", 1, 1).topics().find("after").errorCode())
                .isZero();
        quorum.awaitConverged(leader, WAIT);
    }

    @Test
    void aVoterStartsOnlyOnADirectoryFormattedForItsClusterAndNode() throws Exception {
        List<QuorumVoter> voters = List.of(new QuorumVoter(1, "127.0.0.1", 1));
        QuorumSettings settings = QuorumSettings.of(1, "cluster-a", voters, dir.resolve("lost-disk"));

        assertThatThrownBy(() -> MetadataQuorum.start(settings))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is not formatted");

        MetadataNode.format(settings);
        MetadataNode.format(settings); // again: nothing changes
        QuorumSettings otherCluster = QuorumSettings.of(1, "cluster-b", voters, dir.resolve("lost-disk"));
        assertThatThrownBy(() -> MetadataQuorum.start(otherCluster))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cluster.id=cluster-a");
        assertThatThrownBy(() -> MetadataNode.format(otherCluster)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aVoterThatLostItsQuorumLogButKeptItsFormatDoesNotRejoinAsNew() throws Exception {
        List<QuorumVoter> alone = List.of(new QuorumVoter(1, "127.0.0.1", LocalQuorum.freePort()));
        QuorumSettings settings = QuorumSettings.of(1, "cluster-a", alone, dir.resolve("voter"));
        MetadataNode.format(settings);
        MetadataQuorum.start(settings).close();
        try (var groupDirs = java.nio.file.Files.list(settings.directory())) {
            for (Path p : groupDirs.filter(java.nio.file.Files::isDirectory).toList()) {
                try (var files = java.nio.file.Files.walk(p)) {
                    files.sorted(java.util.Comparator.reverseOrder())
                            .forEach(f -> f.toFile().delete());
                }
            }
        }

        assertThatThrownBy(() -> MetadataQuorum.start(settings))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has lost the quorum log");
    }

    @Test
    void aMalformedCommandIsRefusedBeforeItIsLoggedAndTheQuorumKeepsServing() throws Exception {
        quorum(Duration.ofSeconds(30), 10_000);
        MetadataQuorum leader = quorum.awaitLeader(WAIT);
        RaftProperties properties = new RaftProperties();
        RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
        try (RaftClient stranger = RaftClient.newBuilder()
                .setProperties(properties)
                .setRaftGroup(MetadataQuorum.groupOf(new QuorumSettings(
                        1,
                        LocalQuorum.CLUSTER_ID,
                        voters(),
                        dir,
                        ELECTION,
                        Duration.ofSeconds(30),
                        10,
                        QuorumSettings.DEFAULT_LOG_SEGMENT_BYTES)))
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(
                        50, TimeDuration.valueOf(100, TimeUnit.MILLISECONDS)))
                .build()) {
            CompletableFuture<?> reply = stranger.async().send(Message.valueOf("not a kafka message"));
            assertThatThrownBy(() -> get(reply).toString())
                    .isInstanceOf(ExecutionException.class)
                    .hasMessageContaining("refused a malformed metadata command");
        }

        registerAndUnfence(leader, 1);
        assertThat(create(leader, "still-serving", 1, 1)
                        .topics()
                        .find("still-serving")
                        .errorCode())
                .isZero();
    }

    private List<QuorumVoter> voters() {
        return quorum.runningVoters().stream()
                .map(q -> q.nodeId())
                .map(id -> quorumVoter(id))
                .toList();
    }

    private QuorumVoter quorumVoter(int id) {
        return quorum.settingsOf(id).self();
    }
}
