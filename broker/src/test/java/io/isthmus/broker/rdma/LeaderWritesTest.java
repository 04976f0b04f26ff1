package io.isthmus.broker.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.log.AppendInfo;
import io.isthmus.broker.partition.LeaderAccess;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.PartitionLeadership;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.testkit.KafkaBatches;
import io.isthmus.broker.testkit.NoQuorum;
import io.isthmus.broker.testkit.TestPartitions;
import io.isthmus.protocol.control.ControlErrorCodes;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader's rules for RDMA writes on a cluster, without a device: a partition led here with two followers whose
 * fetches the test makes, the acks recorded, and the datapath thread played by a queue the test drains (acks are sent
 * only from there). The grants themselves need a device and are tested in the Soft-RoCE guest ({@code ClusterModeTest}).
 */
class LeaderWritesTest {
    private static final int ME = 1;
    private static final List<Integer> REPLICAS = List.of(1, 2, 3);
    private static final int EPOCH = 4;

    @TempDir
    Path dir;

    private PartitionManager partitions;
    private Partition partition;
    private final List<Ack> acks = new ArrayList<>();
    private final BlockingQueue<Runnable> datapathTasks = new LinkedBlockingQueue<>();
    private LeaderWrites writes;
    /** The grant's answers, in its order. */
    private final AnswerQueue answers = new AnswerQueue(8);

    private record Ack(long baseOffset, int immediate, short errorCode) {}

    /** Leads what the partition says it leads, in its own epoch: what the metadata image tells a cluster's broker. */
    private static final PartitionLeadership AS_THE_PARTITION_SAYS = new PartitionLeadership() {
        @Override
        public Errors check(final Partition partition, final int currentLeaderEpoch) {
            return !partition.isFollower() && partition.leaderEpoch() == currentLeaderEpoch
                    ? Errors.NONE
                    : Errors.NOT_LEADER_OR_FOLLOWER;
        }

        @Override
        public boolean heldElsewhere(final TopicPartition partition) {
            return true;
        }
    };

    @BeforeEach
    void setUp() throws Exception {
        partitions = TestPartitions.startForCluster(dir);
        partition = TestPartitions.hostOnePartition(partitions, "orders");
        partition.becomeReplicatedLeader(
                ME, EPOCH, 7, REPLICAS, REPLICAS, NoQuorum.ISR_CHANGES, System.currentTimeMillis());
        writes = new LeaderWrites(new LeaderAccess(AS_THE_PARTITION_SAYS, 2), this::recordAck, datapathTasks::add);
    }

    private void recordAck(
            final RdmaSession session, final long baseOffset, final int immediate, final short errorCode) {
        assertThat(Thread.currentThread().getName())
                .as("acks go out from the datapath thread only")
                .isEqualTo("datapath");
        acks.add(new Ack(baseOffset, immediate, errorCode));
    }

    @AfterEach
    void tearDown() throws Exception {
        partitions.close();
    }

    /** Commits a batch of {@code records} as an RDMA write granted in {@code epoch}. */
    private AppendInfo commit(final int records, final int epoch) {
        return partition.commitStaged(
                partition.log().activeSegment().id(),
                partition.log().activeSegment().committedPosition(),
                KafkaBatches.segment(KafkaBatches.plain("rdma", records, 1_000L)),
                false,
                epoch);
    }

    /** Runs what was handed to the datapath thread, on a thread named for it. */
    private void runDatapath() throws InterruptedException {
        final Thread datapath = Thread.ofPlatform().name("datapath").start(() -> {
            Runnable task;
            while ((task = datapathTasks.poll()) != null) {
                task.run();
            }
        });
        datapath.join();
    }

    /** Runs {@code answer} as the datapath thread would (sole-broker and acks=1 answers come at once from there). */
    private void onDatapath(final Runnable answer) throws InterruptedException {
        datapathTasks.add(answer);
        runDatapath();
    }

