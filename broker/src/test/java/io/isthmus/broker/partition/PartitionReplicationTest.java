package io.isthmus.broker.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.log.LogReadResult;
import io.isthmus.broker.log.PartitionLog;
import io.isthmus.broker.testkit.KafkaBatches;
import io.isthmus.broker.testkit.TestPartitions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition led here with two followers: the high watermark from the followers' fetches, acks=all waiting for it,
 * the ISR changes the leader asks for, and a follower that takes no client append. The quorum is a recording fake:
 * the ISR changes are what is under test, not their transport.
 */
class PartitionReplicationTest {
    private static final int ME = 1;
    private static final List<Integer> REPLICAS = List.of(1, 2, 3);

    @TempDir
    Path dir;

    private PartitionManager partitions;
    private Partition partition;
    private final RecordingIsrChanges quorum = new RecordingIsrChanges();

    /** Records each change asked for; the test answers it. */
    private static final class RecordingIsrChanges implements IsrChanges {
        final List<List<Integer>> asked = new ArrayList<>();
        final List<CompletableFuture<Answer>> answers = new ArrayList<>();
        boolean mayJoin = true;

        @Override
        public synchronized CompletableFuture<Answer> alter(
                final Partition partition, final int leaderEpoch, final int partitionEpoch, final List<Integer> isr) {
            asked.add(isr);
            final CompletableFuture<Answer> answer = new CompletableFuture<>();
            answers.add(answer);
            return answer;
        }

        @Override
        public boolean mayJoin(final int brokerId) {
            return mayJoin;
        }
    }

    @BeforeEach
    void setUp() throws Exception {
        partitions = TestPartitions.startForCluster(dir);
        partition = TestPartitions.hostOnePartition(partitions, "orders");
        partition.becomeReplicatedLeader(ME, 4, 7, REPLICAS, REPLICAS, quorum, System.currentTimeMillis());
    }

    @AfterEach
    void tearDown() throws Exception {
        partitions.close();
    }

    private Partition.ProduceOutcome append(final int records) {
        return partition.appendFromClient(KafkaBatches.segment(KafkaBatches.plain("v", records, 1_000L)));
    }

    @Test
    void theHighWatermarkIsWhatEveryInSyncReplicaHolds() {
        append(5);
        assertThat(partition.highWatermark()).isZero();

        partition.onFollowerFetch(2, 5, System.currentTimeMillis());
        assertThat(partition.highWatermark()).as("one follower of two").isZero();
        partition.onFollowerFetch(3, 3, System.currentTimeMillis());

        assertThat(partition.highWatermark()).isEqualTo(3);
        partition.onFollowerFetch(3, 5, System.currentTimeMillis());
        assertThat(partition.highWatermark()).isEqualTo(5);
        assertThat(partition.log().latestEpoch()).isEqualTo(4);
    }

    @Test
    void aPushAckIsTheFollowersProgressOnlyInTheLeaderEpochItWasPushedInAndWithinTheLog() {
        append(5);
        final long now = System.currentTimeMillis();
        partition.onFollowerFetch(3, 5, now);

        assertThat(partition.onFollowerPush(2, 5, 3, now))
                .as("an ack to an older leadership's push")
                .isFalse();
        assertThat(partition.onFollowerPush(2, 6, 4, now))
                .as("past this log's end")
                .isFalse();
        assertThat(partition.highWatermark()).isZero();

        assertThat(partition.onFollowerPush(2, 4, 4, now)).isTrue();
        assertThat(partition.highWatermark()).isEqualTo(4);
        assertThat(partition.onFollowerPush(2, 5, 4, now)).isTrue();
        assertThat(partition.highWatermark())
                .as("both followers hold every record")
                .isEqualTo(5);
    }

    @Test
    void aPushedFollowersLateFetchesKeepItInSyncWhileNothingIsPushedInsteadOfMovingItsProgressBack() {
        append(5);
        final long start = System.currentTimeMillis();
        partition.onFollowerPush(2, 5, 4, start);
        partition.onFollowerFetch(3, 5, start);

        // Idle for longer than the lag allowed: follower 2 gets nothing pushed, its fetches (sent at offsets read
        // before its last ack) still say it is caught up.
        partition.onPushedFollowerFetch(2, 3, start + 10_000);
        partition.onFollowerFetch(3, 5, start + 10_000);
        partition.maybeShrinkIsr(start + 10_000, 5_000);
        assertThat(quorum.asked)
                .as("no follower dropped: follower 2 holds the 5 records its ack said, not the 3 its fetch was sent at")
                .isEmpty();
    }

