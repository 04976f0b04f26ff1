package io.isthmus.broker.transaction;

import static io.isthmus.broker.testkit.TransactionalBatches.transactional;
import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.group.CommittedOffset;
import io.isthmus.broker.group.FileOffsetStore;
import io.isthmus.broker.group.GroupCoordinator;
import io.isthmus.broker.log.SegmentIdAllocator;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.producer.ProducerIdAllocator;
import io.isthmus.broker.producer.ProducerRejectedException;
import io.isthmus.broker.testkit.TestPartitions;
import io.isthmus.broker.testkit.TestTransactions;
import io.isthmus.broker.transaction.TransactionCoordinator.InitResult;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinator's state machine and its durability: every case ends by restarting the coordinator over the same
 * state log, or checks what the partitions and groups hold, not only what the coordinator answers.
 */
class TransactionCoordinatorTest {
    private static final int TIMEOUT_MS = 60_000;
    private static final TopicPartition T0 = new TopicPartition("t", 0);
    private static final TopicPartition T1 = new TopicPartition("t", 1);

    @TempDir
    Path tmp;

    private final AtomicLong nowMs = new AtomicLong(1_700_000_000_000L);
    private final InstantSource clock = () -> Instant.ofEpochMilli(nowMs.get());
    private FileOffsetStore offsets;
    private GroupCoordinator groups;
    private PartitionManager partitions;
    private ProducerIdAllocator producerIds;
    private TransactionCoordinator coordinator;

    @BeforeEach
    void setUp() throws Exception {
        offsets = FileOffsetStore.open(tmp.resolve("offsets"));
        groups = new GroupCoordinator(offsets, new GroupCoordinator.GroupSettings(0, 6_000, 300_000));
        partitions = TestPartitions.start(tmp.resolve("logs"));
        partitions.createTopic("t", 2);
        producerIds = ProducerIdAllocator.open(tmp.resolve("ids"));
        coordinator = start(64 * 1024);
    }

    @AfterEach
    void tearDown() throws Exception {
        coordinator.close();
        partitions.close();
        groups.close();
        offsets.close();
    }

    private TransactionCoordinator start(final int stateLogSegmentBytes) throws Exception {
        return TransactionCoordinator.start(
                tmp.resolve("logs"),
                stateLogSegmentBytes,
                new SegmentIdAllocator(),
                producerIds,
                partitions,
                groups,
                TestTransactions.DEFAULTS,
                clock);
    }

    private void restart() throws Exception {
        coordinator.close();
        coordinator = start(64 * 1024);
    }

    private Partition partition(final TopicPartition topicPartition) {
        return partitions.partition(topicPartition).orElseThrow();
    }

    @Test
    void shouldKeepAnOpenTransactionAcrossARestartAndCommitItAfterwards() throws Exception {
        final InitResult producer = coordinator.initProducerId("tx", TIMEOUT_MS, -1, (short) -1);
        assertThat(coordinator.addPartitions("tx", producer.producerId(), producer.producerEpoch(), List.of(T0), false))
                .containsEntry(T0, Errors.NONE);
        partition(T0).log().append(transactional(producer.producerId(), producer.producerEpoch(), 0, 3), 0);
        assertThat(partition(T0).lastStableOffset()).isZero();

        restart();

        assertThat(coordinator.describe("tx").orElseThrow().state()).isEqualTo(TransactionState.ONGOING);
        assertThat(coordinator.endTransaction("tx", producer.producerId(), producer.producerEpoch(), true))
                .isEqualTo(Errors.NONE);
        assertThat(partition(T0).lastStableOffset()).isEqualTo(4);
        assertThat(partition(T0).log().abortedTransactions(0, 4)).isEmpty();
        restart();
        assertThat(coordinator.describe("tx").orElseThrow().state()).isEqualTo(TransactionState.COMPLETE_COMMIT);
    }

    @Test
    void shouldFinishACommitDecidedBeforeACrashWhenItLoads() throws Exception {
        final InitResult producer = coordinator.initProducerId("tx", TIMEOUT_MS, -1, (short) -1);
        coordinator.addPartitions("tx", producer.producerId(), producer.producerEpoch(), List.of(T0), false);
        partition(T0).log().append(transactional(producer.producerId(), producer.producerEpoch(), 0, 2), 0);
        coordinator.close();
        final CommittedOffset offset = new CommittedOffset(42, -1, "", nowMs.get());
        // What a crash right after writing PrepareCommit leaves: the decision, no markers, no offsets applied.
        try (TransactionStateLog log =
                TransactionStateLog.open(tmp.resolve("logs"), 64 * 1024, new SegmentIdAllocator(), clock)) {
            log.write(new TransactionMetadata(
                    "tx",
                    producer.producerId(),
                    producer.producerEpoch(),
                    TIMEOUT_MS,
                    TransactionState.PREPARE_COMMIT,
                    Set.of(T0),
                    Map.of("g", Map.of(T1, offset)),
                    nowMs.get(),
                    nowMs.get()));
        }

        coordinator = start(64 * 1024);

        assertThat(coordinator.describe("tx").orElseThrow().state()).isEqualTo(TransactionState.COMPLETE_COMMIT);
        assertThat(partition(T0).lastStableOffset())
                .as("the commit marker was written")
                .isEqualTo(3);
        assertThat(groups.committedOffsets("g")).containsEntry(T1, offset);
    }

