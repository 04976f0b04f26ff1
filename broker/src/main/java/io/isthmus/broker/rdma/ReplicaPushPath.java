package io.isthmus.broker.rdma;

import io.isthmus.broker.log.AppendInfo;
import io.isthmus.broker.log.UnexpectedAppendOffsetException;
import io.isthmus.broker.replication.PushAcceptance;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ReplicaPushFrameDescriptor;
import io.isthmus.protocol.record.InvalidRecordBatchException;
import io.isthmus.protocol.record.RecordBatchDescriptor;
import java.lang.foreign.MemorySegment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Push replication, the follower's data plane (KafkaDirect section 4.3.2): the partition's leader WRITEs whole batches
 * it has committed, offsets and leader epochs assigned, into this follower's staging slots, as many contiguous ones as
 * fit a slot per WRITE WITH IMM, framed with their length ({@link ReplicaPushFrameDescriptor}), under the credits of
 * its session. For each write, in order: the immediate must carry the grant's next order; this broker must still take
 * pushes from that leader in that epoch ({@link PushAcceptance}); the frame's length must fit the slot; no batch may
 * carry a leader epoch later than the grant's (a deposed leader still pushing what a newer one wrote); the batches
 * (the leader is trusted as far as a replica Fetch's answer is, and every batch is validated as one) are appended as
 * the leader wrote them, at the replica's log end offset only ({@link
 * io.isthmus.broker.partition.Partition#appendAsFollower}), exactly as fetched batches are; the ack carries the
 * replica's log end offset after them, which the leader takes as this follower's progress.
 *
 * <p>A write that cannot be appended is answered with the reason and the grant dropped: OFFSET_OUT_OF_RANGE when the
 * replica's log end is elsewhere (the TCP fetcher appended those batches first, or the replica truncated),
 * NOT_LEADER_OR_FOLLOWER when the leadership moved, CORRUPT_MESSAGE for a batch that fails validation. The leader then
 * asks for access again, learning the replica's log end anew, and meanwhile the replica goes on fetching over TCP:
 * nothing is appended twice or out of place.
 *
 * <p>Confined to the datapath thread.
 */
final class ReplicaPushPath {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaPushPath.class);

    private final SharedProducePath.Acker acker;
    private final RdmaControlPlane control;
    private final PushAcceptance pushes;
    private volatile long appends;
    private volatile long rejectedWrites;

    ReplicaPushPath(final SharedProducePath.Acker acker, final RdmaControlPlane control, final PushAcceptance pushes) {
        this.acker = acker;
        this.control = control;
        this.pushes = pushes;
    }

    /** A write under the replica {@code grant} completed with {@code immediate}; its frame is in {@code staged}. */
    void onWrite(
            final RdmaSession session,
            final ProduceGrant grant,
            final int immediate,
            final int order,
            final MemorySegment staged) {
        if (order != grant.nextOrder) {
            reject(
                    session,
                    grant,
                    immediate,
                    ControlErrorCodes.OUT_OF_ORDER_WRITE,
                    "order=" + order + " expected=" + grant.nextOrder);
            return;
        }
        if (!pushes.accepts(grant.partition, grant.replicaLeaderId, grant.terms.leaderEpoch())) {
            reject(
                    session,
                    grant,
                    immediate,
                    ControlErrorCodes.NOT_LEADER_OR_FOLLOWER,
                    "this broker no longer follows leader " + grant.replicaLeaderId + " in leader epoch "
                            + grant.terms.leaderEpoch());
            return;
        }
        final int length = ReplicaPushFrameDescriptor.batchesLength(staged, 0);
        if (length <= 0 || length > staged.byteSize() - ReplicaPushFrameDescriptor.HEADER_LENGTH) {
            reject(
                    session,
                    grant,
                    immediate,
                    ControlErrorCodes.CORRUPT_MESSAGE,
                    "a frame of " + length + " bytes of batches in a staging slot of " + staged.byteSize());
            return;
        }
        final MemorySegment batches = ReplicaPushFrameDescriptor.batches(staged, 0, length);
        final String newerEpoch = newerEpoch(batches, grant.terms.leaderEpoch());
        if (newerEpoch != null) {
            reject(session, grant, immediate, ControlErrorCodes.NOT_LEADER_OR_FOLLOWER, newerEpoch);
            return;
        }
        final AppendInfo info;
        try {
            info = grant.partition.appendAsFollower(batches);
        } catch (final UnexpectedAppendOffsetException e) {
            reject(session, grant, immediate, ControlErrorCodes.OFFSET_OUT_OF_RANGE, e.getMessage());
            return;
        } catch (final InvalidRecordBatchException e) {
            reject(session, grant, immediate, ControlErrorCodes.CORRUPT_MESSAGE, e.getMessage());
            return;
        } catch (final IllegalStateException e) {
            // Not a follower any more: the partition's role changed before the sweep saw it.
            reject(session, grant, immediate, ControlErrorCodes.NOT_LEADER_OR_FOLLOWER, e.getMessage());
            return;
        } catch (final RuntimeException e) {
            LOG.error("appending pushed batches failed: {} {}", session, grant, e);
            reject(session, grant, immediate, ControlErrorCodes.UNKNOWN_SERVER_ERROR, "append failed: " + e);
            return;
        }
        grant.committed(length);
        appends++;
        grant.answers.answer(session, acker, info.lastOffset() + 1, immediate, ControlErrorCodes.NONE);
    }

    /**
     * Why {@code batches} cannot come from a leader in {@code leaderEpoch}: one was stamped with a later epoch (a
     * deposed leader whose log a newer leader's batches reached, still pushing), or null. Batches a broken header would
     * hide are left to validation.
     */
    private static String newerEpoch(final MemorySegment batches, final int leaderEpoch) {
        long position = 0;
        while (position + RecordBatchDescriptor.HEADER_LENGTH <= batches.byteSize()) {
            final int epoch = RecordBatchDescriptor.partitionLeaderEpoch(batches, position);
            if (epoch > leaderEpoch) {
                return "a batch at offset " + RecordBatchDescriptor.baseOffset(batches, position) + " of leader epoch "
                        + epoch + ", pushed by the leader of epoch " + leaderEpoch;
            }
            final long size = RecordBatchDescriptor.batchSize(batches, position);
            if (size < RecordBatchDescriptor.HEADER_LENGTH) {
                return null;
            }
            position += size;
        }
        return null;
    }

    private void reject(
            final RdmaSession session,
            final ProduceGrant grant,
            final int immediate,
            final short errorCode,
            final String reason) {
        rejectedWrites++;
        LOG.info(
                "pushed batches not appended, ending the leader's push access: {} {} error={} reason={}",
                session,
                grant,
                ControlErrorCodes.name(errorCode),
                reason);
        control.refuseWrite(session, grant, acker, immediate, errorCode);
    }

    /** Pushed writes appended to replicas here. */
    long appends() {
        return appends;
    }

    /** Pushed writes refused (the replica's log end elsewhere, leadership moved, a bad batch). */
    long rejectedWrites() {
        return rejectedWrites;
    }
}
