package io.isthmus.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.metadata.image.ClusterImage;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker-only node (node 4) beside three voters: it follows the image without a vote, through a change of quorum
 * leader, and sends its commands through the leader like a voter.
 */
class MetadataObserverTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Commands of the outage test give up after this, so that the test outlasts their retries quickly. */
    private static final Duration SHORT_RETRY = Duration.ofSeconds(2);

    @TempDir
    Path dir;

    private LocalQuorum quorum;
    private MetadataObserver observer;

    @AfterEach
    void stop() throws Exception {
        if (observer != null) {
            observer.close();
        }
        if (quorum != null) {
            quorum.close();
        }
    }

    private QuorumSettings observerSettings() {
        QuorumSettings voter = quorum.settingsOf(1);
        return new QuorumSettings(
                4,
                LocalQuorum.CLUSTER_ID,
                voter.voters(),
                dir.resolve("observer-4"),
                voter.electionTimeout(),
                voter.brokerSessionTimeout(),
                voter.snapshotEveryEntries(),
                voter.logSegmentBytes());
    }

    @Test
    void anObserverFollowsTheImageAcrossALeaderChangeAndCommandsThroughTheLeader() throws Exception {
        quorum = new LocalQuorum(3, dir, Duration.ofMillis(500), Duration.ofSeconds(30), 10_000).startAll();
        quorum.awaitLeader(WAIT);
        QuorumSettings settings = observerSettings();
        assertThat(settings.isVoter()).isFalse();
        MetadataNode.format(settings);
        observer = (MetadataObserver) MetadataNode.start(settings);
        List<Long> seen = new CopyOnWriteArrayList<>();
        observer.addListener(image -> seen.add(image.appliedIndex()));

        // It registers and heartbeats as a broker, through whichever voter leads, and sees its registration.
        long epoch = registerAndUnfence(observer, 4);
        LocalQuorum.await(WAIT, () -> observer.image().broker(4).isPresent(), "the observer applied its registration");

        // A command from the observer is committed by the voters, and its result comes back to the observer.
        createTopic(observer, "from-observer");
        LocalQuorum.await(
                WAIT, () -> observer.image().topic("from-observer").isPresent(), "the observer sees its own topic");
        LocalQuorum.await(
                WAIT,
                () -> quorum.voter(1).image().topic("from-observer").isPresent(),
                "voter 1 applied the observer's topic too");
        assertThat(observer.image().appliedIndex()).isGreaterThan(epoch);

        // The leader goes; a command sent through a survivor reaches the observer from the new leader.
        int leader = quorum.awaitLeader(WAIT).nodeId();
        quorum.stop(leader);
        int survivor = leader == 1 ? 2 : 1;
        createTopic(quorum.voter(survivor), "after-failover");
        LocalQuorum.await(
                WAIT,
                () -> observer.image().topic("after-failover").isPresent(),
                "the observer follows the new leader");
        // Its heartbeats find the new leader: a follower that answers one passes it on to the next voter.
        int newLeader = quorum.awaitLeader(WAIT).nodeId();
        assertThat(heartbeat(observer, 4, epoch).isFenced()).isFalse();
        assertThat(observer.leaderId()).isPresent();
        assertThat(observer.leaderId().getAsInt())
                .as("the leader the observer knows")
                .isEqualTo(newLeader);
        assertThat(seen)
                .as("applied indexes the listener saw, never going back")
                .isSorted();
    }

    @Test
    void anObserverComesBackFromAQuorumOutageLongerThanItsCommandsRetry() throws Exception {
        // One voter, so that the voter the observer heartbeats to after the outage is the one it had a connection to
        // before: a heartbeat client that never reconnected would fail here every time, not by the luck of an election.
        quorum = new LocalQuorum(1, dir, Duration.ofMillis(500), Duration.ofSeconds(30), 10_000).startAll();
        quorum.awaitLeader(WAIT);
        QuorumSettings settings = observerSettings();
        MetadataNode.format(settings);
        observer = MetadataObserver.start(settings, SHORT_RETRY);
        long epoch = registerAndUnfence(observer, 4);

        quorum.stop(1);
        // A command while no voter is up runs out of its retries; Ratis would fail every later command of that client.
        CreateTopicsRequestData during = new CreateTopicsRequestData();
        during.topics()
                .add(new CreatableTopic().setName("during").setNumPartitions(1).setReplicationFactor((short) 1));
        assertThatThrownBy(() -> observer.controller().createTopics(during).get(WAIT.toSeconds(), TimeUnit.SECONDS))
                .isInstanceOf(java.util.concurrent.ExecutionException.class);
        // Pacing, not waiting for anything: the voter stays down past the observer's own retries too (its polls),
        // so what comes back is a node each of whose request paths gave up once.
        Thread.sleep(SHORT_RETRY.toMillis());

        quorum.start(1);
        quorum.awaitLeader(WAIT);
        LocalQuorum.await(
                WAIT,
                () -> {
                    try {
                        return !heartbeat(observer, 4, epoch).isFenced();
                    } catch (Exception stillDown) {
                        return false;
                    }
                },
                "the observer's heartbeats are answered again");
        createTopic(observer, "after-outage");
        LocalQuorum.await(WAIT, () -> observer.image().topic("after-outage").isPresent(), "the observer follows again");
    }

    @Test
    void aVoterWaitsForANewerImageAndAnswersNothingNewWhenItsWaitIsOver() throws Exception {
        quorum = new LocalQuorum(3, dir, Duration.ofMillis(500), Duration.ofSeconds(30), 10_000).startAll();
        quorum.awaitLeader(WAIT);
        MetadataQuorum voter = quorum.voter(1);
        registerAndUnfence(voter, 1);
        createTopic(voter, "first");
        LocalQuorum.await(WAIT, () -> voter.image().topic("first").isPresent(), "voter 1 applied the topic");
        long have = voter.image().appliedIndex();

        Optional<ClusterImage> older =
                voter.controller().fetchImage(have - 1, Duration.ZERO).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(older)
                .hasValueSatisfying(image -> assertThat(image.topic("first")).isPresent());

        long start = System.nanoTime();
        Optional<ClusterImage> nothing = voter.controller()
                .fetchImage(older.orElseThrow().appliedIndex(), Duration.ofMillis(300))
                .get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(nothing).isEmpty();
        assertThat(System.nanoTime() - start)
                .as("it waited")
                .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(250));

        var waiting = voter.controller().fetchImage(older.orElseThrow().appliedIndex(), ImageFetch.MAX_WAIT);
        createTopic(voter, "second");
        Optional<ClusterImage> newer = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        // A machine too busy to commit within the wait answers "nothing newer" first; the next fetch then has it.
        for (int again = 0;
                again < 10
                        && newer.map(image -> image.topic("second").isEmpty()).orElse(true);
                again++) {
            newer = voter.controller()
                    .fetchImage(newer.map(ClusterImage::appliedIndex).orElse(have), ImageFetch.MAX_WAIT)
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
        assertThat(newer)
                .as("a wait ends with the newer image")
                .hasValueSatisfying(image -> assertThat(image.topic("second")).isPresent());
    }

    @Test
    void anImageFetchIsNeverACommandAndAMalformedOneIsRefused() throws Exception {
        byte[] query = ImageFetch.encodeQuery(7, Duration.ofMillis(100));
        assertThat(ImageFetch.decodeQuery(ByteBuffer.wrap(query))).isEqualTo(new ImageFetch.Query(7, 100));
        assertThatThrownBy(() -> MetadataCommands.decodeCommand(ByteBuffer.wrap(query)))
                .as("written to the log, it would be refused before it is logged")
                .isInstanceOf(IllegalArgumentException.class);
        byte[] truncated = java.util.Arrays.copyOf(query, query.length - 1);
        assertThatThrownBy(() -> ImageFetch.decodeQuery(ByteBuffer.wrap(truncated)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bytes");
        ByteBuffer tooLong = ByteBuffer.wrap(query.clone());
        tooLong.putInt(query.length - Integer.BYTES, 60_000);
        assertThatThrownBy(() -> ImageFetch.decodeQuery(tooLong)).hasMessageContaining("at most");

        ClusterImage image = new ClusterImage(12, java.util.Map.of(), java.util.Map.of());
        byte[] answer = ImageFetch.newerAnswer(ImageSnapshot.encode(image));
        assertThat(ImageFetch.decodeAnswer(ByteBuffer.wrap(answer))).contains(image);
        assertThat(ImageFetch.decodeAnswer(ByteBuffer.wrap(ImageFetch.NOTHING_NEWER)))
                .isEmpty();
        answer[answer.length - 6] ^= 1;
        assertThatThrownBy(() -> ImageFetch.decodeAnswer(ByteBuffer.wrap(answer)))
                .isInstanceOf(java.io.IOException.class)
                .hasMessageContaining("CRC32C");
    }

    @Test
    void aNodeStartsAsTheRoleItsIdGivesIt() throws Exception {
        quorum = new LocalQuorum(3, dir, Duration.ofMillis(500), Duration.ofSeconds(30), 10_000);
        QuorumSettings settings = observerSettings();
        MetadataNode.format(settings);
        assertThatThrownBy(() -> MetadataQuorum.start(settings))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("only a voter runs the metadata quorum");
        assertThatThrownBy(() -> MetadataObserver.start(quorum.settingsOf(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is a voter");
    }

    /** Registers broker {@code id} through {@code via} and heartbeats it unfenced; returns its broker epoch. */
    private static long registerAndUnfence(MetadataNode via, int id) throws Exception {
        BrokerRegistrationRequestData registration = new BrokerRegistrationRequestData()
                .setBrokerId(id)
                .setClusterId(LocalQuorum.CLUSTER_ID)
                .setIncarnationId(Uuid.randomUuid());
        registration
                .listeners()
                .add(new BrokerRegistrationRequestData.Listener()
                        .setName("PLAINTEXT")
                        .setHost("127.0.0.1")
                        .setPort(9090 + id));
        long epoch = via.controller()
                .registerBroker(registration)
                .get(WAIT.toSeconds(), TimeUnit.SECONDS)
                .brokerEpoch();
        // Caught up past its own registration (the epoch is that command's log index), so the leader unfences it.
        boolean fenced = via.controller()
                .heartbeat(new BrokerHeartbeatRequestData()
                        .setBrokerId(id)
                        .setBrokerEpoch(epoch)
                        .setCurrentMetadataOffset(Math.max(epoch, via.image().appliedIndex())))
                .get(WAIT.toSeconds(), TimeUnit.SECONDS)
                .isFenced();
        assertThat(fenced)
                .as("broker %d fenced after a caught-up heartbeat", id)
                .isFalse();
        return epoch;
    }

    private static BrokerHeartbeatResponseData heartbeat(MetadataNode via, int id, long epoch) throws Exception {
        return via.controller()
                .heartbeat(new BrokerHeartbeatRequestData()
                        .setBrokerId(id)
                        .setBrokerEpoch(epoch)
                        .setCurrentMetadataOffset(Math.max(epoch, via.image().appliedIndex())))
                .get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    private static void createTopic(MetadataNode via, String name) throws Exception {
        CreateTopicsRequestData request = new CreateTopicsRequestData();
        request.topics()
                .add(new CreatableTopic().setName(name).setNumPartitions(1).setReplicationFactor((short) 1));
        var answer = via.controller().createTopics(request).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(Errors.forCode(answer.topics().find(name).errorCode())).isEqualTo(Errors.NONE);
    }
}