    @Test
    void shouldApplyTransactionalOffsetsOnCommitOnlyAndReportThemUnstableMeanwhile() throws Exception {
        final InitResult producer = coordinator.initProducerId("tx", TIMEOUT_MS, -1, (short) -1);
        final long id = producer.producerId();
        final short epoch = producer.producerEpoch();
        final CommittedOffset first = new CommittedOffset(10, -1, "", nowMs.get());
        assertThat(coordinator.stageOffsets("tx", id, epoch, "g", Map.of(T0, first)))
                .as("the group was not added")
                .isEqualTo(Errors.INVALID_TXN_STATE);

        assertThat(coordinator.addOffsets("tx", id, epoch, "g")).isEqualTo(Errors.NONE);
        assertThat(coordinator.stageOffsets("tx", id, epoch, "g", Map.of(T0, first)))
                .isEqualTo(Errors.NONE);
        assertThat(coordinator.pendingOffsetPartitions("g")).containsExactly(T0);
        assertThat(coordinator.endTransaction("tx", id, epoch, false)).isEqualTo(Errors.NONE);
        assertThat(groups.committedOffsets("g")).isEmpty();
        assertThat(coordinator.pendingOffsetPartitions("g")).isEmpty();

        final CommittedOffset second = new CommittedOffset(20, -1, "", nowMs.get());
        coordinator.addOffsets("tx", id, epoch, "g");
        coordinator.stageOffsets("tx", id, epoch, "g", Map.of(T0, second));
        restart();
        assertThat(coordinator.pendingOffsetPartitions("g"))
                .as("staged offsets are durable")
                .containsExactly(T0);
        assertThat(coordinator.endTransaction("tx", id, epoch, true)).isEqualTo(Errors.NONE);
        assertThat(groups.committedOffsets("g")).containsEntry(T0, second);
    }

