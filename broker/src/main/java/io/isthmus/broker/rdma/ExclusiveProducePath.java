package io.isthmus.broker.rdma;

import io.isthmus.broker.log.AppendInfo;
import io.isthmus.broker.log.SegmentNotWritableException;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.producer.ProducerRejectedException;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.record.InvalidRecordBatchException;
import java.lang.foreign.MemorySegment;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exclusive RDMA produce, the data plane's half (KafkaDirect section 4.2.2): a producer WRITEs one whole batch per
 * WRITE WITH IMM into its next staging slot, and completions arrive in the order the writes were made (RC delivers in
 * order, and one thread handles them). For each write: the immediate must carry the grant's next order; on a cluster
 * the grant's leadership must hold and, with {@code acks=-1}, enough replicas be in sync ({@link LeaderWrites}); the batch
 * length is read from the batch header in the slot, never from {@code byte_len}; {@link Partition#commitStaged} (the
 * partition's append gateway) copies the batch to the grant's tail and validates the copy, checks the
 * idempotent-producer state like a TCP produce, assigns offsets, publishes, and runs the append observers (the metadata
 * slots) and wakes long-poll fetches; the ack carries the base offset back, with {@code acks=-1} on a cluster once the
 * in-sync replicas hold the batch.
 *
 * <p>A bad batch is zeroed, never committed, answered with an error and the grant revoked. A retried batch already in
 * the log (its first attempt's ack was lost with a connection) is discarded and answered {@link
 * ControlErrorCodes#DUPLICATE_SEQUENCE_NUMBER} with its original offset; the tail did not move, so the grant is
 * suspended until the producer asks for access again and learns the tail.
 *
 * <p>Confined to the datapath thread.
 */
final class ExclusiveProducePath {
    private static final Logger LOG = LoggerFactory.getLogger(ExclusiveProducePath.class);

    private final SharedProducePath.Acker acker;
    private final LeaderWrites leaderWrites;
    private final RdmaControlPlane control;
    private volatile long commits;
    private volatile long rejectedWrites;
    private volatile long duplicateWrites;

    ExclusiveProducePath(
            final SharedProducePath.Acker acker, final LeaderWrites leaderWrites, final RdmaControlPlane control) {
        this.acker = acker;
        this.leaderWrites = leaderWrites;
        this.control = control;
    }

    /** A write under {@code grant} (exclusive, not suspended) completed with {@code immediate}. */
    void onWrite(
            final RdmaSession session,
            final ProduceGrant grant,
            final int immediate,
            final int order,
            final MemorySegment staged) {
        final int segmentId = grant.segmentId();
        if (order != grant.nextOrder) {
            reject(
                    session,
                    grant,
                    immediate,
                    ControlErrorCodes.OUT_OF_ORDER_WRITE,
                    "order=" + order + " expected=" + grant.nextOrder);
            return;
        }
        final LeaderWrites.Refusal refusal =
                leaderWrites.admit(grant.partition, grant.terms).orElse(null);
        if (refusal != null) {
            reject(session, grant, immediate, refusal.errorCode(), refusal.reason());
            return;
        }
        final AppendInfo info;
        try {
            info = grant.partition.commitStaged(segmentId, grant.tail, staged, false, grant.terms.leaderEpoch());
        } catch (final NotLeaderOrFollowerException e) {
            reject(session, grant, immediate, ControlErrorCodes.NOT_LEADER_OR_FOLLOWER, e.getMessage());
            return;
        } catch (final InvalidRecordBatchException e) {
            reject(session, grant, immediate, ControlErrorCodes.CORRUPT_MESSAGE, e.getMessage());
            return;
        } catch (final ProducerRejectedException e) {
            // Kafka's codes, which the control protocol shares: OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH.
            reject(session, grant, immediate, e.error().code(), e.getMessage());
            return;
        } catch (final SegmentNotWritableException e) {
            reject(session, grant, immediate, ControlErrorCodes.STALE_SEGMENT, e.getMessage());
            return;
        } catch (final RuntimeException e) {
            LOG.error("committing an exclusive write failed: {} {}", session, grant, e);
            reject(session, grant, immediate, ControlErrorCodes.UNKNOWN_SERVER_ERROR, "commit failed: " + e);
            return;
        }
        if (info.duplicate()) {
            // Nothing written, the tail stays: suspend until the producer asks again and learns it. The original is
            // answered for as a commit would be: with acks=-1, once the in-sync replicas hold it.
            grant.skipped();
            grant.suspended = true;
            duplicateWrites++;
            leaderWrites.committed(
                    session,
                    grant.partition,
                    grant.terms,
                    grant.answers,
                    info,
                    immediate,
                    ControlErrorCodes.DUPLICATE_SEQUENCE_NUMBER);
            return;
        }
        grant.committed(info.sizeInBytes());
        commits++;
        leaderWrites.committed(
                session, grant.partition, grant.terms, grant.answers, info, immediate, ControlErrorCodes.NONE);
    }

    private void reject(
            final RdmaSession session,
            final ProduceGrant grant,
            final int immediate,
            final short errorCode,
            final String reason) {
        rejectedWrites++;
        LOG.warn(
                "rejected an RDMA write, revoking produce access: {} {} error={} reason={}",
                session,
                grant,
                ControlErrorCodes.name(errorCode),
                reason);
        control.refuseWrite(session, grant, acker, immediate, errorCode);
    }
    /** Batches committed from exclusive writes. */
    long commits() {
        return commits;
    }

    /** Writes rejected (bad batch, wrong order, sequence gap, fenced epoch). */
    long rejectedWrites() {
        return rejectedWrites;
    }

    /** Writes discarded as duplicates of batches already in the log. */
    long duplicateWrites() {
        return duplicateWrites;
    }
}
