package io.isthmus.broker.rdma;

import io.isthmus.broker.log.LogSegment;
import io.isthmus.broker.log.OffsetOutOfRangeException;
import io.isthmus.broker.log.PartitionLog;
import io.isthmus.broker.log.SegmentLease;
import io.isthmus.broker.network.ControlExchange;
import io.isthmus.broker.partition.LeaderAccess;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.replication.PushAcceptance;
import io.isthmus.broker.security.Authorizer;
import io.isthmus.broker.slots.AbortedArrayMemory;
import io.isthmus.broker.slots.AbortedTransactionArray;
import io.isthmus.broker.slots.MetadataSlotRegion;
import io.isthmus.broker.slots.PartitionSlots;
import io.isthmus.broker.slots.PartitionSlotsTable;
import io.isthmus.broker.slots.ReadStart;
import io.isthmus.ffi.verbs.AccessFlags;
import io.isthmus.ffi.verbs.Gid;
import io.isthmus.ffi.verbs.MemoryRegion;
import io.isthmus.ffi.verbs.Mtu;
import io.isthmus.ffi.verbs.ProtectionDomain;
import io.isthmus.ffi.verbs.QueuePair;
import io.isthmus.ffi.verbs.QueuePairAddress;
import io.isthmus.ffi.verbs.QueuePairOptions;
import io.isthmus.ffi.verbs.ReceiveWorkRequests;
import io.isthmus.protocol.control.ConsumeAccessRequest;
import io.isthmus.protocol.control.ConsumeAccessResponse;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.MetadataSlotDescriptor;
import io.isthmus.protocol.control.ProduceAccessRequest;
import io.isthmus.protocol.control.ProduceAccessResponse;
import io.isthmus.protocol.control.RdmaConnectRequest;
import io.isthmus.protocol.control.RdmaConnectResponse;
import io.isthmus.protocol.control.ReleaseAccessRequest;
import io.isthmus.protocol.control.ReleaseAccessResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control plane of the RDMA datapath: the sessions (one per client queue pair, bound to the TCP connection that
 * asked for it) and the access they hold. It answers RDMA_CONNECT (a queue pair, within what the completion queue can
 * promise), PRODUCE_ACCESS (exclusive grants and rolls here, shared ones through {@link SharedProducePath}),
 * CONSUME_ACCESS (a read-only registration and a metadata slot) and RELEASE_ACCESS, and it takes access away: a grant
 * whose write was rejected, a reader of a segment retention deleted (its slot says REVOKED), and every grant of a
 * session that is torn down (a completion in error, the TCP connection closing).
 *
 * <p>Confined to the datapath thread: {@link RdmaDatapath} hands it the control requests and the failures its data
 * plane sees.
 */