    @Test
    void anAcksAllWriteIsAnsweredOnlyOnceEveryInSyncReplicaHoldsIt() throws Exception {
        final ProduceTerms all = new ProduceTerms(EPOCH, (short) -1, 30_000);
        assertThat(writes.admit(partition, all)).isEmpty();
        final AppendInfo info = commit(3, EPOCH);
        writes.committed(null, partition, all, answers, info, 11, ControlErrorCodes.NONE);
        runDatapath();
        assertThat(acks).as("no answer before the followers have the batch").isEmpty();
        assertThat(writes.awaitingReplication()).isEqualTo(1);

        partition.onFollowerFetch(2, 3, System.currentTimeMillis());
        runDatapath();
        assertThat(acks)
                .as("one of two followers holds it: the high watermark has not passed it")
                .isEmpty();

        partition.onFollowerFetch(3, 3, System.currentTimeMillis());
        runDatapath();
        assertThat(acks).containsExactly(new Ack(0, 11, ControlErrorCodes.NONE));
        assertThat(writes.awaitingReplication()).isZero();
        assertThat(writes.replicationFailures()).isZero();
    }

    @Test
    void anAcksAllRetryFoundInTheLogIsAnsweredAsADuplicateOnlyOnceTheInSyncReplicasHoldTheOriginal() throws Exception {
        final ProduceTerms all = new ProduceTerms(EPOCH, (short) -1, 30_000);
        final AppendInfo original = commit(3, EPOCH);
        // The original's answer was lost (or timed out); its retry is found in the log, nothing written.
        writes.committed(null, partition, all, answers, original, 12, ControlErrorCodes.DUPLICATE_SEQUENCE_NUMBER);
        runDatapath();
        assertThat(acks)
                .as("the original is on the leader alone: not answered yet")
                .isEmpty();

        partition.onFollowerFetch(2, 3, System.currentTimeMillis());
        partition.onFollowerFetch(3, 3, System.currentTimeMillis());
        runDatapath();
        assertThat(acks).containsExactly(new Ack(0, 12, ControlErrorCodes.DUPLICATE_SEQUENCE_NUMBER));
    }

    @Test
    void aRefusalOfALaterWriteIsAnsweredBehindTheWritesWaitingForTheReplicas() throws Exception {
        final ProduceTerms all = new ProduceTerms(EPOCH, (short) -1, 30_000);
        writes.committed(null, partition, all, answers, commit(2, EPOCH), 1, ControlErrorCodes.NONE);
        onDatapath(() -> answers.answer(null, this::recordAck, -1, 2, ControlErrorCodes.ACCESS_REVOKED));
        assertThat(acks).as("nothing overtakes the write still waiting").isEmpty();

        partition.onFollowerFetch(2, 2, System.currentTimeMillis());
        partition.onFollowerFetch(3, 2, System.currentTimeMillis());
        runDatapath();
        assertThat(acks)
                .containsExactly(
                        new Ack(0, 1, ControlErrorCodes.NONE), new Ack(-1, 2, ControlErrorCodes.ACCESS_REVOKED));
    }

    @Test
    void anAcksOneWriteIsAnsweredOnceTheLeaderCommittedIt() throws Exception {
        final ProduceTerms one = new ProduceTerms(EPOCH, (short) 1, 30_000);
        final AppendInfo info = commit(2, EPOCH);
        onDatapath(() -> writes.committed(null, partition, one, answers, info, 5, ControlErrorCodes.NONE));
        assertThat(acks).containsExactly(new Ack(0, 5, ControlErrorCodes.NONE));
        assertThat(writes.awaitingReplication()).isZero();
    }