    @Test
    void oneSidedReadersReadUpToTheHighWatermarkAndTheirSlotsAreRepublishedWhenItMoves() {
        final AtomicInteger observed = new AtomicInteger();
        partition.addAppendObserver(observed::incrementAndGet);
        append(5);
        final long firstBatchEnd = partition.log().activeSegment().committedPosition();
        append(3);
        assertThat(partition.readablePosition(partition.log().activeSegment())).isZero();

        final int beforeFetches = observed.get();
        partition.onFollowerFetch(2, 5, System.currentTimeMillis());
        partition.onFollowerFetch(3, 5, System.currentTimeMillis());
        assertThat(partition.highWatermark()).isEqualTo(5);
        assertThat(observed.get())
                .as("the observers (the slots) run when the high watermark moves, without an append")
                .isGreaterThan(beforeFetches);
        assertThat(partition.readablePosition(partition.log().activeSegment())).isEqualTo(firstBatchEnd);

        partition.onFollowerFetch(2, 8, System.currentTimeMillis());
        partition.onFollowerFetch(3, 8, System.currentTimeMillis());
        assertThat(partition.readablePosition(partition.log().activeSegment()))
                .isEqualTo(partition.log().activeSegment().committedPosition());
    }

    @Test
    void aReplicaAReassignmentAddsInTheSameLeaderEpochIsTrackedAndJoinsTheIsrOnceCaughtUp() {
        append(5);
        partition.onFollowerFetch(2, 5, System.currentTimeMillis());
        partition.onFollowerFetch(3, 5, System.currentTimeMillis());
        assertThat(partition.onFollowerFetch(4, 0, System.currentTimeMillis()))
                .as("broker 4 is no replica yet")
                .isFalse();

        // The quorum starts moving the partition to [1, 2, 4]: 4 is added, 3 is leaving; same leader epoch.
        partition.becomeReplicatedLeader(ME, 4, 8, List.of(1, 2, 4, 3), REPLICAS, quorum, System.currentTimeMillis());
        assertThat(partition.onFollowerFetch(4, 0, System.currentTimeMillis()))
                .as("the added replica's fetch is taken")
                .isTrue();
        assertThat(quorum.asked).as("behind: not asked in yet").isEmpty();
        assertThat(partition.highWatermark())
                .as("a replica outside the ISR holds nothing up")
                .isEqualTo(5);

        partition.onFollowerFetch(4, 5, System.currentTimeMillis());
        assertThat(quorum.asked).containsExactly(List.of(1, 2, 3, 4));

        // Metadata older than what the leader knows does not take the replica away again.
        partition.becomeReplicatedLeader(ME, 4, 7, REPLICAS, REPLICAS, quorum, System.currentTimeMillis());
        assertThat(partition.onFollowerFetch(4, 5, System.currentTimeMillis())).isTrue();
    }

    @Test
    void aConsumerReadsBelowTheHighWatermarkOnlyAndAFollowerToTheLogEnd() {
        append(2);
        append(3);
        // Followers fetch at batch boundaries, so the high watermark always lies on one.
        partition.onFollowerFetch(2, 2, System.currentTimeMillis());
        partition.onFollowerFetch(3, 2, System.currentTimeMillis());

        try (LogReadResult consumer = partition.read(0, 1 << 20, false)) {
            assertThat(consumer.nextOffset()).isEqualTo(2);
            assertThat(consumer.highWatermark()).isEqualTo(2);
        }
        try (LogReadResult atHighWatermark = partition.read(2, 1 << 20, false)) {
            assertThat(atHighWatermark.isEmpty()).isTrue();
        }
        try (LogReadResult follower = partition.read(0, 1 << 20, io.isthmus.broker.log.FetchIsolation.LOG_END)) {
            assertThat(follower.nextOffset()).isEqualTo(5);
        }
    }

