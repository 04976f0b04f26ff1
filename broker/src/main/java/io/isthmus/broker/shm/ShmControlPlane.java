package io.isthmus.broker.shm;

import io.isthmus.broker.log.LogSegment;
import io.isthmus.broker.log.OffsetOutOfRangeException;
import io.isthmus.broker.log.SegmentLease;
import io.isthmus.broker.network.ControlExchange;
import io.isthmus.broker.partition.LeaderAccess;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.Partition.ProduceOutcome;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.security.Authorizer;
import io.isthmus.broker.slots.AbortedTransactionArray;
import io.isthmus.broker.slots.MetadataSlotRegion;
import io.isthmus.broker.slots.PartitionSlotsTable;
import io.isthmus.broker.slots.ReadStart;
import io.isthmus.protocol.control.ConsumeAccessRequest;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.MetadataSlotDescriptor;
import io.isthmus.protocol.control.ProduceStagingDescriptor;
import io.isthmus.protocol.control.ReleaseAccessRequest;
import io.isthmus.protocol.control.ReleaseAccessResponse;
import io.isthmus.protocol.control.ShmAttachRequest;
import io.isthmus.protocol.control.ShmAttachResponse;
import io.isthmus.protocol.control.ShmConsumeAccessResponse;
import io.isthmus.protocol.control.ShmProduceAccessRequest;
import io.isthmus.protocol.control.ShmProduceAccessResponse;
import io.isthmus.protocol.control.ShmProduceRequest;
import io.isthmus.protocol.control.ShmProduceResponse;
import io.isthmus.protocol.control.ShmSlotFileDescriptor;
import io.isthmus.protocol.record.RecordBatchDescriptor;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiPredicate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control plane of the shared-memory datapath: sessions (one per TCP connection that proved, with the token, that
 * it can read the broker's shared-memory directory), the read access they hold and the staging files they produce
 * through. SHM_ATTACH opens a session with a
 * range of the slot file; SHM_CONSUME_ACCESS grants a partition's segment file and a slot that {@link PartitionSlots}
 * republishes after every commit, exactly as for RDMA consumers; SHM_RELEASE_ACCESS and the connection closing give
 * access back. SHM_PRODUCE_ACCESS creates a staging file for a partition, and each SHM_PRODUCE (the doorbell) appends
 * the batch in one of its slots through the partition's append gateway. A grant whose segment retention deleted is revoked ({@link #sweepDeletedSegments()}): its slot says
 * REVOKED and the client asks again.
 *
 * <p>Access requests are rare (one per segment a consumer reads, one per partition a producer writes), so one monitor
 * serialises them, the sweep and close; a doorbell holds it only to look its grant up, and appends outside it. Slots
 * are written by whichever thread commits, under each partition's {@link PartitionSlots} monitor.
 */
final class ShmControlPlane implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ShmControlPlane.class);

    private final ShmDirectory directory;
    private final PartitionManager partitions;
    private final Authorizer authorizer;
    private final LeaderAccess leaders;
    private final ShmSettings settings;
    private final MetadataSlotRegion slotRegion;
    private final Map<Long, ShmSession> sessions = new HashMap<>();
    private final PartitionSlotsTable partitionSlots;
    private long revokedGrants;
    private boolean closed;

    ShmControlPlane(
            final ShmDirectory directory,
            final ShmSettings settings,
            final PartitionManager partitions,
            final Authorizer authorizer,
            final LeaderAccess leaders) {
        this.directory = directory;
        this.partitions = partitions;
        this.authorizer = authorizer;
        this.leaders = leaders;
        this.settings = settings;
        this.slotRegion = new MetadataSlotRegion(
                directory.slotMemory(), settings.maxConnections(), settings.slotsPerConnection());
        this.partitionSlots = new PartitionSlotsTable(slotRegion, directory.abortedArrays());
    }

    /** SHM_ATTACH: answers {@code exchange}. */
    synchronized void attach(final long connectionId, final ShmAttachRequest request, final ControlExchange exchange) {
        final String dir = directory.directory().toAbsolutePath().toString();
        if (closed) {
            answerAttach(exchange, ControlErrorCodes.SHM_UNAVAILABLE, "the broker is shutting down");
            return;
        }
        if (sessions.containsKey(connectionId)) {
            answerAttach(exchange, ControlErrorCodes.INVALID_REQUEST, "connection already has a shared-memory session");
            return;
        }
        final byte[] token = request.token();
        if (!directory.accepts(token)) {
            if (!Arrays.equals(token, new byte[token.length])) {
                // An empty token is how every client starts (it learns the directory); a wrong one is worth a line.
                LOG.info(
                        "SHM_ATTACH with a token other than this broker's: client={} principal={}",
                        exchange.clientHost(),
                        exchange.principal());
            }
            answerAttach(exchange, ControlErrorCodes.SHM_TOKEN_MISMATCH, dir);
            return;
        }
        final int range = slotRegion.allocateRange();
        if (range < 0) {
            answerAttach(
                    exchange,
                    ControlErrorCodes.RESOURCES_EXHAUSTED,
                    "every shared-memory session slot range is taken (shm.max.connections)");
            return;
        }
        final ShmSession session = new ShmSession(connectionId, exchange.principal(), exchange.clientHost(), range);
        sessions.put(connectionId, session);
        exchange.answer(new ShmAttachResponse(), ShmAttachResponse.length(dir))
                .errorCode(ControlErrorCodes.NONE)
                .slotRange(range)
                .slotsPerRange(slotRegion.slotsPerRange())
                .generation(directory.generation())
                .detail(dir);
        exchange.complete();
        LOG.info("shared-memory session opened: {}", session);
    }

    private static void answerAttach(final ControlExchange exchange, final short errorCode, final String detail) {
        exchange.answer(new ShmAttachResponse(), ShmAttachResponse.length(detail))
                .errorCode(errorCode)
                .detail(detail);
        exchange.complete();
    }

    /** SHM_CONSUME_ACCESS: answers {@code exchange}. */
    synchronized void consumeAccess(
            final long connectionId, final ConsumeAccessRequest request, final ControlExchange exchange) {
        final ShmSession session = sessions.get(connectionId);
        if (session == null) {
            refuseConsume(exchange, ControlErrorCodes.NOT_CONNECTED);
            return;
        }
        final String topic = request.topic();
        if (!authorizer.authorizeTopic(session.principal, session.host, AclOperation.READ, topic)) {
            refuseConsume(exchange, ControlErrorCodes.TOPIC_AUTHORIZATION_FAILED);
            return;
        }
        final Partition partition = partitions
                .partition(new TopicPartition(topic, request.partition()))
                .orElse(null);
        if (partition == null) {
            refuseConsume(exchange, ControlErrorCodes.UNKNOWN_TOPIC_OR_PARTITION);
            return;
        }
        final int leaderEpoch = leaders.grantEpoch(partition);
        if (leaderEpoch < 0) {
            refuseConsume(exchange, ControlErrorCodes.NOT_LEADER_OR_FOLLOWER);
            return;
        }
        final ReadStart start;
        try {
            start = ReadStart.locate(partition.log(), request.offset());
        } catch (final OffsetOutOfRangeException e) {
            refuseOutOfRange(session, partition, exchange);
            return;
        }
        final LogSegment segment = start.segment();
        final SegmentLease lease = segment.tryAcquire();
        if (lease == null || segment.isDeleted()) {
            if (lease != null) {
                lease.close();
            }
            refuseOutOfRange(session, partition, exchange);
            return;
        }
        ShmConsumeGrant grant = session.grant(partition);
        if (grant != null && grant.leaderEpoch != leaderEpoch) {
            // Made under an earlier leadership of this broker: the slot starts again in this one.
            drop(session, grant, false);
            grant = null;
        }
        if (grant == null) {
            final int slotIndex = session.freeSlotIndex(slotRegion.slotsPerRange());
            if (slotIndex < 0) {
                lease.close();
                refuseConsume(exchange, ControlErrorCodes.RESOURCES_EXHAUSTED);
                return;
            }
            grant = new ShmConsumeGrant(
                    partition,
                    leaderEpoch,
                    partitionSlots.slotsFor(partition),
                    slotIndex,
                    slotRegion.slotOffset(session.slotRange, slotIndex),
                    lease);
            session.grants.add(grant);
            grant.slots.assign(grant.slotOffset, segment);
        } else {
            // The slot moves to the new segment before the old one's lease goes: a publication meanwhile reads the
            // segment the slot names, which must stay mapped until then.
            final SegmentLease previous = grant.lease;
            grant.lease = lease;
            grant.slots.assign(grant.slotOffset, segment);
            previous.close();
        }
        final long readable = MetadataSlotDescriptor.readable(slotRegion.memory(), grant.slotOffset);
        final String path = segment.logFile().toAbsolutePath().toString();
        final ShmConsumeAccessResponse answer = exchange.answer(
                        new ShmConsumeAccessResponse(), ShmConsumeAccessResponse.length(path))
                .errorCode(ControlErrorCodes.NONE)
                .flags(MetadataSlotDescriptor.isSealed(readable) ? ShmConsumeAccessResponse.SEALED : 0)
                .segmentId(segment.id())
                .slotIndex(grant.slotIndex)
                .capacity(segment.capacity())
                .startPosition(start.position())
                .readablePosition(MetadataSlotDescriptor.position(readable))
                .segmentBaseOffset(segment.baseOffset());
        final AbortedTransactionArray aborted = grant.slots.aborted();
        synchronized (grant.slots) {
            answer.abortedArrayId(aborted.id()).abortedBase(aborted.base()).abortedCapacity(aborted.capacity());
        }
        answer.segmentPath(path);
        exchange.complete();
    }

    /** The offset is not in the log: the partition's grant, if the session held one, goes (the reader must reset). */
    private void refuseOutOfRange(final ShmSession session, final Partition partition, final ControlExchange exchange) {
        final ShmConsumeGrant grant = session.grant(partition);
        if (grant != null) {
            drop(session, grant, false);
        }
        refuseConsume(exchange, ControlErrorCodes.OFFSET_OUT_OF_RANGE);
    }

    private static void refuseConsume(final ControlExchange exchange, final short errorCode) {
        exchange.answer(new ShmConsumeAccessResponse(), ShmConsumeAccessResponse.length(null))
                .errorCode(errorCode);
        exchange.complete();
    }

    /**
     * SHM_PRODUCE_ACCESS: a staging file for the session's batches to a partition (one per partition and session; asking
     * again replaces it). Answers {@code exchange}.
     */
    synchronized void produceAccess(
            final long connectionId, final ShmProduceAccessRequest request, final ControlExchange exchange) {
        final ShmSession session = sessions.get(connectionId);
        if (session == null) {
            refuseProduce(exchange, ControlErrorCodes.NOT_CONNECTED, "no shared-memory session on this connection");
            return;
        }
        final String topic = request.topic();
        if (!authorizer.authorizeTopic(session.principal, session.host, AclOperation.WRITE, topic)) {
            refuseProduce(exchange, ControlErrorCodes.TOPIC_AUTHORIZATION_FAILED, "not allowed to write " + topic);
            return;
        }
        final Partition partition = partitions
                .partition(new TopicPartition(topic, request.partition()))
                .orElse(null);
        if (partition == null) {
            refuseProduce(
                    exchange,
                    ControlErrorCodes.UNKNOWN_TOPIC_OR_PARTITION,
                    "no partition " + topic + "-" + request.partition());
            return;
        }
        final int leaderEpoch = leaders.grantEpoch(partition);
        if (leaderEpoch < 0) {
            refuseProduce(
                    exchange,
                    ControlErrorCodes.NOT_LEADER_OR_FOLLOWER,
                    "this broker does not lead " + partition.topicPartition() + " now: ask its leader");
            return;
        }
        final int messageMaxBytes = partition.log().config().messageMaxBytes();
        if (request.acks() < -1 || request.acks() > 1 || request.timeoutMs() < 0) {
            refuseProduce(
                    exchange,
                    ControlErrorCodes.INVALID_REQUEST,
                    "acks=" + request.acks() + " timeoutMs=" + request.timeoutMs() + ": acks is -1, 0 or 1, the"
                            + " timeout at least 0");
            return;
        }
        if (request.slots() < 1 || request.slotBytes() < RecordBatchDescriptor.HEADER_LENGTH) {
            refuseProduce(
                    exchange,
                    ControlErrorCodes.INVALID_REQUEST,
                    "slots=" + request.slots() + " slotBytes=" + request.slotBytes() + ": at least 1 slot of "
                            + RecordBatchDescriptor.HEADER_LENGTH + " bytes");
            return;
        }
        ShmProduceGrant grant = session.produceGrant(partition);
        if (grant != null) {
            session.produceGrants.remove(grant);
            grant.close();
        } else if (session.produceGrants.size() >= slotRegion.slotsPerRange()) {
            refuseProduce(
                    exchange,
                    ControlErrorCodes.RESOURCES_EXHAUSTED,
                    "a session produces to at most shm.slots.per.connection=" + slotRegion.slotsPerRange()
                            + " partitions");
            return;
        }
        final int slots = Math.min(request.slots(), settings.produceSlots());
        final int slotBytes = ProduceStagingDescriptor.slotBytes(Math.min(request.slotBytes(), messageMaxBytes));
        final ShmStagingFile staging;
        try {
            staging = directory.createStaging((long) slots * slotBytes);
        } catch (final RuntimeException e) {
            LOG.warn("cannot create a staging file: {} partition={}", session, partition.topicPartition(), e);
            refuseProduce(exchange, ControlErrorCodes.RESOURCES_EXHAUSTED, "no staging file: " + e.getMessage());
            return;
        }
        grant = new ShmProduceGrant(
                partition, leaderEpoch, request.acks(), request.timeoutMs(), staging, slots, slotBytes);
        session.produceGrants.add(grant);
        final String path = grant.path();
        exchange.answer(new ShmProduceAccessResponse(), ShmProduceAccessResponse.length(path))
                .errorCode(ControlErrorCodes.NONE)
                .stagingId(grant.id())
                .slots(slots)
                .slotBytes(slotBytes)
                .detail(path);
        exchange.complete();
        LOG.debug("shared-memory produce access: {} {}", session, grant);
    }

    private static void refuseProduce(final ControlExchange exchange, final short errorCode, final String detail) {
        exchange.answer(new ShmProduceAccessResponse(), ShmProduceAccessResponse.length(detail))
                .errorCode(errorCode)
                .detail(detail);
        exchange.complete();
    }

    /**
     * SHM_PRODUCE, the doorbell: appends the batch in the named staging slot through the partition's append gateway
     * (copied out of the slot first, then validated and committed) and answers with its base offset or Kafka's error
     * once committed. Only the grant is looked up under this plane's monitor; the append runs outside it, on the
     * connection's network thread (or, while shared RDMA producers hold the partition, in their order).
     */
    void produce(final long connectionId, final ShmProduceRequest request, final ControlExchange exchange) {
        final int stagingId = request.stagingId();
        final int slot = request.slot();
        final ShmProduceGrant grant;
        synchronized (this) {
            final ShmSession session = sessions.get(connectionId);
            if (session == null) {
                answerProduce(exchange, ControlErrorCodes.NOT_CONNECTED, -1, "no shared-memory session");
                return;
            }
            grant = session.produceGrant(stagingId);
        }
        if (grant == null) {
            answerProduce(
                    exchange,
                    ControlErrorCodes.ACCESS_REVOKED,
                    -1,
                    "no produce access under staging file " + stagingId + " (released or revoked): ask again");
            return;
        }
        if (partitions.partition(grant.partition.topicPartition()).orElse(null) != grant.partition
                || grant.partition.log().isClosed()) {
            // The topic was deleted (and perhaps created anew) or the broker is stopping: this grant is done.
            dropProduceGrant(connectionId, grant);
            answerProduce(
                    exchange,
                    ControlErrorCodes.ACCESS_REVOKED,
                    -1,
                    "partition " + grant.partition.topicPartition() + " is gone or closing: ask again");
            return;
        }
        if (!leaders.holds(grant.partition, grant.leaderEpoch)) {
            // Leadership moved (or this broker's lease ran out) since the grant: nothing more goes in through it.
            dropProduceGrant(connectionId, grant);
            answerProduce(
                    exchange,
                    ControlErrorCodes.NOT_LEADER_OR_FOLLOWER,
                    -1,
                    "this broker no longer leads " + grant.partition.topicPartition() + " in leader epoch "
                            + grant.leaderEpoch + ": ask its leader");
            return;
        }
        if (slot < 0 || slot >= grant.slots) {
            answerProduce(
                    exchange,
                    ControlErrorCodes.INVALID_REQUEST,
                    -1,
                    "slot out of range: slot=" + slot + " slots=" + grant.slots);
            return;
        }
        final MemorySegment staged = grant.acquire(slot);
        if (staged == null) {
            answerProduce(exchange, ControlErrorCodes.ACCESS_REVOKED, -1, "produce access revoked: ask again");
            return;
        }
        CompletableFuture<ProduceOutcome> outcome;
        try {
            // With acks=all, answered in a cluster once min.insync.replicas hold the batch, as a Produce is.
            outcome = grant.acks == -1
                    ? leaders.appendReplicated(
                            grant.partition, grant.timeoutMs, () -> grant.partition.appendStagedAsync(staged))
                    : grant.partition.appendStagedAsync(staged);
        } catch (final RuntimeException e) {
            LOG.error("appending a shared-memory batch failed: {}", grant, e);
            outcome = CompletableFuture.completedFuture(
                    new ProduceOutcome(Errors.UNKNOWN_SERVER_ERROR, -1, "append failed: " + e));
        } finally {
            // Appended or copied out of the slot by now: the staging file may go.
            grant.release();
        }
        outcome.whenComplete((answer, failure) -> {
            if (failure != null) {
                answerProduce(exchange, ControlErrorCodes.UNKNOWN_SERVER_ERROR, -1, "append failed: " + failure);
            } else {
                answerProduce(exchange, answer.error().code(), answer.baseOffset(), answer.message());
            }
        });
    }

    /** Revokes {@code grant} at a doorbell (its partition is gone, or led elsewhere or in another epoch now). */
    private synchronized void dropProduceGrant(final long connectionId, final ShmProduceGrant grant) {
        final ShmSession session = sessions.get(connectionId);
        if (session != null && session.produceGrants.remove(grant)) {
            grant.close();
            revokedGrants++;
        }
    }

    private static void answerProduce(
            final ControlExchange exchange, final short errorCode, final long baseOffset, final String detail) {
        exchange.answer(new ShmProduceResponse(), ShmProduceResponse.length(detail))
                .errorCode(errorCode)
                .baseOffset(baseOffset)
                .detail(detail);
        exchange.complete();
    }

    /** SHM_RELEASE_ACCESS: answers {@code exchange}. */
    synchronized void release(
            final long connectionId, final ReleaseAccessRequest request, final ControlExchange exchange) {
        final ReleaseAccessResponse response =
                exchange.answer(new ReleaseAccessResponse(), ReleaseAccessResponse.LENGTH);
        final ShmSession session = sessions.get(connectionId);
        final Partition partition = request.topic() == null
                ? null
                : partitions
                        .partition(new TopicPartition(request.topic(), request.partition()))
                        .orElse(null);
        if (session == null) {
            response.errorCode(ControlErrorCodes.NOT_CONNECTED);
        } else if (request.access() != ReleaseAccessRequest.CONSUME
                && request.access() != ReleaseAccessRequest.PRODUCE) {
            response.errorCode(ControlErrorCodes.INVALID_REQUEST);
        } else if (partition == null) {
            response.errorCode(ControlErrorCodes.UNKNOWN_TOPIC_OR_PARTITION);
        } else if (request.access() == ReleaseAccessRequest.PRODUCE) {
            final ShmProduceGrant grant = session.produceGrant(partition);
            if (grant != null) {
                session.produceGrants.remove(grant);
                grant.close();
            }
            response.errorCode(ControlErrorCodes.NONE);
        } else {
            final ShmConsumeGrant grant = session.grant(partition);
            if (grant != null) {
                drop(session, grant, false);
            }
            response.errorCode(ControlErrorCodes.NONE);
        }
        exchange.complete();
    }

    /** The TCP connection closed: its session ends, its slots are zeroed and its range freed. */
    synchronized void connectionClosed(final long connectionId) {
        final ShmSession session = sessions.remove(connectionId);
        if (session != null) {
            end(session);
            LOG.info("shared-memory session closed: {}", session);
        }
    }

    /**
     * Revokes every grant of a segment retention deleted: its slot says REVOKED, so the client asks again (and learns
     * the offset is gone, or where it went). Returns the grants revoked.
     */
    synchronized int sweepDeletedSegments() {
        return revokeWhere(
                (session, grant) -> grant.lease.segment().isDeleted(),
                (session, grant) -> false,
                "its segment was deleted");
    }

    /**
     * Revokes every grant made under a leadership this broker no longer holds (the partition's leader moved, its epoch
     * changed, or this broker's lease with the quorum ran out): a reader's slot says REVOKED, a producer's next doorbell
     * is refused, and both learn NOT_LEADER_OR_FOLLOWER when they ask this broker again. Readers read no further than the
     * high watermark, so what they read before is what every in-sync replica holds, never taken back. Returns the grants
     * revoked.
     */
    synchronized int revokeLostLeadership() {
        return revokeWhere(
                (session, grant) -> !leaders.holds(grant.partition, grant.leaderEpoch),
                (session, grant) -> !leaders.holds(grant.partition, grant.leaderEpoch),
                "leadership moved");
    }

    /**
     * The ACLs changed: sessions holding a grant their principal may no longer read (or, to produce, write) lose it
     * (revoked, so the client's next access request or doorbell is refused). Returns the grants revoked.
     */
    synchronized int reauthorize() {
        return revokeWhere(
                (session, grant) -> !authorizer.authorizeTopic(
                        session.principal,
                        session.host,
                        AclOperation.READ,
                        grant.partition.topicPartition().topic()),
                (session, grant) -> !authorizer.authorizeTopic(
                        session.principal,
                        session.host,
                        AclOperation.WRITE,
                        grant.partition.topicPartition().topic()),
                null);
    }

    /**
     * Revokes, over every session, the read grants {@code readLost} names (their slots say REVOKED) and the produce
     * grants {@code writeLost} names (their staging files go); logs each with {@code why} unless it is null. Returns
     * the grants revoked.
     */
    private int revokeWhere(
            final BiPredicate<ShmSession, ShmConsumeGrant> readLost,
            final BiPredicate<ShmSession, ShmProduceGrant> writeLost,
            final String why) {
        int revoked = 0;
        for (final ShmSession session : sessions.values()) {
            for (int i = session.grants.size() - 1; i >= 0; i--) {
                final ShmConsumeGrant grant = session.grants.get(i);
                if (readLost.test(session, grant)) {
                    if (why != null) {
                        LOG.info("revoking shared-memory read access: {}: {} {}", why, session, grant);
                    }
                    drop(session, grant, true);
                    revoked++;
                }
            }
            for (int i = session.produceGrants.size() - 1; i >= 0; i--) {
                final ShmProduceGrant grant = session.produceGrants.get(i);
                if (writeLost.test(session, grant)) {
                    if (why != null) {
                        LOG.info("revoking shared-memory produce access: {}: {} {}", why, session, grant);
                    }
                    session.produceGrants.remove(i);
                    grant.close();
                    revoked++;
                }
            }
        }
        revokedGrants += revoked;
        return revoked;
    }

    private void end(final ShmSession session) {
        for (int i = session.grants.size() - 1; i >= 0; i--) {
            drop(session, session.grants.get(i), false);
        }
        for (final ShmProduceGrant grant : session.produceGrants) {
            grant.close();
        }
        session.produceGrants.clear();
        slotRegion.freeRange(session.slotRange);
    }

    private void drop(final ShmSession session, final ShmConsumeGrant grant, final boolean revoked) {
        session.grants.remove(grant);
        partitionSlots.vacate(grant.slots, grant.slotOffset, revoked);
        grant.lease.close();
        partitionSlots.closeIfUnused(grant.partition, grant.slots);
    }

    synchronized int sessionCount() {
        return sessions.size();
    }

    synchronized int grantCount() {
        int count = 0;
        for (final ShmSession session : sessions.values()) {
            count += session.grants.size();
        }
        return count;
    }

    synchronized int produceGrantCount() {
        int count = 0;
        for (final ShmSession session : sessions.values()) {
            count += session.produceGrants.size();
        }
        return count;
    }

    synchronized long revokedGrants() {
        return revokedGrants;
    }

    /** Ends every session; the slot file is marked CLOSED by the directory after this. */
    @Override
    public synchronized void close() {
        closed = true;
        for (final ShmSession session : sessions.values()) {
            end(session);
        }
        sessions.clear();
    }

    /** The byte offset in the slot file of a session's slot (for tests that read the file as a client does). */
    long fileOffset(final int range, final int slotIndex) {
        return ShmSlotFileDescriptor.HEADER_LENGTH + slotRegion.slotOffset(range, slotIndex);
    }
}