    @Test
    void anAcksAllWriteIsRefusedUncommittedWhileTooFewReplicasAreInSync() {
        partition.becomeReplicatedLeader(
                ME, EPOCH + 1, 8, REPLICAS, List.of(1), NoQuorum.ISR_CHANGES, System.currentTimeMillis());

        assertThat(writes.admit(partition, new ProduceTerms(EPOCH + 1, (short) -1, 30_000)))
                .hasValueSatisfying(refusal -> {
                    assertThat(refusal.errorCode()).isEqualTo(ControlErrorCodes.NOT_ENOUGH_REPLICAS);
                    assertThat(refusal.reason()).contains("min.insync.replicas=2");
                });
        assertThat(writes.admit(partition, new ProduceTerms(EPOCH + 1, (short) 1, 30_000)))
                .as("acks=1 needs the leader only")
                .isEmpty();
    }

    @Test
    void aWriteWhoseLeadershipMovedIsRefusedBeforeItsCommitAndAnsweredAsNotLeaderAfterIt() throws Exception {
        final ProduceTerms all = new ProduceTerms(EPOCH, (short) -1, 30_000);
        final AppendInfo waiting = commit(2, EPOCH);
        writes.committed(null, partition, all, answers, waiting, 21, ControlErrorCodes.NONE);

        partition.becomeFollower(EPOCH + 1);
        runDatapath();

        assertThat(acks)
                .as("committed, then the leadership moved before the followers confirmed it: its fate is unknown")
                .containsExactly(new Ack(-1, 21, ControlErrorCodes.NOT_LEADER_OR_FOLLOWER));
        assertThat(writes.replicationFailures()).isEqualTo(1);
        assertThat(writes.admit(partition, all)).hasValueSatisfying(refusal -> assertThat(refusal.errorCode())
                .isEqualTo(ControlErrorCodes.NOT_LEADER_OR_FOLLOWER));
        // Leader again in a newer epoch: a grant of the old one stays refused.
        partition.becomeReplicatedLeader(
                ME, EPOCH + 2, 9, REPLICAS, REPLICAS, NoQuorum.ISR_CHANGES, System.currentTimeMillis());
        assertThat(writes.admit(partition, all))
                .hasValueSatisfying(refusal -> assertThat(refusal.reason()).contains("in leader epoch " + EPOCH));
        assertThat(writes.admit(partition, new ProduceTerms(EPOCH + 2, (short) -1, 30_000)))
                .isEmpty();
    }

    @Test
    void anAcksAllWriteTheFollowersDoNotConfirmInTimeIsAnsweredRequestTimedOut() throws Exception {
        final AppendInfo info = commit(1, EPOCH);
        writes.committed(
                null, partition, new ProduceTerms(EPOCH, (short) -1, 50), answers, info, 3, ControlErrorCodes.NONE);

        // The wait ends on the timer's thread, which hands the answer to the datapath thread.
        final Runnable timedOut = datapathTasks.poll(30, TimeUnit.SECONDS);
        assertThat(timedOut).as("the wait's end, handed to the datapath thread").isNotNull();
        onDatapath(timedOut);

        assertThat(acks).containsExactly(new Ack(-1, 3, Errors.REQUEST_TIMED_OUT.code()));
        assertThat(writes.replicationFailures()).isEqualTo(1);
        assertThat(partition.logEndOffset())
                .as("the batch stays in the leader's log: an idempotent retry finds it")
                .isEqualTo(1);
    }

    @Test
    void aSingleBrokerAnswersEveryWriteOnceCommitted() throws Exception {
        final List<Ack> sole = new ArrayList<>();
        final Queue<Runnable> none = new ArrayDeque<>();
        final LeaderWrites single = new LeaderWrites(
                LeaderAccess.SOLE_BROKER,
                (session, baseOffset, immediate, errorCode) -> sole.add(new Ack(baseOffset, immediate, errorCode)),
                none::add);
        final ProduceTerms all = new ProduceTerms(EPOCH, (short) -1, 30_000);
        assertThat(single.admit(partition, all)).isEmpty();
        single.committed(null, partition, all, new AnswerQueue(8), commit(2, EPOCH), 9, ControlErrorCodes.NONE);
        assertThat(sole).containsExactly(new Ack(0, 9, ControlErrorCodes.NONE));
        assertThat(none).isEmpty();
    }
}