final class RdmaControlPlane implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaControlPlane.class);
    private static final int MAX_INLINE_DATA = 64;

    private final RdmaSettings settings;
    private final Authorizer authorizer;
    private final RdmaDevice device;
    private final PartitionManager partitions;
    private final MetadataSlotRegion slotRegion;
    private final PartitionSlotsTable partitionSlots;
    /** Whether this broker leads a partition now, in which epoch: on a cluster, only the leader grants access. */
    private final LeaderAccess leaders;
    /** Whether a leader may push its batches to a replica here (push replication, the follower's side). */
    private final PushAcceptance pushes;

    private final RdmaSession[] sessions;
    private final Map<Long, RdmaSession> sessionsByConnection = new HashMap<>();
    /** The datapath's receive work requests (same thread): the receives a new session starts with. */
    private final ReceiveWorkRequests receives;
    /** Shared produce, or null where the device cannot do the broker's own atomics. */
    private final SharedProducePath shared;
    /**
     * Answers being filled in (same thread), each wrapped over its exchange's frame and filled in one run of setters,
     * so an answer given in between (a shared producer's retry) cannot overwrite it.
     */
    private final RdmaConnectResponse connectResponse = new RdmaConnectResponse();

    private final ProduceAccessResponse produceResponse = new ProduceAccessResponse();

    private int reservedCompletions;
    private long nextSessionId = 1;
    private volatile long revokedGrants;
    private volatile long revokedProduceGrants;

    RdmaControlPlane(
            final RdmaSettings settings,
            final RdmaDevice device,
            final PartitionManager partitions,
            final ReceiveWorkRequests receives,
            final SharedProducePath shared,
            final Authorizer authorizer,
            final LeaderAccess leaders,
            final PushAcceptance pushes) {
        this.settings = settings;
        this.leaders = leaders;
        this.pushes = pushes;
        this.authorizer = authorizer;
        this.device = device;
        this.partitions = partitions;
        this.receives = receives;
        this.shared = shared;
        this.slotRegion = new MetadataSlotRegion(settings.maxConnections(), settings.slotsPerConnection());
        this.partitionSlots = new PartitionSlotsTable(slotRegion, AbortedArrayMemory.OFF_HEAP);
        this.sessions = new RdmaSession[sessionSlots(settings)];
    }

    /** Sessions there can be at once: what {@code rdma.max.connections} asks, within the work-request id's index. */
    static int sessionSlots(final RdmaSettings settings) {
        return Math.min(settings.maxConnections(), 1 << RdmaSession.INDEX_BITS);
    }

    /** The live session a completion's work-request id names, or null for one already torn down. */
    RdmaSession session(final long wrId) {
        final int index = RdmaSession.indexOf(wrId);
        final RdmaSession session = index < sessions.length ? sessions[index] : null;
        return session == null || session.sessionId != RdmaSession.sessionIdOf(wrId) ? null : session;
    }

    // ------------------------------------------------------------------ control requests

    /** RDMA_CONNECT: answers {@code exchange}. */
    void connect(final long connectionId, final RdmaConnectRequest request, final ControlExchange exchange) {
        if (sessionsByConnection.containsKey(connectionId)) {
            refuseConnect(exchange, ControlErrorCodes.INVALID_REQUEST, "connection already has an RDMA session");
            return;
        }
        final int credits = settings.creditsFor(request.ackCredits());
        if (credits < 1) {
            refuseConnect(
                    exchange,
                    ControlErrorCodes.INVALID_REQUEST,
                    "ackCredits must be at least 1: ackCredits=" + request.ackCredits());
            return;
        }
        final Mtu mtu;
        try {
            final Mtu asked = Mtu.of(request.mtu());
            mtu = asked.value() < device.mtu.value() ? asked : device.mtu;
        } catch (final IllegalArgumentException e) {
            refuseConnect(exchange, ControlErrorCodes.INVALID_REQUEST, e.getMessage());
            return;
        }
        // Every posted receive and every send may complete (in error, flushed) at once: reserve for all of them.
        final int reserve = credits + settings.maxSendWr();
        final int index = freeSessionIndex();
        if (index < 0 || reservedCompletions + reserve > device.cq.capacity()) {
            refuseConnect(
                    exchange,
                    ControlErrorCodes.RESOURCES_EXHAUSTED,
                    "no room for another RDMA connection: sessions=" + sessionsByConnection.size()
                            + " reservedCompletions=" + reservedCompletions + " cqEntries=" + device.cq.capacity());
            return;
        }
        // A protection domain per client: its rkeys work on its own queue pair only (see RdmaSession).
        ProtectionDomain pd = null;
        final QueuePair qp;
        try {
            pd = device.context.allocateProtectionDomain();
            qp = pd.createQueuePair(new QueuePairOptions()
                    .completionQueue(device.cq)
                    .maxSendWr(settings.maxSendWr())
                    .maxRecvWr(credits)
                    .maxSendSge(1)
                    .maxRecvSge(1)
                    .maxInlineData(MAX_INLINE_DATA));
        } catch (final RuntimeException e) {
            if (pd != null) {
                pd.close();
            }
            LOG.warn("RDMA connect failed: connectionId={} clientQpNumber={}", connectionId, request.qpNumber(), e);
            refuseConnect(exchange, ControlErrorCodes.UNKNOWN_SERVER_ERROR, e.getMessage());
            return;
        }
        final RdmaSession session = new RdmaSession(
                nextSessionId++,
                index,
                connectionId,
                qp,
                pd,
                AccessFlags.REMOTE_READ,
                credits,
                reserve,
                exchange.principal(),
                exchange.clientHost());
        final int psn = ThreadLocalRandom.current().nextInt(1 << 24);
        try {
            // Remote READ only until a produce grant needs more (RdmaSession.allowRemote).
            qp.moveToInit(device.port, session.remoteAccess);
            qp.moveToReadyToReceive(
                    new QueuePairAddress(
                            request.qpNumber(), request.packetSequenceNumber(), Gid.of(request.gid()), request.lid()),
                    mtu,
                    device.port,
                    device.gidIndex,
                    device.maxReadAtomic);
            final long wrId = session.wrId(RdmaSession.KIND_RECEIVE);
            for (int i = 0; i < credits; i++) {
                receives.set(i, wrId);
            }
            qp.postReceive(receives, credits);
            qp.moveToReadyToSend(psn, 1);
        } catch (final RuntimeException e) {
            session.closeResources();
            LOG.warn("RDMA connect failed: connectionId={} clientQpNumber={}", connectionId, request.qpNumber(), e);
            refuseConnect(exchange, ControlErrorCodes.UNKNOWN_SERVER_ERROR, e.getMessage());
            return;
        }
        sessions[index] = session;
        sessionsByConnection.put(connectionId, session);
        reservedCompletions += reserve;
        LOG.info(
                "RDMA session connected: {} clientQpNumber={} credits={} mtu={}",
                session,
                request.qpNumber(),
                credits,
                mtu.bytes());
        exchange.answer(connectResponse, RdmaConnectResponse.length(null))
                .errorCode(ControlErrorCodes.NONE)
                .capabilities((short) (RdmaConnectResponse.EXCLUSIVE_PRODUCE
                        | RdmaConnectResponse.CONSUME
                        | (shared != null && leaders.soleBroker() ? RdmaConnectResponse.SHARED_PRODUCE : 0)))
                .qpNumber(qp.qpNumber())
                .packetSequenceNumber(psn)
                .lid(device.lid)
                .gid(device.gid.raw())
                .produceCredits(credits)
                .mtu(mtu.value());
        exchange.complete();
    }

    private void refuseConnect(final ControlExchange exchange, final short errorCode, final String reason) {
        exchange.answer(connectResponse, RdmaConnectResponse.length(reason))
                .errorCode(errorCode)
                .reason(reason);
        exchange.complete();
    }

    /**
     * PRODUCE_ACCESS: answers {@code exchange} now or (shared access waiting for a roll or a grace period) later, by
     * running this again with the same request, still in its retained frame.
     */
    void produceAccess(final long connectionId, final ProduceAccessRequest request, final ControlExchange exchange) {
        final RdmaSession session = sessionsByConnection.get(connectionId);
        if (session == null) {
            refuseProduce(exchange, ControlErrorCodes.NOT_CONNECTED);
            return;
        }
        if (request.replica()) {
            replicaAccess(session, request, exchange);
            return;
        }
        if (!authorizer.authorizeTopic(session.principal, session.host, AclOperation.WRITE, request.topic())) {
            refuseProduce(exchange, ControlErrorCodes.TOPIC_AUTHORIZATION_FAILED);
            return;
        }
        final Partition partition = partition(request.topic(), request.partition());
        if (partition == null) {
            // On a cluster the metadata may name this broker the leader before it holds the partition (or after it
            // moved away): not the leader here, for now, as a Produce is answered.
            refuseProduce(
                    exchange,
                    leaders.leadership().heldElsewhere(new TopicPartition(request.topic(), request.partition()))
                            ? ControlErrorCodes.NOT_LEADER_OR_FOLLOWER
                            : ControlErrorCodes.UNKNOWN_TOPIC_OR_PARTITION);
            return;
        }
        final int leaderEpoch = leaders.grantEpoch(partition);
        if (leaderEpoch < 0) {
            refuseProduce(exchange, ControlErrorCodes.NOT_LEADER_OR_FOLLOWER);
            return;
        }
        if (request.acks() < -1 || request.acks() > 1 || request.timeoutMs() < 0) {
            refuseProduce(exchange, ControlErrorCodes.INVALID_REQUEST);
            return;
        }
        if (request.shared()) {
            if (shared == null || !leaders.soleBroker()) {
                // A node of a cluster serves exclusive produce only (see connect's capabilities).
                refuseProduce(exchange, ControlErrorCodes.RDMA_UNAVAILABLE);
                return;
            }
            shared.access(session, partition, request, exchange, () -> produceAccess(connectionId, request, exchange));
            return;
        }
        exclusiveAccess(session, partition, request, leaderEpoch, exchange);
    }

    private void refuseProduce(final ControlExchange exchange, final short errorCode) {
        exchange.answer(produceResponse, ProduceAccessResponse.LENGTH).errorCode(errorCode);
        exchange.complete();
    }

    private void exclusiveAccess(
            final RdmaSession session,
            final Partition partition,
            final ProduceAccessRequest request,
            final int leaderEpoch,
            final ControlExchange exchange) {
        ProduceGrant grant = session.produceGrant(partition);
        if (grant != null && grant.terms.leaderEpoch() != leaderEpoch) {
            // Made in an earlier leadership of this broker, which the sweep has not ended yet: it ends now.
            LOG.info("revoking RDMA produce access: leadership moved: {} {}", session, grant);
            revokeProduce(session, grant);
            grant = null;
        }
        if (!partition.tryClaimWriter(session)) {
            refuseProduce(exchange, ControlErrorCodes.ACCESS_HELD);
            return;
        }
        final PartitionLog log = partition.log();
        if (grant != null && request.rollsFullSegment()) {
            if (grant.segmentId() != request.fullSegmentId()) {
                refuseProduce(exchange, ControlErrorCodes.STALE_SEGMENT);
                return;
            }
            if (log.activeSegment().id() == request.fullSegmentId()) {
                log.roll();
            }
            session.produceGrants.remove(grant);
            grant.releaseAccess();
            grant = null;
            final PartitionSlots slots = partitionSlots.existing(partition);
            if (slots != null) {
                slots.run(); // readers of the full segment see it sealed now
            }
        }
        if (grant != null) {
            grant.suspended = false; // the producer learns the tail and order from this answer
        } else {
            try {
                session.allowProduce(AccessFlags.REMOTE_WRITE, settings.stagingSlotBytes());
                grant = ProduceGrant.exclusive(
                        session,
                        partition,
                        log.acquireActiveSegment(),
                        new ProduceTerms(leaderEpoch, request.acks(), request.timeoutMs()));
            } catch (final RuntimeException e) {
                partition.releaseWriter(session);
                LOG.warn("RDMA produce access failed: {} partition={}", session, partition.topicPartition(), e);
                refuseProduce(exchange, ControlErrorCodes.UNKNOWN_SERVER_ERROR);
                return;
            }
            session.produceGrants.add(grant);
            LOG.info("RDMA produce access granted: {} {}", session, grant);
        }
        grant.answer(exchange.answer(produceResponse, ProduceAccessResponse.LENGTH), grant.tail)
                .firstOrder(grant.nextOrder);
        exchange.complete();
    }

    /**
     * PRODUCE_ACCESS with REPLICA: push replication access for the partition's leader (KafkaDirect section 4.3.2), asked
     * by a principal with CLUSTER_ACTION (as a replica Fetch is), granted while this broker follows that leader in that
     * epoch with its replica in line ({@link PushAcceptance}), else NOT_LEADER_OR_FOLLOWER: the leader goes on with the
     * follower fetching over TCP and asks again later. The answer carries the replica's log end offset, where the
     * leader's writes must begin.
     */
    private void replicaAccess(
            final RdmaSession session, final ProduceAccessRequest request, final ControlExchange exchange) {
        if (!authorizer.authorizeCluster(session.principal, session.host, AclOperation.CLUSTER_ACTION)) {
            refuseProduce(exchange, ControlErrorCodes.CLUSTER_AUTHORIZATION_FAILED);
            return;
        }
        final Partition partition = partition(request.topic(), request.partition());
        if (partition == null) {
            refuseProduce(exchange, ControlErrorCodes.UNKNOWN_TOPIC_OR_PARTITION);
            return;
        }
        if (!pushes.accepts(partition, request.leaderId(), request.leaderEpoch())) {
            refuseProduce(exchange, ControlErrorCodes.NOT_LEADER_OR_FOLLOWER);
            return;
        }
        ProduceGrant grant = session.produceGrant(partition);
        if (grant != null) {
            // A leader asks again after an error ended its writes, or in a new epoch: the old grant ends first.
            dropProduce(session, grant);
        }
        try {
            session.allowProduce(AccessFlags.REMOTE_WRITE, settings.stagingSlotBytes());
            grant = ProduceGrant.replica(
                    session,
                    partition,
                    partition.log().acquireActiveSegment(),
                    request.leaderId(),
                    request.leaderEpoch());
        } catch (final RuntimeException e) {
            LOG.warn("RDMA push access failed: {} partition={}", session, partition.topicPartition(), e);
            refuseProduce(exchange, ControlErrorCodes.UNKNOWN_SERVER_ERROR);
            return;
        }
        session.produceGrants.add(grant);
        final long logEndOffset = partition.logEndOffset();
        LOG.info("RDMA push replication access granted: {} {} logEndOffset={}", session, grant, logEndOffset);
        grant.answer(exchange.answer(produceResponse, ProduceAccessResponse.LENGTH), logEndOffset)
                .capacity(Long.MAX_VALUE)
                .firstOrder(grant.nextOrder);
        exchange.complete();
    }

    /** CONSUME_ACCESS: fills {@code response}. */
    void consumeAccess(
            final long connectionId, final ConsumeAccessRequest request, final ConsumeAccessResponse response) {
        final RdmaSession session = sessionsByConnection.get(connectionId);
        if (session == null) {
            response.errorCode(ControlErrorCodes.NOT_CONNECTED);
            return;
        }
        if (!authorizer.authorizeTopic(session.principal, session.host, AclOperation.READ, request.topic())) {
            response.errorCode(ControlErrorCodes.TOPIC_AUTHORIZATION_FAILED);
            return;
        }
        final Partition partition = partition(request.topic(), request.partition());
        if (partition == null) {
            response.errorCode(ControlErrorCodes.UNKNOWN_TOPIC_OR_PARTITION);
            return;
        }
        // A follower, a leader that has not taken the metadata's epoch yet, or a broker whose lease ran out: the
        // consumer asks the metadata which broker leads now.
        final int leaderEpoch = leaders.grantEpoch(partition);
        if (leaderEpoch < 0) {
            response.errorCode(ControlErrorCodes.NOT_LEADER_OR_FOLLOWER);
            return;
        }
        final LogSegment segment;
        final long startPosition;
        try {
            final ReadStart start = ReadStart.locate(partition.log(), request.offset());
            segment = start.segment();
            startPosition = start.position();
        } catch (final OffsetOutOfRangeException e) {
            response.errorCode(ControlErrorCodes.OFFSET_OUT_OF_RANGE);
            return;
        }
        final SegmentLease lease = segment.tryAcquire();
        if (lease == null) {
            response.errorCode(ControlErrorCodes.OFFSET_OUT_OF_RANGE);
            return;
        }
        if (session.slotRange < 0) {
            final int range = slotRegion.allocateRange();
            if (range < 0) {
                lease.close();
                response.errorCode(ControlErrorCodes.RESOURCES_EXHAUSTED);
                return;
            }
            try {
                // The session's own range only: it can READ no other client's slots.
                session.slotRegistration = session.pd.registerMemory(slotRegion.range(range), AccessFlags.REMOTE_READ);
            } catch (final RuntimeException e) {
                slotRegion.freeRange(range);
                lease.close();
                throw e;
            }
            session.slotRange = range;
        }
        ConsumeGrant grant = session.consumeGrant(partition);
        final int slotIndex = grant != null ? grant.slotIndex : session.freeSlotIndex(slotRegion.slotsPerRange());
        if (slotIndex < 0) {
            lease.close();
            response.errorCode(ControlErrorCodes.RESOURCES_EXHAUSTED);
            return;
        }
        final SegmentRegistration registration = session.registrations.acquire(lease);
        if (grant == null) {
            grant = new ConsumeGrant(
                    partition,
                    partitionSlots.slotsFor(partition),
                    slotIndex,
                    slotRegion.slotOffset(session.slotRange, slotIndex),
                    registration,
                    leaderEpoch);
            session.consumeGrants.add(grant);
            grant.slots.assign(grant.slotOffset, segment);
        } else {
            // The slot moves to the new segment before the old one's registration (and lease) goes: a publication
            // meanwhile reads the segment the slot names.
            final SegmentRegistration previous = grant.registration;
            grant.registration = registration;
            grant.leaderEpoch = leaderEpoch;
            grant.slots.assign(grant.slotOffset, segment);
            session.registrations.release(previous);
        }
        final long readable = MetadataSlotDescriptor.readable(slotRegion.memory(), grant.slotOffset);
        response.errorCode(ControlErrorCodes.NONE)
                .segmentId(segment.id())
                .rkey(registration.rkey())
                .segmentAddress(registration.address())
                .startPosition(startPosition)
                .readablePosition(MetadataSlotDescriptor.position(readable))
                .capacity(segment.capacity())
                .segmentBaseOffset(segment.baseOffset())
                .slotRegionAddress(session.slotRegistration.address())
                .slotRegionRkey(session.slotRegistration.rkey())
                .slotIndex(grant.slotIndex)
                .slotCount(session.slotsInUse())
                .flags(MetadataSlotDescriptor.isSealed(readable) ? ConsumeAccessResponse.SEALED : 0);
        final AbortedTransactionArray aborted = grant.slots.aborted();
        synchronized (grant.slots) {
            final MemoryRegion abortedRegion = grant.abortedRegion(session.pd, aborted.memory());
            response.abortedAddress(abortedRegion.address())
                    .abortedRkey(abortedRegion.rkey())
                    .abortedCapacity(aborted.capacity())
                    .abortedBase(aborted.base());
        }
    }

    /** RELEASE_ACCESS: fills {@code response}. */
    void release(final long connectionId, final ReleaseAccessRequest request, final ReleaseAccessResponse response) {
        final RdmaSession session = sessionsByConnection.get(connectionId);
        if (session == null) {
            response.errorCode(ControlErrorCodes.NOT_CONNECTED);
            return;
        }
        final Partition partition = partition(request.topic(), request.partition());
        if (partition == null) {
            response.errorCode(ControlErrorCodes.UNKNOWN_TOPIC_OR_PARTITION);
            return;
        }
        switch (request.access()) {
            case ReleaseAccessRequest.PRODUCE -> {
                final ProduceGrant grant = session.produceGrant(partition);
                if (grant != null) {
                    dropProduce(session, grant);
                }
            }
            case ReleaseAccessRequest.CONSUME -> {
                final ConsumeGrant grant = session.consumeGrant(partition);
                if (grant != null) {
                    dropConsume(session, grant, false);
                }
            }
            default -> {
                response.errorCode(ControlErrorCodes.INVALID_REQUEST);
                return;
            }
        }
        response.errorCode(ControlErrorCodes.NONE);
    }

    /** The TCP connection closed: tear its session down (if it had one). */
    boolean connectionClosed(final long connectionId) {
        final RdmaSession session = sessionsByConnection.get(connectionId);
        if (session != null) {
            teardown(session, "TCP connection closed");
        }
        return session != null;
    }

    // ------------------------------------------------------------------ taking access away

    /**
     * The ACLs changed: every session holding a grant its principal may no longer have is torn down, its queue pair
     * destroyed, so its next READ or WRITE fails at the NIC and its next access request is answered
     * TOPIC_AUTHORIZATION_FAILED. Returns the sessions torn down.
     */
    int reauthorize() {
        int closed = 0;
        for (final RdmaSession session : sessions) {
            if (session == null) {
                continue;
            }
            final String lost = lostGrant(session);
            if (lost != null) {
                LOG.info(
                        "RDMA session loses its access after an ACL change: {} principal={} {}",
                        session,
                        session.principal,
                        lost);
                teardown(session, "ACLs changed: " + lost);
                revokedGrants++;
                closed++;
            }
        }
        return closed;
    }

    /** A grant of {@code session} its principal may no longer hold, described, or null. */
    private String lostGrant(final RdmaSession session) {
        for (final ProduceGrant grant : session.produceGrants) {
            if (grant.isReplica()) {
                if (!authorizer.authorizeCluster(session.principal, session.host, AclOperation.CLUSTER_ACTION)) {
                    return "may no longer push replicas (CLUSTER_ACTION)";
                }
                continue;
            }
            if (!authorizer.authorizeTopic(
                    session.principal,
                    session.host,
                    AclOperation.WRITE,
                    grant.partition.topicPartition().topic())) {
                return "may no longer write " + grant.partition.topicPartition();
            }
        }
        for (final ConsumeGrant grant : session.consumeGrants) {
            if (!authorizer.authorizeTopic(
                    session.principal,
                    session.host,
                    AclOperation.READ,
                    grant.partition.topicPartition().topic())) {
                return "may no longer read " + grant.partition.topicPartition();
            }
        }
        return null;
    }

    /**
     * Answers a write under {@code grant} with {@code errorCode} (nothing of it was committed), in the grant's answer
     * order, and takes the grant away: the writer asks for access again before it writes more.
     */
    void refuseWrite(
            final RdmaSession session,
            final ProduceGrant grant,
            final SharedProducePath.Acker acker,
            final int immediate,
            final short errorCode) {
        grant.answers.answer(session, acker, -1, immediate, errorCode);
        revokeProduce(session, grant);
    }

    /**
     * Takes {@code grant} away and counts it: a write under it was rejected, its segment was deleted, or its leadership
     * moved (a shared one's word rkey goes with it).
     */
    void revokeProduce(final RdmaSession session, final ProduceGrant grant) {
        dropProduce(session, grant);
        revokedGrants++;
        revokedProduceGrants++;
    }

    private void dropProduce(final RdmaSession session, final ProduceGrant grant) {
        session.produceGrants.remove(grant);
        if (grant.shared != null) {
            shared.dropGrant(grant);
            return;
        }
        grant.releaseAccess();
        grant.partition.releaseWriter(session);
    }

    private void dropConsume(final RdmaSession session, final ConsumeGrant grant, final boolean revoked) {
        session.consumeGrants.remove(grant);
        partitionSlots.vacate(grant.slots, grant.slotOffset, revoked);
        session.registrations.release(grant.registration);
        // Deregistered before the arrays they cover can be freed.
        grant.releaseAbortedRegions();
        partitionSlots.closeIfUnused(grant.partition, grant.slots);
    }

    /**
     * Takes back access to segments retention deleted, and every read and produce grant of a leadership this broker
     * lost (a follower now, a later leader epoch, or its quorum lease ran out): the reader's slot says REVOKED, a
     * producer's next write is answered ACCESS_REVOKED, and their next access request NOT_LEADER_OR_FOLLOWER, so they
     * move to the new leader. Returns the grants revoked.
     */
    int sweep() {
        int revoked = 0;
        for (final RdmaSession session : sessions) {
            if (session == null) {
                continue;
            }
            for (int i = session.consumeGrants.size() - 1; i >= 0; i--) {
                final ConsumeGrant grant = session.consumeGrants.get(i);
                final String why = grant.registration.segment().isDeleted()
                        ? "segment deleted"
                        : leaders.holds(grant.partition, grant.leaderEpoch) ? null : "leadership moved";
                if (why != null) {
                    LOG.info(
                            "revoking RDMA read access: {}: {} partition={} leaderEpoch={} segment={}",
                            why,
                            session,
                            grant.partition.topicPartition(),
                            grant.leaderEpoch,
                            grant.registration.segment());
                    dropConsume(session, grant, true);
                    revokedGrants++;
                    revoked++;
                }
            }
            for (int i = session.produceGrants.size() - 1; i >= 0; i--) {
                final ProduceGrant grant = session.produceGrants.get(i);
                final String why = grant.lease.segment().isDeleted()
                        ? "segment deleted"
                        : grant.isReplica()
                                ? pushes.accepts(grant.partition, grant.replicaLeaderId, grant.terms.leaderEpoch())
                                        ? null
                                        : "no longer following that leader in that epoch"
                                : leaders.holds(grant.partition, grant.terms.leaderEpoch()) ? null : "leadership moved";
                if (why != null) {
                    LOG.info("revoking RDMA produce access: {}: {} {}", why, session, grant);
                    revokeProduce(session, grant);
                    revoked++;
                }
            }
        }
        return revoked;
    }

    void teardown(final RdmaSession session, final String reason) {
        if (sessions[session.index] != session) {
            return;
        }
        sessions[session.index] = null;
        sessionsByConnection.remove(session.connectionId);
        reservedCompletions -= session.reservedCompletions;
        for (int i = session.produceGrants.size() - 1; i >= 0; i--) {
            dropProduce(session, session.produceGrants.get(i));
        }
        for (int i = session.consumeGrants.size() - 1; i >= 0; i--) {
            dropConsume(session, session.consumeGrants.get(i), false);
        }
        try {
            session.qp.moveToError();
        } catch (final RuntimeException e) {
            LOG.debug("moving a QP to ERR failed: {}", session, e);
        }
        session.closeResources();
        if (session.slotRange >= 0) {
            slotRegion.freeRange(session.slotRange);
        }
        LOG.info("RDMA session closed: {} reason={} registrationsLeft={}", session, reason, registrationCount());
    }

    private int freeSessionIndex() {
        for (int i = 0; i < sessions.length; i++) {
            if (sessions[i] == null) {
                return i;
            }
        }
        return -1;
    }

    private Partition partition(final String topic, final int partition) {
        if (topic == null) {
            return null;
        }
        return partitions.partition(new TopicPartition(topic, partition)).orElse(null);
    }
    /** Produce or consume grants revoked by the broker (bad writes, deleted segments, leaderships lost). */
    long revokedGrants() {
        return revokedGrants;
    }

    long revokedProduceGrants() {
        return revokedProduceGrants;
    }

    // ------------------------------------------------------------------ introspection and faults for tests

    /** Segment registrations alive now, over every session. */
    int registrationCount() {
        int count = 0;
        for (final RdmaSession session : sessions) {
            if (session != null) {
                count += session.registrations.size();
            }
        }
        return count;
    }

    /** Whether any session has the segment with this id registered (for remote READ: the only kind there is). */
    boolean isRegistered(final int segmentId) {
        for (final RdmaSession session : sessions) {
            if (session != null && session.registrations.isRegistered(segmentId)) {
                return true;
            }
        }
        return false;
    }

    /** What {@code ibv_query_qp} says each live session's queue pair allows remote peers. */
    List<Integer> queuePairAccessFlags() {
        final List<Integer> flags = new ArrayList<>();
        for (final RdmaSession session : sessions) {
            if (session != null) {
                flags.add(session.qp.query().accessFlags());
            }
        }
        return flags;
    }

    int sessionCount() {
        return sessionsByConnection.size();
    }

    /** Moves every session's queue pair to the error state; see {@link RdmaDatapath#breakQueuePairs}. */
    int breakQueuePairs() {
        int broken = 0;
        for (final RdmaSession session : sessions) {
            if (session != null) {
                session.qp.moveToError();
                broken++;
            }
        }
        return broken;
    }

    /** Suspends every exclusive grant; see {@link RdmaDatapath#suspendExclusiveProduceGrants}. */
    int suspendExclusiveProduceGrants() {
        int suspended = 0;
        for (final RdmaSession session : sessions) {
            if (session == null) {
                continue;
            }
            for (final ProduceGrant grant : session.produceGrants) {
                if (grant.shared == null) {
                    grant.suspended = true;
                    suspended++;
                }
            }
        }
        return suspended;
    }

    /** Tears every session down and frees the slot region (after the datapath thread stopped). */
    @Override
    public void close() {
        for (final RdmaSession session : sessions) {
            if (session != null) {
                teardown(session, "broker shutdown");
            }
        }
        partitionSlots.closeAll();
        slotRegion.close();
    }
}