    @Test
    void acksAllIsAnsweredOnceTheHighWatermarkPassesTheAppend() {
        final Partition.ProduceOutcome appended = append(4);
        final CompletableFuture<Errors> replicated =
                partition.awaitReplication(appended.lastOffset(), appended.leaderEpoch(), 2, 10_000);
        assertThat(replicated).isNotDone();

        partition.onFollowerFetch(2, 4, System.currentTimeMillis());
        assertThat(replicated).isNotDone();
        partition.onFollowerFetch(3, 4, System.currentTimeMillis());

        assertThat(replicated).isCompletedWithValue(Errors.NONE);
    }

    @Test
    void acksAllTimesOutAndFailsWhenLeadershipMoves() throws Exception {
        final Partition.ProduceOutcome first = append(1);
        final CompletableFuture<Errors> timesOut =
                partition.awaitReplication(first.lastOffset(), first.leaderEpoch(), 2, 50);
        assertThat(timesOut.get(5, TimeUnit.SECONDS)).isEqualTo(Errors.REQUEST_TIMED_OUT);

        final Partition.ProduceOutcome second = append(1);
        final CompletableFuture<Errors> moved =
                partition.awaitReplication(second.lastOffset(), second.leaderEpoch(), 2, 10_000);
        partition.becomeFollower(5);

        assertThat(moved).isCompletedWithValue(Errors.NOT_LEADER_OR_FOLLOWER);
        assertThat(append(1).error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        assertThat(partition.logEndOffset()).isEqualTo(2);
    }

    @Test
    void anAppendWhoseLeadershipMovedBeforeItWaitedIsNotAcknowledged() {
        final Partition.ProduceOutcome appended = append(2);
        partition.becomeFollower(5);

        assertThat(partition.awaitReplication(appended.lastOffset(), appended.leaderEpoch(), 2, 10_000))
                .isCompletedWithValue(Errors.NOT_LEADER_OR_FOLLOWER);
        // Leader again in a newer epoch: the offsets may have been truncated and reused meanwhile.
        partition.becomeReplicatedLeader(ME, 6, 9, REPLICAS, REPLICAS, quorum, System.currentTimeMillis());
        assertThat(partition.awaitReplication(appended.lastOffset(), appended.leaderEpoch(), 2, 10_000))
                .isCompletedWithValue(Errors.NOT_LEADER_OR_FOLLOWER);
    }

    @Test
    void anRdmaWriteIsCommittedOnlyWithinTheLeaderEpochItsAccessWasGrantedIn() {
        final java.lang.foreign.MemorySegment staged = KafkaBatches.segment(KafkaBatches.plain("rdma", 3, 1_000L));
        final int segmentId = partition.log().activeSegment().id();
        assertThat(partition.commitStaged(segmentId, 0, staged, false, 4).firstOffset())
                .isZero();
        final long tail = partition.log().activeSegment().committedPosition();

        // Granted in an earlier epoch (the leadership moved away and came back): nothing committed.
        partition.becomeReplicatedLeader(ME, 5, 8, REPLICAS, REPLICAS, quorum, System.currentTimeMillis());
        assertThatThrownBy(() -> partition.commitStaged(segmentId, tail, staged, false, 4))
                .isInstanceOf(org.apache.kafka.common.errors.NotLeaderOrFollowerException.class)
                .hasMessageContaining("granted in leader epoch 4")
                .hasMessageContaining("leads in epoch 5");
        // A follower commits no write, whatever epoch it names.
        partition.becomeFollower(6);
        assertThatThrownBy(() -> partition.commitStaged(segmentId, tail, staged, false, 6))
                .isInstanceOf(org.apache.kafka.common.errors.NotLeaderOrFollowerException.class)
                .hasMessageContaining("follows");
        assertThat(partition.logEndOffset()).isEqualTo(3);
        assertThat(partition.log().activeSegment().committedPosition()).isEqualTo(tail);
    }

    @Test
    void anExpansionWhoseAnswerNeverCameKeepsCountingItsMemberUntilTheMetadataMovesOn() {
        partition.becomeReplicatedLeader(ME, 5, 8, REPLICAS, List.of(1, 2), quorum, System.currentTimeMillis());
        append(3);
        partition.onFollowerFetch(2, 3, System.currentTimeMillis());
        partition.onFollowerFetch(3, 3, System.currentTimeMillis());
        assertThat(quorum.asked).containsExactly(List.of(1, 2, 3));

        quorum.answers.getFirst().completeExceptionally(new java.util.concurrent.TimeoutException("no answer"));
        append(2);
        partition.onFollowerFetch(2, 5, System.currentTimeMillis());

        assertThat(partition.inSyncReplicas()).as("it may have been committed").containsExactly(1, 2, 3);
        assertThat(partition.highWatermark())
                .as("so broker 3 still holds the high watermark back")
                .isEqualTo(3);
        // The metadata shows a newer partition epoch without broker 3: the change was not made after all.
        partition.becomeReplicatedLeader(ME, 5, 9, REPLICAS, List.of(1, 2), quorum, System.currentTimeMillis());
        assertThat(partition.inSyncReplicas()).containsExactly(1, 2);
    }

    @Test
    void aFollowerThatStopsCatchingUpIsAskedOutOfTheIsrAndTheHighWatermarkMovesOnceAgreed() {
        append(3);
        final long start = System.currentTimeMillis();
        partition.onFollowerFetch(2, 3, start);
        partition.onFollowerFetch(3, 0, start);
        assertThat(partition.highWatermark()).isZero();

        partition.onFollowerFetch(2, 3, start + 60_000);
        partition.maybeShrinkIsr(start + 60_000, 30_000);

        assertThat(quorum.asked).containsExactly(List.of(1, 2));
        assertThat(partition.highWatermark()).as("not before the quorum agrees").isZero();
        quorum.answers.getFirst().complete(new IsrChanges.Answer(Errors.NONE, List.of(1, 2), 8));
        assertThat(partition.inSyncReplicas()).containsExactly(1, 2);
        assertThat(partition.highWatermark()).isEqualTo(3);
    }

    @Test
    void aFollowerThatCaughtUpIsAskedBackIntoTheIsrOnlyIfTheQuorumWouldTakeIt() {
        partition.becomeReplicatedLeader(ME, 5, 8, REPLICAS, List.of(1, 2), quorum, System.currentTimeMillis());
        append(3);
        partition.onFollowerFetch(2, 3, System.currentTimeMillis());
        assertThat(partition.highWatermark()).isEqualTo(3);

        quorum.mayJoin = false;
        partition.onFollowerFetch(3, 3, System.currentTimeMillis());
        assertThat(quorum.asked).as("a fenced broker is not asked for").isEmpty();

        quorum.mayJoin = true;
        partition.onFollowerFetch(3, 3, System.currentTimeMillis());
        partition.onFollowerFetch(3, 3, System.currentTimeMillis());
        assertThat(quorum.asked).as("one change in flight at a time").containsExactly(List.of(1, 2, 3));
        assertThat(partition.inSyncReplicas())
                .as("counted at once (maximal ISR)")
                .containsExactly(1, 2, 3);
    }

    @Test
    void aFollowerTakesOnlyTheLeadersBatchesAndTheLeadersHighWatermark() throws Exception {
        partition.becomeFollower(5);
        final Path leaderDir = dir.resolve("leader");
        try (PartitionLog leader = PartitionLog.open(
                leaderDir.resolve("orders-0"),
                io.isthmus.broker.log.LogConfig.defaults(),
                new io.isthmus.broker.log.SegmentIdAllocator(),
                java.time.InstantSource.system())) {
            leader.assignLeaderEpoch(5);
            leader.append(KafkaBatches.segment(KafkaBatches.plain("l", 4, 1_000L)), 5);
            try (LogReadResult fetched = leader.read(0, 1 << 20)) {
                partition.appendAsFollower(fetched.records());
            }
        }
        partition.followerHighWatermark(9);

        assertThat(partition.logEndOffset()).isEqualTo(4);
        assertThat(partition.highWatermark()).isEqualTo(4);
        assertThat(partition.log().latestEpoch()).isEqualTo(5);
        partition.becomeReplicatedLeader(ME, 6, 9, REPLICAS, REPLICAS, quorum, System.currentTimeMillis());
        assertThatThrownBy(() -> partition.truncateTo(0)).isInstanceOf(IllegalStateException.class);
    }
}
