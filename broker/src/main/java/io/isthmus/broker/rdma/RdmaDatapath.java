package io.isthmus.broker.rdma;

import io.isthmus.broker.network.ControlExchange;
import io.isthmus.broker.partition.LeaderAccess;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.replication.PushAcceptance;
import io.isthmus.broker.security.Authorizer;
import io.isthmus.ffi.verbs.ReceiveWorkRequests;
import io.isthmus.ffi.verbs.WorkCompletionOpcode;
import io.isthmus.ffi.verbs.WorkCompletions;
import io.isthmus.protocol.control.ConsumeAccessRequest;
import io.isthmus.protocol.control.ConsumeAccessResponse;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ProduceAccessRequest;
import io.isthmus.protocol.control.ProduceImmediateDescriptor;
import io.isthmus.protocol.control.RdmaConnectRequest;
import io.isthmus.protocol.control.ReleaseAccessRequest;
import io.isthmus.protocol.control.ReleaseAccessResponse;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's RDMA datapath: one thread that owns every client queue pair (each in the client's own protection
 * domain, with the registrations its grants use), the completion queue they share and the access grants. It
 * alternates between control commands (connect, access, release, handed over from the network threads) and
 * busy-polling the completion queue, backing off through an {@link IdleStrategy}.
 * Its parts, all confined to that thread:
 *
 * <ul>
 *   <li>the <b>control plane</b>, {@link RdmaControlPlane}: sessions and the grants they hold, given and taken away;
 *   <li>the <b>data plane</b>: this class polls completions and routes each produce write (WRITE WITH IMM) by its
 *       immediate, with the {@link ProduceStaging staging slot} it landed in, to {@link ExclusiveProducePath} or {@link
 *       SharedProducePath}, which copy it to the log's tail, commit the copy and answer through {@link AckSender} (on a
 *       cluster, {@code acks=-1} writes once the in-sync replicas hold them: {@link LeaderWrites}). A
 *       write that arrives after its grant was dropped or suspended is answered {@link
 *       ControlErrorCodes#ACCESS_REVOKED} here: nothing of it was committed, so the producer may write it again once it
 *       has asked for access again.
 * </ul>
 *
 * <p><b>Flow control.</b> A client may have at most {@code credits} writes unacknowledged, exactly the receives posted
 * for it, and the completion queue is never promised more entries than it has (connections beyond that are refused);
 * the ack side is {@link AckSender}'s.
 *
 * <p><b>Failure.</b> A completion in error (the client died, its QP broke, it wrote with a revoked rkey) or the TCP
 * connection closing tears the session down: its QP is destroyed, its grants and their registrations released, and
 * its protection domain freed. A segment that retention deleted is revoked from its readers by a periodic sweep: their
 * slot says REVOKED and asking again gives OFFSET_OUT_OF_RANGE.
 */
public final class RdmaDatapath implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaDatapath.class);
    private static final long SWEEP_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** How often shared produce checks for stalled reservations and ended grace periods. */
    private static final long TICK_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private static final int POLL_BATCH = 32;

    private final RdmaSettings settings;
    private final RdmaDevice device;
    private final Arena arena = Arena.ofShared();
    private final WorkCompletions completions;
    private final ReceiveWorkRequests receives;
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final IdleStrategy idle;
    private final AckSender acker;
    /** Shared produce, or null where the device cannot do the broker's own atomics. */
    private final SharedProducePath shared;

    private final RdmaControlPlane control;
    /** The leader's rules for exclusive writes on a cluster: admission, and acks=-1 answers once replicated. */
    private final LeaderWrites leaderWrites;

    private final ExclusiveProducePath exclusive;
    /** Push replication into this broker's replicas (the follower's side). */
    private final ReplicaPushPath replicaPushes;
    /** Answers being filled in, on the datapath thread: commands never nest, so one of each is enough. */
    private final ConsumeAccessResponse consumeResponse = new ConsumeAccessResponse();

    private final ReleaseAccessResponse releaseResponse = new ReleaseAccessResponse();

    private final Thread thread;
    private volatile boolean running = true;
    private volatile long receiveCompletions;
    private volatile long revokedWrites;

    private RdmaDatapath(
            final RdmaSettings settings,
            final RdmaDevice device,
            final PartitionManager partitions,
            final Authorizer authorizer,
            final LeaderAccess leaders,
            final PushAcceptance pushes,
            final IdleStrategy idle) {
        this.settings = settings;
        this.device = device;
        this.idle = idle;
        this.completions = WorkCompletions.allocate(arena, POLL_BATCH);
        this.receives = ReceiveWorkRequests.allocate(arena, Math.max(1, settings.maxRecvWr()), 1);
        this.acker = new AckSender(settings, arena, RdmaControlPlane.sessionSlots(settings), this::teardown);
        this.shared = openSharedProduce();
        this.control =
                new RdmaControlPlane(settings, device, partitions, receives, shared, authorizer, leaders, pushes);
        this.leaderWrites = new LeaderWrites(leaders, acker, this::execute);
        this.exclusive = new ExclusiveProducePath(acker, leaderWrites, control);
        this.replicaPushes = new ReplicaPushPath(acker, control, pushes);
        this.thread = new Thread(this::run, "isthmus-rdma-datapath");
        this.thread.setDaemon(true);
    }

    private SharedProducePath openSharedProduce() {
        try {
            return new SharedProducePath(settings, device, acker, this::execute);
        } catch (final RuntimeException e) {
            LOG.warn("shared RDMA produce unavailable: the broker cannot run atomics on its own device", e);
            return null;
        }
    }

    /** The ack side's way to give up on a session (the control plane exists by the time any ack is sent). */
    private void teardown(final RdmaSession session, final String reason) {
        control.teardown(session, reason);
    }

    /** Opens the device and starts the datapath thread. */
    static RdmaDatapath start(
            final RdmaSettings settings,
            final PartitionManager partitions,
            final Authorizer authorizer,
            final LeaderAccess leaders,
            final PushAcceptance pushes) {
        final RdmaDevice device = RdmaDevice.open(settings);
        final RdmaDatapath datapath;
        try {
            datapath = new RdmaDatapath(
                    settings,
                    device,
                    partitions,
                    authorizer,
                    leaders,
                    pushes,
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

    // Each request is a flyweight over its frame, which its exchange keeps until it is answered: the datapath thread
    // reads it there, and a produce request waiting for a roll or a grace period is read again when it is retried.

    void connect(final long connectionId, final RdmaConnectRequest request, final ControlExchange exchange) {
        answer(exchange, () -> control.connect(connectionId, request, exchange));
    }

    void produceAccess(final long connectionId, final ProduceAccessRequest request, final ControlExchange exchange) {
        answer(exchange, () -> control.produceAccess(connectionId, request, exchange));
    }

    void consumeAccess(final long connectionId, final ConsumeAccessRequest request, final ControlExchange exchange) {
        answer(exchange, () -> {
            control.consumeAccess(
                    connectionId, request, exchange.answer(consumeResponse, ConsumeAccessResponse.LENGTH));
            exchange.complete();
        });
    }

    void release(final long connectionId, final ReleaseAccessRequest request, final ControlExchange exchange) {
        answer(exchange, () -> {
            control.release(connectionId, request, exchange.answer(releaseResponse, ReleaseAccessResponse.LENGTH));
            exchange.complete();
        });
    }

    /**
     * The ACLs changed: sessions holding grants their principal may no longer have are torn down (on the datapath
     * thread); the future tells how many.
     */
    CompletableFuture<Integer> reauthorize() {
        return submit(control::reauthorize);
    }

    /** The TCP connection closed: tear its session down (if it had one). */
    CompletableFuture<Boolean> connectionClosed(final long connectionId) {
        return submit(() -> control.connectionClosed(connectionId));
    }

    /** Runs {@code command} on the datapath thread, which answers {@code exchange} then or later; a failure fails it. */
    private void answer(final ControlExchange exchange, final Runnable command) {
        if (!running) {
            exchange.fail(new IllegalStateException("RDMA datapath is closed"));
            return;
        }
        execute(() -> {
            try {
                command.run();
            } catch (final RuntimeException e) {
                exchange.fail(e);
            }
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
        return exclusive.commits() + (shared == null ? 0 : shared.commits());
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
        return exclusive.rejectedWrites();
    }

    /** Writes answered ACCESS_REVOKED because they arrived after their grant was dropped or suspended. */
    public long revokedWrites() {
        return revokedWrites;
    }

    /** Exclusive writes discarded as duplicates of batches already in the log. */
    public long duplicateWrites() {
        return exclusive.duplicateWrites();
    }

    /** acks=-1 writes committed and waiting for the in-sync replicas before they are answered. */
    public long writesAwaitingReplication() {
        return leaderWrites.awaitingReplication();
    }

    /** acks=-1 writes committed and answered with an error: not replicated in time, or leadership moved. */
    public long unreplicatedWrites() {
        return leaderWrites.replicationFailures();
    }

    /** Writes a leader pushed that were appended to replicas here (push replication). */
    public long pushedAppends() {
        return replicaPushes.appends();
    }

    /** Writes a leader pushed that were refused: the replica's log end elsewhere, leadership moved, a bad batch. */
    public long rejectedPushes() {
        return replicaPushes.rejectedWrites();
    }

    /** Acks that had to wait for send-queue room. */
    public long deferredAcks() {
        return acker.deferredAcks();
    }

    /** Receive completions handled: one per produce WRITE WITH IMM; READs of slots or segments cause none. */
    public long receiveCompletions() {
        return receiveCompletions;
    }

    /** Produce or consume grants revoked by the broker (bad writes, deleted segments). */
    public long revokedGrants() {
        return control.revokedGrants();
    }

    /** Of {@link #revokedGrants()}, the produce grants: bad writes, deleted segments, leaderships lost. */
    public long revokedProduceGrants() {
        return control.revokedProduceGrants();
    }

    // ------------------------------------------------------------------ the thread (data plane)

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
                // On its interval even under load: a leadership lost must end its grants while clients keep reading.
                if (now - nextSweep >= 0) {
                    work += control.sweep();
                    nextSweep = now + SWEEP_INTERVAL_NANOS;
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

    /**
     * Handles every completion polled, each on its own: one that fails tears down its own session and the others are
     * still handled (a dropped receive completion would leave its session's write count, and so its staging slots,
     * one behind the producer's).
     */
    private int pollCompletions() {
        final int count = device.cq.poll(completions);
        for (int i = 0; i < count; i++) {
            try {
                handleCompletion(i);
            } catch (final RuntimeException e) {
                final RdmaSession session = control.session(completions.wrId(i));
                LOG.error("handling an RDMA completion failed, tearing its session down: {}", session, e);
                if (session != null) {
                    try {
                        control.teardown(session, "completion handling failed: " + e);
                    } catch (final RuntimeException again) {
                        LOG.error("tearing a session down failed: {}", session, again);
                    }
                }
            }
        }
        return count;
    }

    private void handleCompletion(final int i) {
        final long wrId = completions.wrId(i);
        final RdmaSession session = control.session(wrId);
        if (session == null) {
            return; // a late completion of a session already torn down
        }
        if (!completions.isSuccess(i)) {
            LOG.warn(
                    "RDMA completion failed, tearing the session down: {} completion={}",
                    session,
                    completions.describe(i));
            control.teardown(session, "completion error");
            return;
        }
        if (RdmaSession.kindOf(wrId) == RdmaSession.KIND_SEND) {
            acker.sendCompleted(session);
            return;
        }
        receiveCompletions++;
        if (completions.opcode(i) != WorkCompletionOpcode.RECV_RDMA_WITH_IMM || !completions.hasImmediate(i)) {
            LOG.warn(
                    "unexpected receive, tearing the session down: {} completion={}", session, completions.describe(i));
            control.teardown(session, "unexpected receive");
            return;
        }
        onProduceWrite(session, completions.immediate(i));
    }

    /** A produce write completed: the credit goes back, then the write goes to its grant's path. */
    private void onProduceWrite(final RdmaSession session, final int immediate) {
        if (!postReceive(session, 1)) {
            return;
        }
        // Every write takes the next staging slot, answered or not: the producer counts its writes the same way. A
        // session with a produce grant has its staging slots (they come with its first grant).
        final MemorySegment staged = session.staging != null ? session.staging.nextWrite() : null;
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
            if (grant == null) {
                acker.ack(session, -1, immediate, ControlErrorCodes.ACCESS_REVOKED);
            } else {
                grant.answers.answer(session, acker, -1, immediate, ControlErrorCodes.ACCESS_REVOKED);
            }
            return;
        }
        final int order = ProduceImmediateDescriptor.order(immediate);
        if (grant.shared != null) {
            shared.onWrite(session, grant, immediate, order, staged);
        } else if (grant.isReplica()) {
            replicaPushes.onWrite(session, grant, immediate, order, staged);
        } else {
            exclusive.onWrite(session, grant, immediate, order, staged);
        }
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
            control.teardown(session, "post_recv failed");
            return false;
        }
    }
    // ------------------------------------------------------------------ introspection and faults for tests

    /** Registrations alive now (datapath thread or after close). */
    CompletableFuture<Integer> registrationCount() {
        return submit(control::registrationCount);
    }

    /** Whether any session has the segment registered (for remote READ). */
    CompletableFuture<Boolean> isRegistered(final int segmentId) {
        return submit(() -> control.isRegistered(segmentId));
    }

    /** The remote access flags of each connected session's queue pair, as the device reports them (tests). */
    CompletableFuture<List<Integer>> queuePairAccessFlags() {
        return submit(control::queuePairAccessFlags);
    }

    /** Sessions connected now. */
    CompletableFuture<Integer> sessionCount() {
        return submit(control::sessionCount);
    }

    /**
     * Moves the queue pair of every session to the error state, as a broken link or a retry-exceeded peer would: the
     * flushed receives complete in error and each session is torn down by the normal path. Fault injection for tests;
     * returns how many queue pairs it broke.
     */
    CompletableFuture<Integer> breakQueuePairs() {
        return submit(control::breakQueuePairs);
    }

    /**
     * Makes the datapath thread sleep {@code nanos} before every ack from now on (0 stops it), as a loaded or
     * descheduled broker would: producers fill their credits and their acks arrive late. Fault injection for tests.
     */
    void delayAcks(final long nanos) {
        acker.delay(nanos);
    }

    /**
     * Suspends every exclusive produce grant as a duplicate write does: later writes under them are answered
     * ACCESS_REVOKED, uncommitted, until their producer asks for access again. Fault injection for tests; returns how
     * many grants it suspended.
     */
    CompletableFuture<Integer> suspendExclusiveProduceGrants() {
        return submit(control::suspendExclusiveProduceGrants);
    }

    /** Partitions under shared produce now. */
    CompletableFuture<Integer> sharedPartitions() {
        return submit(() -> shared == null ? 0 : shared.sharedPartitions());
    }

    /** Forces a sweep for deleted segments and lost leaderships now; returns how many grants it revoked. */
    CompletableFuture<Integer> sweepNow() {
        return submit(control::sweep);
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
        control.close();
        if (shared != null) {
            shared.close();
        }
        device.close();
        arena.close();
        LOG.info(
                "RDMA datapath stopped: commits={} rejectedWrites={} pushedAppends={} rejectedPushes={}",
                commits(),
                exclusive.rejectedWrites(),
                replicaPushes.appends(),
                replicaPushes.rejectedWrites());
    }
}
