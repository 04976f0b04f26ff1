package io.isthmus.broker.rdma;

import io.isthmus.broker.log.LogReadResult;
import io.isthmus.broker.log.LogSegment;
import io.isthmus.broker.log.OffsetOutOfRangeException;
import io.isthmus.broker.log.PartitionLog;
import io.isthmus.broker.log.SegmentLease;
import io.isthmus.broker.log.SegmentNotWritableException;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.ffi.verbs.AccessFlags;
import io.isthmus.ffi.verbs.Gid;
import io.isthmus.ffi.verbs.MemoryRegion;
import io.isthmus.ffi.verbs.Mtu;
import io.isthmus.ffi.verbs.Opcode;
import io.isthmus.ffi.verbs.QueuePair;
import io.isthmus.ffi.verbs.QueuePairAddress;
import io.isthmus.ffi.verbs.QueuePairOptions;
import io.isthmus.ffi.verbs.ReceiveWorkRequests;
import io.isthmus.ffi.verbs.SendFlags;
import io.isthmus.ffi.verbs.SendWorkRequests;
import io.isthmus.ffi.verbs.WorkCompletionOpcode;
import io.isthmus.ffi.verbs.WorkCompletions;
import io.isthmus.protocol.control.ConsumeAccessRequest;
import io.isthmus.protocol.control.ConsumeAccessResponse;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ControlMessage;
import io.isthmus.protocol.control.MetadataSlotDescriptor;
import io.isthmus.protocol.control.ProduceAccessRequest;
import io.isthmus.protocol.control.ProduceAccessResponse;
import io.isthmus.protocol.control.ProduceAckDescriptor;
import io.isthmus.protocol.control.ProduceImmediateDescriptor;
import io.isthmus.protocol.control.RdmaConnectRequest;
import io.isthmus.protocol.control.RdmaConnectResponse;
import io.isthmus.protocol.control.ReleaseAccessRequest;
import io.isthmus.protocol.control.ReleaseAccessResponse;
import io.isthmus.protocol.record.InvalidRecordBatchException;
import io.isthmus.protocol.record.RecordBatchDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's RDMA datapath: one thread that owns every client queue pair, the completion queue they share, the
 * registration cache and the access grants. It alternates between control commands (connect, access, release, handed
 * over from the network threads) and busy-polling the completion queue, backing off through an {@link IdleStrategy}.
 *
 * <p><b>Exclusive produce.</b> A producer WRITEs one whole batch per WRITE WITH IMM at its grant's tail. Completions
 * arrive in the order the writes were made (RC delivers in order, and one thread handles them), so for each: the
 * immediate must name the granted segment and the next order; the batch length is read from the batch header at the
 * tail, never from {@code byte_len}; {@link Partition#commitWritten} validates the CRC in place, checks the
 * idempotent-producer state like a TCP produce, assigns offsets and publishes; append observers refresh the metadata
 * slots and long-poll fetches wake; then the receive is posted again (the producer's credit) and a {@link
 * ProduceAckDescriptor SEND} carries the base offset back. A bad batch is zeroed, never committed, answered with an
 * error and the producer's registration revoked, so its rkey stops working. A write that arrives after its grant was
 * dropped is answered {@link ControlErrorCodes#ACCESS_REVOKED}: nothing of it was committed, so the producer may write it
 * again once it has asked for access again. A retried batch already in the log (its first attempt's ack was lost with a
 * connection) is discarded and answered {@link ControlErrorCodes#DUPLICATE_SEQUENCE_NUMBER} with its original offset;
 * the tail did not move, so the grant is suspended (later writes are answered ACCESS_REVOKED, uncommitted) until the
 * producer asks for access again and learns the tail.
 *
 * <p><b>Shared produce.</b> Producers that ask for shared access reserve space through a per-segment word with
 * FETCH_AND_ADD and the broker commits their writes, and its own TCP producers' batches, strictly in reservation order;
 * see {@link SharedProducePath}.
 *
 * <p><b>Flow control.</b> A client may have at most {@code credits} writes unacknowledged, exactly the receives posted
 * for it; the completion queue is never promised more entries than it has (connections beyond that are refused). Acks
 * are signalled one in {@code maxSendWr / 4}, and each signalled completion retires that many send-queue entries: an
 * ack that finds its session's send queue full (the client's NIC acknowledges our SENDs slower than it writes) waits,
 * in order, in the session's ring of {@code credits} pending acks and is posted when completions free room. Nothing
 * is posted into a full send queue at any speed.
 *
 * <p><b>Failure.</b> A completion in error (the client died, its QP broke, it wrote with a revoked rkey) or the TCP
 * connection closing tears the session down: its QP is destroyed, its grants are released, and registrations nobody
 * else uses are deregistered. A segment that retention deleted is revoked from its readers by a periodic sweep: their
 * slot says REVOKED and asking again gives OFFSET_OUT_OF_RANGE.
 */
public final class RdmaDatapath implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaDatapath.class);
    private static final long SWEEP_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** How often shared produce checks for stalled reservations and ended grace periods. */
    private static final long TICK_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private static final int POLL_BATCH = 32;
    private static final int MAX_INLINE_DATA = 64;

    private final RdmaSettings settings;
    private final RdmaDevice device;
    private final PartitionManager partitions;
    private final SegmentRegistrations registrations;
    private final MetadataSlotRegion slotRegion;
    private final Map<Partition, PartitionSlots> partitionSlots = new HashMap<>();
    private final RdmaSession[] sessions;
    private final Map<Long, RdmaSession> sessionsByConnection = new HashMap<>();
    private final Arena arena = Arena.ofShared();
    private final WorkCompletions completions;
    private final SendWorkRequests sends;
    private final ReceiveWorkRequests receives;
    private final MemorySegment acks;
    private final MemoryRegion ackRegion;
    private final int signalInterval;
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final IdleStrategy idle;
    /** Shared produce, or null where the device cannot do the broker's own atomics. */
    private final SharedProducePath shared;

    private final Thread thread;
    private volatile boolean running = true;
    private int reservedCompletions;
    private long nextSessionId = 1;

    private volatile long commits;
    private volatile long rejectedWrites;
    private volatile long revokedWrites;
    private volatile long duplicateWrites;
    private volatile long deferredAcks;
    /** Fault injection for tests: how long the datapath thread sleeps before each ack (0: never). */
    private volatile long ackDelayNanos;

    private volatile long receiveCompletions;
    private volatile long revokedGrants;

    private RdmaDatapath(
            final RdmaSettings settings,
            final RdmaDevice device,
            final PartitionManager partitions,
            final IdleStrategy idle) {
        this.settings = settings;
        this.device = device;
        this.partitions = partitions;
        this.idle = idle;
        this.registrations = new SegmentRegistrations(device.pd);
        this.slotRegion = new MetadataSlotRegion(device.pd, settings.maxConnections(), settings.slotsPerConnection());
        this.sessions = new RdmaSession[Math.min(settings.maxConnections(), 1 << RdmaSession.INDEX_BITS)];
        this.completions = WorkCompletions.allocate(arena, POLL_BATCH);
        this.sends = SendWorkRequests.allocate(arena, 1, 1);
        this.receives = ReceiveWorkRequests.allocate(arena, Math.max(1, settings.maxRecvWr()), 1);
        // One ring of maxSendWr acks per session: a SEND's buffer is free again once the send queue wrapped past it.
        this.acks = arena.allocate((long) sessions.length * settings.maxSendWr() * ProduceAckDescriptor.LENGTH, 64);
        this.ackRegion = device.pd.registerMemory(acks, AccessFlags.LOCAL_WRITE);
        this.signalInterval = Math.max(1, settings.maxSendWr() / 4);
        this.shared = openSharedProduce();
        this.thread = new Thread(this::run, "isthmus-rdma-datapath");
        this.thread.setDaemon(true);
    }

    private SharedProducePath openSharedProduce() {
        try {
            return new SharedProducePath(settings, device, registrations, this::ack, this::execute);
        } catch (final RuntimeException e) {
            LOG.warn("shared RDMA produce unavailable: the broker cannot run atomics on its own device", e);
            return null;
        }
    }

    /** Opens the device and starts the datapath thread. */
    static RdmaDatapath start(final RdmaSettings settings, final PartitionManager partitions) {
        final RdmaDevice device = RdmaDevice.open(settings);
        final RdmaDatapath datapath;
        try {
            datapath = new RdmaDatapath(
                    settings,
                    device,
                    partitions,
                    new BackoffIdleStrategy(
                            100, 50, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(1)));
        } catch (final RuntimeException e) {
            device.close();
            throw e;
        }
        datapath.thread.start();
        LOG.info(
                "RDMA datapath started: device={} port={} gidIndex={} gid={} mtu={} cqEntries={}",
                device.deviceName(),
                device.port,
                device.gidIndex,
                device.gid,
                device.mtu.bytes(),
                device.cq.capacity());
        return datapath;
    }

    String deviceName() {
        return device.deviceName();
    }

    // ------------------------------------------------------------------ control commands (any thread)

    CompletableFuture<ControlMessage> connect(final long connectionId, final RdmaConnectRequest request) {
        return submit(() -> doConnect(connectionId, request));
    }

    CompletableFuture<ControlMessage> produceAccess(final long connectionId, final ProduceAccessRequest request) {
        final CompletableFuture<ControlMessage> result = new CompletableFuture<>();
        if (!running) {
            result.completeExceptionally(new IllegalStateException("RDMA datapath is closed"));
            return result;
        }
        execute(() -> doProduceAccess(connectionId, request, result));
        return result;
    }

    CompletableFuture<ControlMessage> consumeAccess(final long connectionId, final ConsumeAccessRequest request) {
        return submit(() -> doConsumeAccess(connectionId, request));
    }

    CompletableFuture<ControlMessage> release(final long connectionId, final ReleaseAccessRequest request) {
        return submit(() -> doRelease(connectionId, request));
    }

    /** The TCP connection closed: tear its session down (if it had one). */
    CompletableFuture<Boolean> connectionClosed(final long connectionId) {
        return submit(() -> {
            final RdmaSession session = sessionsByConnection.get(connectionId);
            if (session != null) {
                teardown(session, "TCP connection closed");
            }
            return session != null;
        });
    }

    /** Queues {@code command} for the datapath thread. */
    private void execute(final Runnable command) {
        commands.offer(command);
        LockSupport.unpark(thread);
    }

    /** Runs {@code command} on the datapath thread; for the broker's own use (tests, shutdown). */
    <T> CompletableFuture<T> submit(final Supplier<T> command) {
        final CompletableFuture<T> result = new CompletableFuture<>();
        if (!running) {
            result.completeExceptionally(new IllegalStateException("RDMA datapath is closed"));
            return result;
        }
        commands.offer(() -> {
            try {
                result.complete(command.get());
            } catch (final RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        LockSupport.unpark(thread);
        return result;
    }

    // ------------------------------------------------------------------ counters (any thread)

    /** Batches committed from RDMA writes (and, under shared produce, TCP batches committed in the shared order). */
    public long commits() {
        return commits + (shared == null ? 0 : shared.commits());
    }

    /** Shared segments whose access was revoked (a reservation not written in time, or a bad write). */
    public long sharedRevocations() {
        return shared == null ? 0 : shared.revocations();
    }

    /** Writes to shared segments answered ACCESS_REVOKED. */
    public long revokedSharedWrites() {
        return shared == null ? 0 : shared.revokedWrites();
    }

    /** RDMA writes rejected (bad batch, wrong order or segment). */
    public long rejectedWrites() {
        return rejectedWrites;
    }

    /** Exclusive writes answered ACCESS_REVOKED: they arrived after their grant was dropped or suspended. */
    public long revokedWrites() {
        return revokedWrites;
    }

    /** Exclusive writes discarded as duplicates of batches already in the log. */
    public long duplicateWrites() {
        return duplicateWrites;
    }

    /** Acks that had to wait for send-queue room. */
    public long deferredAcks() {
        return deferredAcks;
    }

    /** Receive completions handled: one per produce WRITE WITH IMM; READs of slots or segments cause none. */
    public long receiveCompletions() {
        return receiveCompletions;
    }

    /** Produce or consume grants revoked by the broker (bad writes, deleted segments). */
    public long revokedGrants() {
        return revokedGrants;
    }

    // ------------------------------------------------------------------ the thread

    private void run() {
        long nextSweep = System.nanoTime() + SWEEP_INTERVAL_NANOS;
        long nextTick = System.nanoTime() + TICK_INTERVAL_NANOS;
        while (running) {
            int work = 0;
            try {
                work += runCommands();
                work += pollCompletions();
                final long now = System.nanoTime();
                if (shared != null && now - nextTick >= 0) {
                    work += shared.tick(now);
                    nextTick = now + TICK_INTERVAL_NANOS;
                }
                if (work == 0) {
                    if (now - nextSweep >= 0) {
                        work += sweepDeletedSegments();
                        nextSweep = now + SWEEP_INTERVAL_NANOS;
                    }
                }
            } catch (final RuntimeException e) {
                LOG.error("RDMA datapath pass failed; carrying on", e);
            }
            idle.idle(work);
        }
    }

    private int runCommands() {
        int done = 0;
        Runnable command;
        while ((command = commands.poll()) != null) {
            command.run();
            done++;
        }
        return done;
    }

    private int pollCompletions() {
        final int count = device.cq.poll(completions);
        for (int i = 0; i < count; i++) {
            handleCompletion(i);
        }
        return count;
    }

    private void handleCompletion(final int i) {
        final long wrId = completions.wrId(i);
        final int index = RdmaSession.indexOf(wrId);
        final RdmaSession session = index < sessions.length ? sessions[index] : null;
        if (session == null || session.sessionId != RdmaSession.sessionIdOf(wrId)) {
            return; // a late completion of a session already torn down
        }
        if (!completions.isSuccess(i)) {
            LOG.warn(
                    "RDMA completion failed, tearing the session down: {} completion={}",
                    session,
                    completions.describe(i));
            teardown(session, "completion error");
            return;
        }
        if (RdmaSession.kindOf(wrId) == RdmaSession.KIND_SEND) {
            // A signalled ack: the send queue drained up to it; acks waiting for room go now.
            session.sendQueued -= signalInterval;
            postPendingAcks(session);
            return;
        }
        receiveCompletions++;
        if (completions.opcode(i) != WorkCompletionOpcode.RECV_RDMA_WITH_IMM || !completions.hasImmediate(i)) {
            LOG.warn(
                    "unexpected receive, tearing the session down: {} completion={}", session, completions.describe(i));
            teardown(session, "unexpected receive");
            return;
        }
        onProduceWrite(session, completions.immediate(i));
    }

    private void onProduceWrite(final RdmaSession session, final int immediate) {
        if (!postReceive(session, 1)) {
            return;
        }
        final int segmentId = ProduceImmediateDescriptor.segmentId(immediate);
        final ProduceGrant grant = session.produceGrantForSegment(segmentId);
        if (grant == null || grant.suspended) {
            // Written before the producer learned that its access was dropped: not committed, safe to write again.
            revokedWrites++;
            LOG.debug(
                    "WRITE WITH IMM after its grant was {}, answered ACCESS_REVOKED: {} segmentId={} order={}",
                    grant == null ? "dropped" : "suspended",
                    session,
                    segmentId,
                    ProduceImmediateDescriptor.order(immediate));
            ack(session, -1, immediate, ControlErrorCodes.ACCESS_REVOKED);
            return;
        }
        final int order = ProduceImmediateDescriptor.order(immediate);
        if (grant.shared != null) {
            shared.onWrite(session, grant, immediate, order);
            return;
        }
        if (order != grant.nextOrder) {
            reject(
                    session,
                    grant,
                    immediate,
                    ControlErrorCodes.OUT_OF_ORDER_WRITE,
                    "order=" + order + " expected=" + grant.nextOrder);
            return;
        }
        final MemorySegment memory = grant.registration.memory();
        final long capacity = memory.byteSize();
        final long tail = grant.tail;
        final long length = grant.registration.batchLengthAt(tail);
        if (length < 0) {
            // Zeroing the header is enough: recovery and the next writer both stop at a zero header.
            memory.asSlice(tail, Math.min(RecordBatchDescriptor.HEADER_LENGTH, capacity - tail))
                    .fill((byte) 0);
            reject(
                    session,
                    grant,
                    immediate,
                    ControlErrorCodes.CORRUPT_MESSAGE,
                    "no whole batch at the tail: tail=" + tail + " capacity=" + capacity);
            return;
        }
        final Partition.ProduceOutcome outcome;
        try {
            outcome = grant.partition.commitWritten(segmentId, tail, length);
        } catch (final InvalidRecordBatchException e) {
            reject(session, grant, immediate, ControlErrorCodes.CORRUPT_MESSAGE, e.getMessage());
            return;
        } catch (final SegmentNotWritableException e) {
            reject(session, grant, immediate, ControlErrorCodes.STALE_SEGMENT, e.getMessage());
            return;
        }
        switch (outcome.error()) {
            case NONE -> {
                grant.committed(length);
                commits++;
                grant.partition.notifyAppendListeners();
                ack(session, outcome.baseOffset(), immediate, ControlErrorCodes.NONE);
            }
            case DUPLICATE_SEQUENCE_NUMBER -> {
                // Nothing written, the tail stays: suspend until the producer asks again and learns it.
                grant.skipped();
                grant.suspended = true;
                duplicateWrites++;
                ack(session, outcome.baseOffset(), immediate, ControlErrorCodes.DUPLICATE_SEQUENCE_NUMBER);
            }
            default ->
                // Kafka's codes, which the control protocol shares: OUT_OF_ORDER_SEQUENCE_NUMBER,
                // INVALID_PRODUCER_EPOCH.
                reject(session, grant, immediate, outcome.error().code(), outcome.message());
        }
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
        ack(session, -1, immediate, errorCode);
        dropProduce(session, grant);
        revokedGrants++;
    }

    private boolean postReceive(final RdmaSession session, final int count) {
        final long wrId = session.wrId(RdmaSession.KIND_RECEIVE);
        for (int i = 0; i < count; i++) {
            receives.set(i, wrId);
        }
        try {
            session.qp.postReceive(receives, count);
            return true;
        } catch (final RuntimeException e) {
            LOG.warn("posting receives failed, tearing the session down: {}", session, e);
            teardown(session, "post_recv failed");
            return false;
        }
    }

    /**
     * Answers a write: posts the ack now if the session's send queue has room and no earlier ack is waiting, else
     * queues it behind them.
     */
    private void ack(final RdmaSession session, final long baseOffset, final int immediate, final short errorCode) {
        final long delay = ackDelayNanos;
        if (delay > 0) {
            LockSupport.parkNanos(delay);
        }
        if (session.pendingCount == 0 && session.sendQueued < settings.maxSendWr()) {
            postAck(session, baseOffset, immediate, errorCode);
            return;
        }
        deferredAcks++;
        if (!session.offerPendingAck(baseOffset, immediate, errorCode)) {
            LOG.warn(
                    "more acks waiting than the client has credits, tearing the session down: {} pending={}",
                    session,
                    session.pendingCount);
            teardown(session, "acks beyond credits");
        }
    }

    private void postPendingAcks(final RdmaSession session) {
        while (session.pendingCount > 0 && session.sendQueued < settings.maxSendWr()) {
            final int at = session.pendingHead;
            session.removePendingAck();
            if (!postAck(
                    session,
                    session.pendingBaseOffsets[at],
                    session.pendingImmediates[at],
                    session.pendingErrors[at])) {
                return;
            }
        }
    }

    /** Posts one ack SEND; false if posting failed (the session is torn down then). */
    private boolean postAck(
            final RdmaSession session, final long baseOffset, final int immediate, final short errorCode) {
        final long offset =
                ((long) session.index * settings.maxSendWr() + session.ackCursor) * ProduceAckDescriptor.LENGTH;
        session.ackCursor = (session.ackCursor + 1) % settings.maxSendWr();
        ProduceAckDescriptor.write(acks, offset, baseOffset, immediate, errorCode);
        final boolean signal = ++session.unsignaledSends >= signalInterval;
        if (signal) {
            session.unsignaledSends = 0;
        }
        int flags = signal ? SendFlags.SIGNALED : 0;
        if (session.qp.maxInlineData() >= ProduceAckDescriptor.LENGTH) {
            flags |= SendFlags.INLINE;
        }
        sends.set(0, session.wrId(RdmaSession.KIND_SEND), Opcode.SEND, flags)
                .sge(0, 0, ackRegion, offset, ProduceAckDescriptor.LENGTH);
        try {
            session.qp.postSend(sends, 1);
        } catch (final RuntimeException e) {
            LOG.warn("posting an ack failed, tearing the session down: {}", session, e);
            teardown(session, "post_send failed");
            return false;
        }
        session.sendQueued++;
        return true;
    }

    // ------------------------------------------------------------------ commands (datapath thread)

    private ControlMessage doConnect(final long connectionId, final RdmaConnectRequest request) {
        if (sessionsByConnection.containsKey(connectionId)) {
            return RdmaConnectResponse.error(
                    ControlErrorCodes.INVALID_REQUEST, "connection already has an RDMA session");
        }
        final int credits = settings.creditsFor(request.ackCredits());
        if (credits < 1) {
            return RdmaConnectResponse.error(
                    ControlErrorCodes.INVALID_REQUEST,
                    "ackCredits must be at least 1: ackCredits=" + request.ackCredits());
        }
        final Mtu mtu;
        try {
            final Mtu asked = Mtu.of(request.mtu());
            mtu = asked.value() < device.mtu.value() ? asked : device.mtu;
        } catch (final IllegalArgumentException e) {
            return RdmaConnectResponse.error(ControlErrorCodes.INVALID_REQUEST, e.getMessage());
        }
        // Every posted receive and every send may complete (in error, flushed) at once: reserve for all of them.
        final int reserve = credits + settings.maxSendWr();
        final int index = freeSessionIndex();
        if (index < 0 || reservedCompletions + reserve > device.cq.capacity()) {
            return RdmaConnectResponse.error(
                    ControlErrorCodes.RESOURCES_EXHAUSTED,
                    "no room for another RDMA connection: sessions=" + sessionsByConnection.size()
                            + " reservedCompletions=" + reservedCompletions + " cqEntries=" + device.cq.capacity());
        }
        final QueuePair qp = device.pd.createQueuePair(new QueuePairOptions()
                .completionQueue(device.cq)
                .maxSendWr(settings.maxSendWr())
                .maxRecvWr(credits)
                .maxSendSge(1)
                .maxRecvSge(1)
                .maxInlineData(MAX_INLINE_DATA));
        final RdmaSession session = new RdmaSession(nextSessionId++, index, connectionId, qp, credits, reserve);
        final int psn = ThreadLocalRandom.current().nextInt(1 << 24);
        try {
            qp.moveToInit(device.port, AccessFlags.ALL_REMOTE);
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
            qp.close();
            LOG.warn("RDMA connect failed: connectionId={} request={}", connectionId, request, e);
            return RdmaConnectResponse.error(ControlErrorCodes.UNKNOWN_SERVER_ERROR, e.getMessage());
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
        return new RdmaConnectResponse(
                ControlErrorCodes.NONE,
                (short) (RdmaConnectResponse.EXCLUSIVE_PRODUCE
                        | RdmaConnectResponse.CONSUME
                        | (shared != null ? RdmaConnectResponse.SHARED_PRODUCE : 0)),
                qp.qpNumber(),
                psn,
                device.lid,
                device.gid.raw(),
                credits,
                mtu.value(),
                null);
    }

    private void doProduceAccess(
            final long connectionId,
            final ProduceAccessRequest request,
            final CompletableFuture<ControlMessage> result) {
        final RdmaSession session = sessionsByConnection.get(connectionId);
        if (session == null) {
            result.complete(ProduceAccessResponse.error(ControlErrorCodes.NOT_CONNECTED));
            return;
        }
        final Partition partition = partition(request.topic(), request.partition());
        if (partition == null) {
            result.complete(ProduceAccessResponse.error(ControlErrorCodes.UNKNOWN_TOPIC_OR_PARTITION));
            return;
        }
        if (request.shared()) {
            if (shared == null) {
                result.complete(ProduceAccessResponse.error(ControlErrorCodes.RDMA_UNAVAILABLE));
                return;
            }
            shared.access(session, partition, request, result, () -> doProduceAccess(connectionId, request, result));
            return;
        }
        result.complete(exclusiveAccess(session, partition, request));
    }

    private ControlMessage exclusiveAccess(
            final RdmaSession session, final Partition partition, final ProduceAccessRequest request) {
        if (!partition.tryClaimWriter(session)) {
            return ProduceAccessResponse.error(ControlErrorCodes.ACCESS_HELD);
        }
        ProduceGrant grant = session.produceGrant(partition);
        final PartitionLog log = partition.log();
        if (grant != null && request.rollsFullSegment()) {
            if (grant.segmentId() != request.fullSegmentId()) {
                return ProduceAccessResponse.error(ControlErrorCodes.STALE_SEGMENT);
            }
            if (log.activeSegment().id() == request.fullSegmentId()) {
                log.roll();
            }
            session.produceGrants.remove(grant);
            registrations.release(grant.registration);
            grant = null;
            final PartitionSlots slots = partitionSlots.get(partition);
            if (slots != null) {
                slots.run(); // readers of the full segment see it sealed now
            }
        }
        if (grant != null) {
            grant.suspended = false; // the producer learns the tail and order from this answer
        } else {
            try {
                final SegmentLease lease = log.acquireActiveSegment();
                grant = ProduceGrant.exclusive(partition, registrations.acquire(lease, true));
            } catch (final RuntimeException e) {
                partition.releaseWriter(session);
                LOG.warn("RDMA produce access failed: {} partition={}", session, partition.topicPartition(), e);
                return ProduceAccessResponse.error(ControlErrorCodes.UNKNOWN_SERVER_ERROR);
            }
            session.produceGrants.add(grant);
            LOG.info("RDMA produce access granted: {} {}", session, grant);
        }
        final LogSegment segment = grant.registration.segment();
        return ProduceAccessResponse.exclusive(
                segment.id(),
                grant.registration.rkey(),
                grant.registration.address(),
                grant.tail,
                segment.capacity(),
                segment.baseOffset(),
                grant.nextOrder);
    }

    private ControlMessage doConsumeAccess(final long connectionId, final ConsumeAccessRequest request) {
        final RdmaSession session = sessionsByConnection.get(connectionId);
        if (session == null) {
            return ConsumeAccessResponse.error(ControlErrorCodes.NOT_CONNECTED);
        }
        final Partition partition = partition(request.topic(), request.partition());
        if (partition == null) {
            return ConsumeAccessResponse.error(ControlErrorCodes.UNKNOWN_TOPIC_OR_PARTITION);
        }
        final PartitionLog log = partition.log();
        final LogSegment segment;
        final long startPosition;
        try {
            if (request.offset() == log.logEndOffset()) {
                segment = log.activeSegment();
                startPosition = segment.committedPosition();
            } else {
                try (LogReadResult result = log.read(request.offset(), 1)) {
                    segment = result.isEmpty() ? log.activeSegment() : result.segment();
                    startPosition = result.isEmpty() ? segment.committedPosition() : result.filePosition();
                }
            }
        } catch (final OffsetOutOfRangeException e) {
            return ConsumeAccessResponse.error(ControlErrorCodes.OFFSET_OUT_OF_RANGE);
        }
        final SegmentLease lease = segment.tryAcquire();
        if (lease == null) {
            return ConsumeAccessResponse.error(ControlErrorCodes.OFFSET_OUT_OF_RANGE);
        }
        if (session.slotRange < 0) {
            session.slotRange = slotRegion.allocateRange();
            if (session.slotRange < 0) {
                lease.close();
                return ConsumeAccessResponse.error(ControlErrorCodes.RESOURCES_EXHAUSTED);
            }
        }
        ConsumeGrant grant = session.consumeGrant(partition);
        final int slotIndex = grant != null ? grant.slotIndex : session.freeSlotIndex(slotRegion.slotsPerRange());
        if (slotIndex < 0) {
            lease.close();
            return ConsumeAccessResponse.error(ControlErrorCodes.RESOURCES_EXHAUSTED);
        }
        final SegmentRegistration registration = registrations.acquire(lease, false);
        if (grant == null) {
            grant = new ConsumeGrant(
                    partition,
                    slotsFor(partition),
                    slotIndex,
                    slotRegion.slotOffset(session.slotRange, slotIndex),
                    registration);
            session.consumeGrants.add(grant);
        } else {
            final SegmentRegistration previous = grant.registration;
            grant.registration = registration;
            registrations.release(previous);
        }
        grant.slots.assign(grant.slotOffset, segment);
        final long readable = MetadataSlotDescriptor.readable(slotRegion.memory(), grant.slotOffset);
        return new ConsumeAccessResponse(
                ControlErrorCodes.NONE,
                segment.id(),
                registration.rkey(),
                registration.address(),
                startPosition,
                MetadataSlotDescriptor.position(readable),
                segment.capacity(),
                segment.baseOffset(),
                slotRegion.rangeAddress(session.slotRange),
                slotRegion.rkey(),
                grant.slotIndex,
                session.slotsInUse(),
                MetadataSlotDescriptor.isSealed(readable) ? ConsumeAccessResponse.SEALED : 0);
    }

    private ControlMessage doRelease(final long connectionId, final ReleaseAccessRequest request) {
        final RdmaSession session = sessionsByConnection.get(connectionId);
        if (session == null) {
            return new ReleaseAccessResponse(ControlErrorCodes.NOT_CONNECTED);
        }
        final Partition partition = partition(request.topic(), request.partition());
        if (partition == null) {
            return new ReleaseAccessResponse(ControlErrorCodes.UNKNOWN_TOPIC_OR_PARTITION);
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
                return new ReleaseAccessResponse(ControlErrorCodes.INVALID_REQUEST);
            }
        }
        return new ReleaseAccessResponse(ControlErrorCodes.NONE);
    }

    // ------------------------------------------------------------------ grants and sessions (datapath thread)

    private void dropProduce(final RdmaSession session, final ProduceGrant grant) {
        session.produceGrants.remove(grant);
        if (grant.shared != null) {
            shared.dropGrant(grant);
            return;
        }
        registrations.release(grant.registration);
        grant.partition.releaseWriter(session);
    }

    private void dropConsume(final RdmaSession session, final ConsumeGrant grant, final boolean revoked) {
        session.consumeGrants.remove(grant);
        if (revoked) {
            grant.slots.revoke(grant.slotOffset);
        } else {
            grant.slots.unassign(grant.slotOffset);
        }
        registrations.release(grant.registration);
        if (grant.slots.isEmpty()) {
            grant.partition.removeAppendObserver(grant.slots);
            partitionSlots.remove(grant.partition);
        }
    }

    private PartitionSlots slotsFor(final Partition partition) {
        PartitionSlots slots = partitionSlots.get(partition);
        if (slots == null) {
            slots = new PartitionSlots(partition.topicPartition().toString(), slotRegion.memory());
            partitionSlots.put(partition, slots);
            partition.addAppendObserver(slots);
        }
        return slots;
    }

    private int sweepDeletedSegments() {
        int revoked = 0;
        for (final RdmaSession session : sessions) {
            if (session == null) {
                continue;
            }
            for (int i = session.consumeGrants.size() - 1; i >= 0; i--) {
                final ConsumeGrant grant = session.consumeGrants.get(i);
                if (grant.registration.segment().isDeleted()) {
                    LOG.info(
                            "revoking read access to a deleted segment: {} segment={}",
                            session,
                            grant.registration.segment());
                    dropConsume(session, grant, true);
                    revokedGrants++;
                    revoked++;
                }
            }
            for (int i = session.produceGrants.size() - 1; i >= 0; i--) {
                final ProduceGrant grant = session.produceGrants.get(i);
                if (grant.registration.segment().isDeleted()) {
                    dropProduce(session, grant);
                    revokedGrants++;
                    revoked++;
                }
            }
        }
        return revoked;
    }

    private void teardown(final RdmaSession session, final String reason) {
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
        if (session.slotRange >= 0) {
            slotRegion.freeRange(session.slotRange);
        }
        try {
            session.qp.moveToError();
        } catch (final RuntimeException e) {
            LOG.debug("moving a QP to ERR failed: {}", session, e);
        }
        session.qp.close();
        LOG.info("RDMA session closed: {} reason={} registrationsLeft={}", session, reason, registrations.size());
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

    // ------------------------------------------------------------------ introspection for tests

    /** Registrations alive now (datapath thread or after close). */
    CompletableFuture<Integer> registrationCount() {
        return submit(registrations::size);
    }

    /** Whether the segment is registered for producers (true) or readers (false). */
    CompletableFuture<Boolean> isRegistered(final int segmentId, final boolean writable) {
        return submit(() -> registrations.isRegistered(segmentId, writable));
    }

    /** Sessions connected now. */
    CompletableFuture<Integer> sessionCount() {
        return submit(sessionsByConnection::size);
    }

    /**
     * Moves the queue pair of every session to the error state, as a broken link or a retry-exceeded peer would: the
     * flushed receives complete in error and each session is torn down by the normal path. Fault injection for tests;
     * returns how many queue pairs it broke.
     */
    CompletableFuture<Integer> breakQueuePairs() {
        return submit(() -> {
            int broken = 0;
            for (final RdmaSession session : sessions) {
                if (session != null) {
                    session.qp.moveToError();
                    broken++;
                }
            }
            return broken;
        });
    }

    /**
     * Makes the datapath thread sleep {@code nanos} before every ack from now on (0 stops it), as a loaded or
     * descheduled broker would: producers fill their credits and their acks arrive late. Fault injection for tests.
     */
    void delayAcks(final long nanos) {
        ackDelayNanos = nanos;
    }

    /**
     * Suspends every exclusive produce grant as a duplicate write does: later writes under them are answered
     * ACCESS_REVOKED, uncommitted, until their producer asks for access again. Fault injection for tests; returns how
     * many grants it suspended.
     */
    CompletableFuture<Integer> suspendExclusiveProduceGrants() {
        return submit(() -> {
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
        });
    }

    /** Partitions under shared produce now. */
    CompletableFuture<Integer> sharedPartitions() {
        return submit(() -> shared == null ? 0 : shared.sharedPartitions());
    }

    /** Forces a sweep for deleted segments now; returns how many grants it revoked. */
    CompletableFuture<Integer> sweepNow() {
        return submit(this::sweepDeletedSegments);
    }

    /** Stops the thread, tears every session down and frees the device. */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Runnable command;
        while ((command = commands.poll()) != null) {
            command.run();
        }
        for (final RdmaSession session : sessions) {
            if (session != null) {
                teardown(session, "broker shutdown");
            }
        }
        if (shared != null) {
            shared.close();
        }
        registrations.close();
        slotRegion.close();
        ackRegion.close();
        device.close();
        arena.close();
        LOG.info("RDMA datapath stopped: commits={} rejectedWrites={}", commits, rejectedWrites);
    }
}
