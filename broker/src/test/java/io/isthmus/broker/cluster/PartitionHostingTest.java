package io.isthmus.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.group.FileOffsetStore;
import io.isthmus.broker.partition.IsrChanges;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.replication.ReplicaFetchers;
import io.isthmus.broker.replication.ReplicaPushers;
import io.isthmus.broker.replication.ReplicationSettings;
import io.isthmus.broker.testkit.Await;
import io.isthmus.broker.testkit.TestPartitions;
import io.isthmus.metadata.image.ClusterImage;
import io.isthmus.metadata.image.PartitionState;
import io.isthmus.metadata.image.TopicImage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker's partitions follow the cluster's metadata only from its own registration on: a restarted voter's image
 * is half-replayed before that, and following it would delete partitions it does not show yet.
 */
class PartitionHostingTest {
    private static final int ME = 1;
    private static final Uuid TOPIC_ID = Uuid.randomUuid();
    /**
     * How long the test gives the hosting thread to do what it must not (there is no event for "did nothing"): a
     * shorter window could only let a wrong apply go unseen, never fail a correct one.
     */
    private static final long QUIET_WINDOW_MS = 300;

    @TempDir
    Path dir;

    private final AtomicLong registeredAt = new AtomicLong(-1);
    private PartitionManager partitions;
    private FileOffsetStore offsets;
    private PartitionHosting hosting;

    @BeforeEach
    void start() throws Exception {
        partitions = TestPartitions.startForCluster(dir.resolve("logs"));
        offsets = FileOffsetStore.open(dir.resolve("offsets"));
        hosting = new PartitionHosting(
                ME,
                partitions,
                offsets,
                registeredAt::get,
                new ReplicaFetchers(ME, id -> Optional.empty(), new ReplicationSettings(100, 1 << 20, 1000, 10_000)),
                new ReplicaPushers(ME, id -> Optional.empty()),
                new IsrChanges() {
                    @Override
                    public CompletableFuture<Answer> alter(
                            final Partition partition,
                            final int leaderEpoch,
                            final int partitionEpoch,
                            final List<Integer> isr) {
                        return new CompletableFuture<>();
                    }

                    @Override
                    public boolean mayJoin(final int brokerId) {
                        return true;
                    }
                },
                10_000);
    }

    @AfterEach
    void stop() throws Exception {
        hosting.close();
        partitions.close();
        offsets.close();
    }

    @Test
    void nothingIsAppliedBeforeTheRegistrationAndNoImageOlderThanOneApplied() throws Exception {
        hosting.offer(image(10, true));
        Thread.sleep(QUIET_WINDOW_MS);
        assertThat(held()).as("before this broker's registration is known").isFalse();

        registeredAt.set(12);
        Thread.sleep(QUIET_WINDOW_MS);
        assertThat(held()).as("an image older than the registration").isFalse();
        assertThat(hosting.appliedIndex()).isZero();

        hosting.offer(image(14, true));
        // The index is recorded once the whole image is applied, a moment after the partition is routed to.
        await(
                () -> held() && hosting.appliedIndex() == 14,
                "the partition held once an image reaches the registration");

        // Images without the topic arriving late, one older than the registration, one older than what was applied:
        // both dropped, the partition and its log stay.
        hosting.offer(image(11, false));
        Thread.sleep(QUIET_WINDOW_MS);
        hosting.offer(image(13, false));
        Thread.sleep(QUIET_WINDOW_MS);
        assertThat(held()).isTrue();
        assertThat(hosting.appliedIndex()).isEqualTo(14);

        hosting.offer(image(15, false));
        await(
                () -> !held() && partitions.topics().byName("t").isEmpty() && hosting.appliedIndex() == 15,
                "the topic and its partition dropped by a newer image without it");
    }

    private boolean held() {
        return partitions.partition(new TopicPartition("t", 0)).isPresent();
    }

    /** An image at {@code index} with this broker registered, and topic "t" on it if {@code withTopic}. */
    private static ClusterImage image(final long index, final boolean withTopic) {
        final Map<String, TopicImage> topics = withTopic
                ? Map.of(
                        "t",
                        new TopicImage("t", TOPIC_ID, List.of(new PartitionState(List.of(ME), List.of(ME), ME, 0, 0))))
                : Map.of();
        return new ClusterImage(index, Map.of(), topics);
    }

    private static void await(final BooleanSupplier condition, final String what) throws InterruptedException {
        Await.until(condition, Duration.ofSeconds(10), what);
    }
}