    @Test
    void shouldAbortATimedOutTransactionAndFenceItsProducer() throws Exception {
        final InitResult producer = coordinator.initProducerId("tx", 1_000, -1, (short) -1);
        final long id = producer.producerId();
        final short epoch = producer.producerEpoch();
        coordinator.addPartitions("tx", id, epoch, List.of(T0, T1), false);
        partition(T0).log().append(transactional(id, epoch, 0, 2), 0);

        nowMs.addAndGet(999);
        coordinator.abortTimedOutTransactions();
        assertThat(coordinator.describe("tx").orElseThrow().state()).isEqualTo(TransactionState.ONGOING);

        nowMs.addAndGet(2);
        coordinator.abortTimedOutTransactions();

        assertThat(coordinator.describe("tx").orElseThrow().state()).isEqualTo(TransactionState.COMPLETE_ABORT);
        assertThat(partition(T0).lastStableOffset()).isEqualTo(3);
        assertThat(partition(T0).log().abortedTransactions(0, 3)).hasSize(1);
        assertThat(coordinator.endTransaction("tx", id, epoch, true)).isEqualTo(Errors.PRODUCER_FENCED);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> partition(T0).log().append(transactional(id, epoch, 2, 1), 0))
                .isInstanceOf(ProducerRejectedException.class);
    }

    @Test
    void shouldFenceTheOldProducerAndAbortItsTransactionWhenTheIdIsInitialisedAgain() throws Exception {
        final InitResult old = coordinator.initProducerId("tx", TIMEOUT_MS, -1, (short) -1);
        coordinator.addPartitions("tx", old.producerId(), old.producerEpoch(), List.of(T0), false);
        partition(T0).log().append(transactional(old.producerId(), old.producerEpoch(), 0, 2), 0);

        final InitResult successor = coordinator.initProducerId("tx", TIMEOUT_MS, -1, (short) -1);

        assertThat(successor.producerId()).isEqualTo(old.producerId());
        assertThat(successor.producerEpoch()).isGreaterThan(old.producerEpoch());
        assertThat(partition(T0).lastStableOffset()).isEqualTo(3);
        assertThat(coordinator.addPartitions("tx", old.producerId(), old.producerEpoch(), List.of(T0), false))
                .containsEntry(T0, Errors.PRODUCER_FENCED);
        assertThat(coordinator
                        .initProducerId("tx", TIMEOUT_MS, old.producerId(), old.producerEpoch())
                        .error())
                .as("a KIP-360 bump from a fenced epoch")
                .isEqualTo(Errors.PRODUCER_FENCED);
    }

    @Test
    void shouldAnswerBadRequestsWithKafkasErrorsAndKeepServing() throws Exception {
        assertThat(coordinator.endTransaction("unknown", 1, (short) 0, true))
                .isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING);
        final InitResult producer = coordinator.initProducerId("tx", TIMEOUT_MS, -1, (short) -1);
        final long id = producer.producerId();
        final short epoch = producer.producerEpoch();
        assertThat(coordinator.endTransaction("tx", id, epoch, true))
                .as("nothing to commit")
                .isEqualTo(Errors.INVALID_TXN_STATE);
        assertThat(coordinator.endTransaction("tx", id, (short) (epoch - 1), true))
                .isEqualTo(Errors.PRODUCER_FENCED);
        assertThat(coordinator.endTransaction("tx", id + 1, epoch, true)).isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING);
        assertThat(coordinator.initProducerId("tx", 0, -1, (short) -1).error())
                .isEqualTo(Errors.INVALID_TRANSACTION_TIMEOUT);

        final TopicPartition missing = new TopicPartition("no-such-topic", 0);
        assertThat(coordinator.addPartitions("tx", id, epoch, List.of(T0, missing), false))
                .containsEntry(missing, Errors.UNKNOWN_TOPIC_OR_PARTITION)
                .containsEntry(T0, Errors.OPERATION_NOT_ATTEMPTED);

        final List<TopicPartition> tenThousand = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            tenThousand.add(new TopicPartition("t", i));
        }
        final Map<TopicPartition, Errors> verdicts = coordinator.addPartitions("tx", id, epoch, tenThousand, false);
        assertThat(verdicts).hasSize(10_000).containsEntry(T0, Errors.OPERATION_NOT_ATTEMPTED);
        assertThat(verdicts.values().stream().filter(e -> e == Errors.UNKNOWN_TOPIC_OR_PARTITION))
                .hasSize(9_998);
        assertThat(coordinator.describe("tx").orElseThrow().state())
                .as("nothing was added")
                .isEqualTo(TransactionState.EMPTY);

        assertThat(coordinator.addPartitions("tx", id, epoch, List.of(T0, T1), false))
                .containsEntry(T0, Errors.NONE)
                .containsEntry(T1, Errors.NONE);
        assertThat(coordinator.endTransaction("tx", id, epoch, true)).isEqualTo(Errors.NONE);
        assertThat(coordinator.endTransaction("tx", id, epoch, true))
                .as("a retried commit")
                .isEqualTo(Errors.NONE);
        assertThat(coordinator.endTransaction("tx", id, epoch, false))
                .as("an abort after the commit")
                .isEqualTo(Errors.INVALID_TXN_STATE);
    }

    @Test
    void shouldRewriteLiveStatesAndDropOldSegmentsAsTheStateLogGrows() throws Exception {
        coordinator.close();
        coordinator = start(8 * 1024);
        InitResult last = null;
        for (int i = 0; i < 2_000; i++) {
            last = coordinator.initProducerId("busy", TIMEOUT_MS, -1, (short) -1);
            coordinator.initProducerId("other-" + (i % 3), TIMEOUT_MS, -1, (short) -1);
        }
        coordinator.close();
        final Path stateLog =
                tmp.resolve("logs").resolve(TransactionStateLog.TOPIC).resolve(TransactionStateLog.PARTITION);
        try (var files = java.nio.file.Files.list(stateLog)) {
            assertThat(files.filter(f -> f.toString().endsWith(".log")).count())
                    .as("compaction keeps a few segments, not the %d records' worth", 4_000)
                    .isLessThanOrEqualTo(3);
        }

        coordinator = start(8 * 1024);

        assertThat(coordinator.describe("busy").orElseThrow().producerEpoch()).isEqualTo(last.producerEpoch());
        assertThat(coordinator.list(description -> true)).hasSize(4);
    }

    @Test
    void shouldForgetIdleTransactionalIdsAfterTheirExpiration() throws Exception {
        coordinator.initProducerId("idle", TIMEOUT_MS, -1, (short) -1);
        final InitResult busy = coordinator.initProducerId("busy", TIMEOUT_MS, -1, (short) -1);
        coordinator.addPartitions("busy", busy.producerId(), busy.producerEpoch(), List.of(T0), false);

        nowMs.addAndGet(TestTransactions.DEFAULTS.idExpirationMs() + 1);
        coordinator.removeExpiredTransactionalIds();
        restart();

        assertThat(coordinator.describe("idle")).isEmpty();
        assertThat(coordinator.describe("busy"))
                .as("an open transaction keeps its id")
                .isPresent();
    }
}
