package io.isthmus.broker.partition;

import static io.isthmus.broker.testkit.KafkaBatches.plain;
import static io.isthmus.broker.testkit.KafkaBatches.segment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.log.LogManager;
import io.isthmus.broker.log.PartitionLog;
import io.isthmus.broker.testkit.Await;
import io.isthmus.broker.testkit.TestPartitions;
import io.isthmus.broker.topic.TopicRegistry;
import io.isthmus.broker.topic.TopicRegistry.TopicInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionManagerTest {
    @TempDir
    Path tmp;

    @Test
    void shouldCreateEveryPartitionOfATopic() throws Exception {
        try (PartitionManager manager = TestPartitions.start(tmp)) {
            final TopicInfo topic = manager.createTopic("orders", 3);

            assertThat(manager.partitions()).hasSize(3);
            for (int p = 0; p < 3; p++) {
                final Partition partition =
                        manager.partition(new TopicPartition("orders", p)).orElseThrow();
                assertThat(partition.topicId()).isEqualTo(topic.id());
                assertThat(partition.logEndOffset()).isZero();
            }
            assertThat(manager.partition(new TopicPartition("orders", 3))).isEmpty();
            assertThat(manager.topics().byName("orders")).contains(topic);
        }
    }

    @Test
    void shouldRefuseADuplicateOrInvalidTopicAndCreateNoLog() throws Exception {
        try (PartitionManager manager = TestPartitions.start(tmp)) {
            manager.createTopic("orders", 1);

            assertThatThrownBy(() -> manager.createTopic("orders", 2)).isInstanceOf(TopicExistsException.class);
            assertThatThrownBy(() -> manager.createTopic("bad name", 1)).isInstanceOf(InvalidTopicException.class);

            assertThat(manager.partitions()).hasSize(1);
            assertThat(tmp.resolve("orders-1")).doesNotExist();
        }
    }

    @Test
    void aTopicWhoseLogCannotBeCreatedIsNotRegisteredAndTheBrokerStillStarts() throws Exception {
        Files.writeString(tmp.resolve("doomed-1"), "a file where partition 1's directory must go");
        try (PartitionManager manager = TestPartitions.start(tmp)) {
            assertThatThrownBy(() -> manager.createTopic("doomed", 3))
                    .hasMessageContaining("cannot create topic: topic=doomed")
                    .hasMessageContaining("logs created before the failure=1");

            assertThat(manager.topics().byName("doomed")).isEmpty();
            assertThat(manager.partitions()).isEmpty();
            assertThat(tmp.resolve("doomed-0")).doesNotExist();
        }
        try (PartitionManager restarted = TestPartitions.start(tmp)) {
            assertThat(restarted.topics().topics()).isEmpty();
            Files.delete(tmp.resolve("doomed-1"));
            assertThat(restarted.createTopic("doomed", 3).partitions()).isEqualTo(3);
        }
    }

    @Test
    void creationsPastMaxBrokerPartitionsAreRefusedAndTheOnesWithinAreNot() throws Exception {
        try (PartitionManager manager = TestPartitions.start(tmp, 5)) {
            manager.createTopic("orders", 3);

            assertThatThrownBy(() -> manager.createTopic("payments", 3))
                    .isInstanceOf(PolicyViolationException.class)
                    .hasMessageContaining("this broker holds 3 partitions and max.broker.partitions is 5");
            assertThatThrownBy(() -> manager.createPartitions("orders", 6, topic -> {}))
                    .isInstanceOf(PolicyViolationException.class);
            assertThat(tmp.resolve("payments-0")).doesNotExist();
            assertThat(tmp.resolve("orders-3")).doesNotExist();

            manager.createPartitions("orders", 4, topic -> {});
            manager.createTopic("payments", 1);
            assertThat(manager.partitions()).hasSize(5);
        }
        try (PartitionManager lowered = TestPartitions.start(tmp, 2)) {
            assertThat(lowered.partitions())
                    .as("a lowered limit keeps serving what exists")
                    .hasSize(5);
            assertThatThrownBy(() -> lowered.createTopic("more", 1)).isInstanceOf(PolicyViolationException.class);
        }
    }

    @Test
    void shouldDeleteATopicWithItsLogsAndWakeWaitingFetches() throws Exception {
        final LogManager logs = LogManager.fromConfig(
                Map.of(LogManager.LOG_DIRS, tmp.toString(), "log.segment.bytes", Integer.toString(1024 * 1024)),
                InstantSource.system());
        try (PartitionManager manager = PartitionManager.start(logs, TopicRegistry.open(tmp))) {
            manager.createTopic("orders", 2);
            final Partition p0 =
                    manager.partition(new TopicPartition("orders", 0)).orElseThrow();
            p0.appendFromClient(segment(plain("x", 2, 1L)));
            final AtomicInteger woken = new AtomicInteger();
            p0.awaitAppend(2, woken::incrementAndGet);

            manager.deleteTopic("orders");

            assertThat(woken).hasValue(1);
            assertThat(manager.partitions()).isEmpty();
            assertThat(manager.topics().byName("orders")).isEmpty();
            // A segment a reader still holds (the pre-toucher warming a new one, say) is deleted when it lets go, and
            // the directory then by the next retention pass: the files go, just not always at once.
            Await.until(
                    () -> {
                        logs.runRetention();
                        return !Files.exists(tmp.resolve("orders-0")) && !Files.exists(tmp.resolve("orders-1"));
                    },
                    java.time.Duration.ofSeconds(10),
                    "the deleted topic's directories are gone after retention passes");
            assertThat(tmp.resolve("orders-0")).doesNotExist();
            assertThat(tmp.resolve("orders-1")).doesNotExist();
            assertThatThrownBy(() -> manager.deleteTopic("orders"))
                    .isInstanceOf(UnknownTopicOrPartitionException.class);
        }
        try (PartitionManager reopened = TestPartitions.start(tmp)) {
            assertThat(reopened.partitions()).isEmpty();
        }
    }

    @Test
    void shouldReopenTopicsWithTheirData() throws Exception {
        final TopicInfo created;
        try (PartitionManager manager = TestPartitions.start(tmp)) {
            created = manager.createTopic("orders", 2);
            manager.partition(new TopicPartition("orders", 1))
                    .orElseThrow()
                    .appendFromClient(segment(plain("x", 4, 1L)));
        }

        try (PartitionManager reopened = TestPartitions.start(tmp)) {
            final Partition p1 =
                    reopened.partition(new TopicPartition("orders", 1)).orElseThrow();
            assertThat(p1.logEndOffset()).isEqualTo(4);
            assertThat(p1.topicId()).isEqualTo(created.id());
            assertThat(reopened.partitions()).hasSize(2);
        }
    }

    @Test
    void shouldAddPartitionsWithEmptyLogsAndKeepTheOldOnesData() throws Exception {
        try (PartitionManager manager = TestPartitions.start(tmp)) {
            final TopicInfo created = manager.createTopic("orders", 2);
            manager.partition(new TopicPartition("orders", 0))
                    .orElseThrow()
                    .appendFromClient(segment(plain("x", 3, 1L)));

            final TopicInfo grown = manager.createPartitions("orders", 4, topic -> {});

            assertThat(grown).isEqualTo(new TopicInfo("orders", created.id(), 4));
            assertThat(manager.partitions()).hasSize(4);
            final Partition p3 =
                    manager.partition(new TopicPartition("orders", 3)).orElseThrow();
            assertThat(p3.topicId()).isEqualTo(created.id());
            assertThat(p3.appendFromClient(segment(plain("y", 2, 1L))).baseOffset())
                    .isZero();
            assertThat(manager.partition(new TopicPartition("orders", 0))
                            .orElseThrow()
                            .logEndOffset())
                    .isEqualTo(3);
        }
        try (PartitionManager reopened = TestPartitions.start(tmp)) {
            assertThat(reopened.partitions()).hasSize(4);
            assertThat(reopened.partition(new TopicPartition("orders", 3))
                            .orElseThrow()
                            .logEndOffset())
                    .isEqualTo(2);
        }
    }

    @Test
    void shouldCheckThePreconditionAgainstTheTopicAsItIsAndChangeNothingWhenItRefuses() throws Exception {
        try (PartitionManager manager = TestPartitions.start(tmp)) {
            manager.createTopic("orders", 2);
            final List<TopicInfo> seen = new ArrayList<>();

            assertThatThrownBy(() -> manager.createPartitions("orders", 3, topic -> {
                        seen.add(topic);
                        throw new InvalidReplicaAssignmentException("refused by the test");
                    }))
                    .isInstanceOf(InvalidReplicaAssignmentException.class);

            assertThat(seen).extracting(TopicInfo::partitions).containsExactly(2);
            assertThat(manager.topics().byName("orders").orElseThrow().partitions())
                    .isEqualTo(2);
            assertThat(tmp.resolve("orders-2")).doesNotExist();
        }
    }

    @Test
    void shouldDeleteTheNewLogsAgainWhenOneCannotBeCreated() throws Exception {
        try (PartitionManager manager = TestPartitions.start(tmp)) {
            manager.createTopic("orders", 2);
            // A file where partition 4's directory must go: partitions 2 and 3 get their logs, then 4 fails.
            Files.writeString(tmp.resolve("orders-4"), "in the way");

            assertThatThrownBy(() -> manager.createPartitions("orders", 6, topic -> {}))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("topic=orders")
                    .hasMessageContaining("partitions 2 -> 6")
                    .hasMessageContaining("logs created before the failure=2")
                    .rootCause()
                    .hasMessageContaining("orders-4");

            assertThat(manager.topics().byName("orders").orElseThrow().partitions())
                    .isEqualTo(2);
            assertThat(manager.partitions()).hasSize(2);
            assertThat(tmp.resolve("orders-2")).doesNotExist();
            assertThat(tmp.resolve("orders-3")).doesNotExist();

            Files.delete(tmp.resolve("orders-4"));
            manager.createPartitions("orders", 6, topic -> {});
            assertThat(manager.partitions()).hasSize(6);
        }
    }

    @Test
    void shouldDeleteTheNewLogsAgainWhenTheCountCannotBeRecorded() throws Exception {
        try (PartitionManager manager = TestPartitions.start(tmp)) {
            manager.createTopic("orders", 1);
            // The registry writes its new list to this temporary file first; a directory there makes that fail.
            Files.createDirectories(tmp.resolve("isthmus-topics.tmp").resolve("blocker"));

            assertThatThrownBy(() -> manager.createPartitions("orders", 3, topic -> {}))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("the topic keeps 1 partitions")
                    .hasRootCauseInstanceOf(java.io.IOException.class);

            assertThat(manager.topics().byName("orders").orElseThrow().partitions())
                    .isEqualTo(1);
            assertThat(manager.partition(new TopicPartition("orders", 1))).isEmpty();
            assertThat(tmp.resolve("orders-1")).doesNotExist();
            assertThat(tmp.resolve("orders-2")).doesNotExist();
        }
        try (PartitionManager reopened = TestPartitions.start(tmp)) {
            assertThat(reopened.partitions()).hasSize(1);
        }
    }

    @Test
    void shouldDeleteALogThatNoRegisteredTopicOwnsAtStart() throws Exception {
        // A crash after the registry forgot the topic but before its logs were deleted.
        final LogManager logs =
                LogManager.fromConfig(Map.of(LogManager.LOG_DIRS, tmp.toString()), InstantSource.system());
        logs.startup();
        final PartitionLog stray = logs.getOrCreateLog(new io.isthmus.broker.log.TopicPartition("stray", 0));
        stray.append(segment(plain("x", 1, 1L)), 0);
        logs.close();
        assertThat(tmp.resolve("stray-0")).isDirectory();

        try (PartitionManager manager = TestPartitions.start(tmp)) {
            assertThat(manager.partitions()).isEmpty();
            assertThat(tmp.resolve("stray-0")).doesNotExist();
        }
    }

    @Test
    void shouldGiveARegisteredTopicWhoseLogsAreMissingEmptyLogs() throws Exception {
        // A crash after the topic was registered but before its logs were created.
        final TopicInfo registered = TopicRegistry.open(tmp).create("orders", 2);
        assertThat(Files.exists(tmp.resolve("orders-0"))).isFalse();

        try (PartitionManager manager = TestPartitions.start(tmp)) {
            assertThat(manager.partitions()).hasSize(2);
            final Partition p0 =
                    manager.partition(new TopicPartition("orders", 0)).orElseThrow();
            assertThat(p0.logEndOffset()).isZero();
            assertThat(p0.topicId()).isEqualTo(registered.id());
            assertThat(p0.appendFromClient(segment(plain("x", 1, 1L))).baseOffset())
                    .isZero();
        }
    }
}
