package io.isthmus.broker.rdma;

import io.isthmus.broker.log.AppendInfo;
import io.isthmus.broker.partition.LeaderAccess;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.Partition.ProduceOutcome;
import io.isthmus.protocol.control.ControlErrorCodes;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an exclusive RDMA write must pass as its partition's leader's, and when it is answered: the rules a Produce
 * follows ({@link LeaderAccess}), applied to writes that arrive as completions. On a single broker every write is
 * admitted and answered once committed.
 *
 * <ul>
 *   <li><b>Admission</b>, before the commit: the grant's leadership must still hold (this broker leads the partition in
 *       the epoch the grant was made in, within its lease with the quorum), else NOT_LEADER_OR_FOLLOWER; with {@code
 *       acks=-1}, at least {@code min.insync.replicas} must be in sync, else NOT_ENOUGH_REPLICAS. A refused write is
 *       not committed and its grant is revoked, as for any rejected write; the producer asks again, is refused as not
 *       the leader, and follows the metadata to the new one. The commit itself checks the epoch once more, under the
 *       append lock a leadership change takes ({@link io.isthmus.broker.partition.Partition#commitStaged}).
 *   <li><b>The answer</b>, after the commit: with {@code acks=1} (or 0, answered too: the staging slot must be freed)
 *       at once; with {@code acks=-1} once the in-sync replicas hold the batch, as a Produce is, or with the error that
 *       ended the wait (REQUEST_TIMED_OUT after the producer's {@code request.timeout.ms}, NOT_LEADER_OR_FOLLOWER if
 *       leadership moved meanwhile, NOT_ENOUGH_REPLICAS_AFTER_APPEND). The batch is in the leader's log by then, so the
 *       grant stays: the producer's idempotent retry is found in the log and answered DUPLICATE_SEQUENCE_NUMBER with
 *       the original offset, and, as Kafka answers a retried Produce, only once the in-sync replicas hold the original
 *       too. The wait ends on whichever thread moved the high watermark; the ack is sent from the datapath thread, which
 *       owns the queue pair, in the order the grant's writes were handled ({@link AnswerQueue}).
 * </ul>
 *
 * <p>Admission and commit run on the datapath thread; the waits complete anywhere.
 */
final class LeaderWrites {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderWrites.class);

    private final LeaderAccess leaders;
    private final SharedProducePath.Acker acker;
    /** Runs a task on the datapath thread. */
    private final Consumer<Runnable> datapath;

    private volatile long awaitingReplication;
    private volatile long replicationFailures;

    LeaderWrites(final LeaderAccess leaders, final SharedProducePath.Acker acker, final Consumer<Runnable> datapath) {
        this.leaders = leaders;
        this.acker = acker;
        this.datapath = datapath;
    }

    /**
     * Why a write to {@code partition} under a grant made on {@code terms} may not be committed now:
     * NOT_LEADER_OR_FOLLOWER or NOT_ENOUGH_REPLICAS with the reason, or empty to commit it.
     */
    Optional<Refusal> admit(final Partition partition, final ProduceTerms terms) {
        if (!leaders.holds(partition, terms.leaderEpoch())) {
            return Optional.of(new Refusal(
                    ControlErrorCodes.NOT_LEADER_OR_FOLLOWER,
                    "this broker no longer leads " + partition.topicPartition() + " in leader epoch "
                            + terms.leaderEpoch()));
        }
        if (waitsForReplicas(terms)) {
            return leaders.tooFewInSync(partition)
                    .map(reason -> new Refusal(ControlErrorCodes.NOT_ENOUGH_REPLICAS, reason));
        }
        return Optional.empty();
    }

    /** A write refused before its commit: the code its ack carries and the reason logged. */
    record Refusal(short errorCode, String reason) {}

    /**
     * Answers {@code session}'s write, committed to {@code partition} as {@code info} under a grant made on {@code
     * terms}, with {@code code} (NONE, or DUPLICATE_SEQUENCE_NUMBER for a retry found in the log, whose original may
     * not be replicated yet either): now, or once replicated (see the class), in the grant's order ({@code answers}).
     */
    void committed(
            final RdmaSession session,
            final Partition partition,
            final ProduceTerms terms,
            final AnswerQueue answers,
            final AppendInfo info,
            final int immediate,
            final short code) {
        if (!waitsForReplicas(terms)) {
            answers.answer(session, acker, info.firstOffset(), immediate, code);
            return;
        }
        final long owed = answers.owe(immediate);
        awaitingReplication++;
        final ProduceOutcome appended =
                new ProduceOutcome(Errors.NONE, info.firstOffset(), info.lastOffset(), terms.leaderEpoch(), null);
        leaders.awaitReplicated(partition, appended, terms.timeoutMs()).whenComplete((outcome, failure) -> {
            final short error;
            if (failure != null) {
                LOG.error(
                        "waiting for the in-sync replicas failed: {} {}", session, partition.topicPartition(), failure);
                error = ControlErrorCodes.UNKNOWN_SERVER_ERROR;
            } else {
                error = outcome.error().code();
                if (error != ControlErrorCodes.NONE) {
                    LOG.info("RDMA write committed, not answered as replicated: {} {}", session, outcome);
                }
            }
            datapath.accept(() -> {
                awaitingReplication--;
                if (error == ControlErrorCodes.NONE) {
                    answers.complete(owed, info.firstOffset(), code);
                } else {
                    replicationFailures++;
                    answers.complete(owed, -1, error);
                }
                answers.flush(session, acker);
            });
        });
    }

    /** Whether a write under {@code terms} needs the in-sync replicas: acks=-1, on a cluster. */
    private boolean waitsForReplicas(final ProduceTerms terms) {
        return terms.awaitsReplicas() && !leaders.soleBroker();
    }

    /** acks=-1 writes committed and not answered yet. */
    long awaitingReplication() {
        return awaitingReplication;
    }

    /** acks=-1 writes committed and answered with an error (the wait timed out, or leadership moved). */
    long replicationFailures() {
        return replicationFailures;
    }
}
