package io.isthmus.metadata.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.metadata.image.BrokerEndpoint;
import io.isthmus.metadata.image.ClusterImage;
import io.isthmus.metadata.image.PartitionState;
import io.isthmus.metadata.quorum.LocalQuorum;
import io.isthmus.metadata.quorum.MetadataQuorum;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Brokers keeping their membership of a three-voter quorum: registration, lease, fencing, controlled shutdown. */
class BrokerLifecycleTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Duration SESSION = Duration.ofSeconds(2);
    private static final Duration HEARTBEAT = Duration.ofMillis(200);

    @TempDir
    Path dir;

    private LocalQuorum quorum;
    private final List<BrokerLifecycle> brokers = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        for (BrokerLifecycle b : brokers) {
            b.shutDown(Duration.ZERO);
        }
        if (quorum != null) {
            quorum.close();
        }
    }

    private MetadataQuorum startQuorum() throws Exception {
        quorum = new LocalQuorum(3, dir, Duration.ofMillis(500), SESSION, 10_000).startAll();
        return quorum.awaitLeader(WAIT);
    }

    private BrokerLifecycle broker(ControllerChannel channel, int id) {
        return broker(channel, id, quorum.voter(id <= 3 ? id : 1));
    }

    /** A broker whose metadata is what {@code metadataFrom} has applied, as a broker that is also a voter. */
    private BrokerLifecycle broker(ControllerChannel channel, int id, MetadataQuorum metadataFrom) {
        BrokerLifecycle b = new BrokerLifecycle(
                channel,
                new BrokerIdentity(
                        id,
                        LocalQuorum.CLUSTER_ID,
                        List.of(new BrokerEndpoint("PLAINTEXT", "127.0.0.1", 9090 + id, (short) 0)),
                        null),
                HEARTBEAT,
                SESSION,
                () -> metadataFrom.image().appliedIndex(),
                System::nanoTime);
        brokers.add(b);
        b.start();
        return b;
    }

    private ClusterImage leaderImage() {
        return quorum.awaitLeader(WAIT).image();
    }

    private static void createTopic(MetadataQuorum via, String name, int partitions, int rf) throws Exception {
        CreateTopicsRequestData request = new CreateTopicsRequestData();
        request.topics()
                .add(new CreatableTopic()
                        .setName(name)
                        .setNumPartitions(partitions)
                        .setReplicationFactor((short) rf));
        assertThat(via.controller()
                        .createTopics(request)
                        .get(WAIT.toSeconds(), TimeUnit.SECONDS)
                        .topics()
                        .find(name)
                        .errorCode())
                .isZero();
    }

    @Test
    void aBrokerRegistersAndItsHeartbeatsMakeItActiveAndUnfenced() throws Exception {
        MetadataQuorum leader = startQuorum();
        BrokerLifecycle one = broker(quorum.voter(1).controller(), 1);

        one.awaitActive(WAIT);

        assertThat(one.brokerEpoch()).isPositive();
        LocalQuorum.await(WAIT, () -> leader.image().isActive(1, one.brokerEpoch()), "broker 1 unfenced");
        assertThat(leader.image().broker(1).orElseThrow().endpoints().getFirst().port())
                .isEqualTo(9091);
    }

    @Test
    void aBrokerCutOffLosesItsLeaseNoLaterThanTheQuorumFencesItAndReturnsWhenHeardAgain() throws Exception {
        MetadataQuorum leader = startQuorum();
        // Answers arrive late, as from a slow network: the lease must count from when a heartbeat was sent, not
        // from when its answer came, or it would outlast the fence.
        SeveringChannel severable = new SeveringChannel(quorum.voter(1).controller(), Duration.ofMillis(800));
        BrokerLifecycle one = broker(severable, 1);
        BrokerLifecycle two = broker(quorum.voter(2).controller(), 2);
        one.awaitActive(WAIT);
        two.awaitActive(WAIT);
        createTopic(leader, "t", 4, 2);

        severable.severed = true;
        LocalQuorum.await(WAIT, () -> leaderImage().broker(1).orElseThrow().fenced(), "broker 1 fenced");
        // Fenced by the quorum: the broker must already have stopped counting itself a leader.
        assertThat(one.isActive()).isFalse();
        assertThat(leaderImage().broker(2).orElseThrow().fenced()).isFalse();
        for (PartitionState p : leaderImage().topic("t").orElseThrow().partitions()) {
            assertThat(p.leader()).isEqualTo(2);
        }

        severable.severed = false;
        one.awaitActive(WAIT);
        LocalQuorum.await(WAIT, () -> !leaderImage().broker(1).orElseThrow().fenced(), "broker 1 unfenced again");
    }

    @Test
    void aControlledShutdownMovesLeadershipAwayWithoutWaitingForTheSession() throws Exception {
        MetadataQuorum leader = startQuorum();
        BrokerLifecycle one = broker(quorum.voter(1).controller(), 1);
        BrokerLifecycle two = broker(quorum.voter(2).controller(), 2);
        one.awaitActive(WAIT);
        two.awaitActive(WAIT);
        createTopic(leader, "t", 4, 2);
        assertThat(leaderImage().topic("t").orElseThrow().partitions()).anyMatch(p -> p.leader() == 1);

        long started = System.nanoTime();
        one.shutDown(WAIT);
        long tookNanos = System.nanoTime() - started;

        assertThat(one.state()).isEqualTo(BrokerLifecycle.State.SHUT_DOWN);
        assertThat(tookNanos).isLessThan(SESSION.toNanos());
        LocalQuorum.await(
                SESSION,
                () -> leaderImage().topic("t").orElseThrow().partitions().stream()
                        .allMatch(p -> p.leader() == 2),
                "every partition led by broker 2 before a session could expire");
    }

    @Test
    void aSecondProcessWithTheSameIdSupersedesTheFirst() throws Exception {
        startQuorum();
        BrokerLifecycle first = broker(quorum.voter(1).controller(), 1);
        first.awaitActive(WAIT);

        BrokerLifecycle second = broker(quorum.voter(2).controller(), 1, quorum.voter(2));
        second.awaitActive(WAIT);

        LocalQuorum.await(WAIT, () -> first.state() == BrokerLifecycle.State.SUPERSEDED, "the first superseded");
        assertThat(first.isActive()).isFalse();
        assertThat(second.brokerEpoch()).isGreaterThan(first.brokerEpoch());
    }

    /**
     * A channel whose heartbeat answers arrive late, and whose heartbeats can be made to fail: the broker cut off from
     * the quorum, still running.
     */
    private static final class SeveringChannel implements ControllerChannel {
        private final ControllerChannel delegate;
        private final Duration answerDelay;
        volatile boolean severed;

        SeveringChannel(ControllerChannel delegate, Duration answerDelay) {
            this.delegate = delegate;
            this.answerDelay = answerDelay;
        }

        @Override
        public CompletableFuture<BrokerRegistrationResponseData> registerBroker(BrokerRegistrationRequestData r) {
            return delegate.registerBroker(r);
        }

        @Override
        public CompletableFuture<BrokerHeartbeatResponseData> heartbeat(BrokerHeartbeatRequestData h) {
            if (severed) {
                return CompletableFuture.failedFuture(new TimeoutException("severed by the test"));
            }
            return delegate.heartbeat(h)
                    .thenCompose(answer -> CompletableFuture.supplyAsync(
                            () -> answer,
                            CompletableFuture.delayedExecutor(answerDelay.toMillis(), TimeUnit.MILLISECONDS)));
        }
    }
}
