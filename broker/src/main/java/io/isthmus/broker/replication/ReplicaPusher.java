package io.isthmus.broker.replication;

import io.isthmus.broker.log.FetchIsolation;
import io.isthmus.broker.log.LogReadResult;
import io.isthmus.broker.partition.Partition;
import io.isthmus.client.rdma.RdmaClientSettings;
import io.isthmus.client.rdma.RdmaProduceStream;
import io.isthmus.client.rdma.RdmaProducerTransport;
import io.isthmus.protocol.control.ReplicaPushFrameDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * One thread that pushes the partitions this broker leads to one follower over RDMA (KafkaDirect's push replication,
 * section 4.3.2), beside that follower's own TCP fetches, which stay the catch-up and fallback path.
 *
 * <p>Per partition it asks the follower for push access ({@link RdmaProducerTransport#replicaAccess}), which the
 * follower grants only while it follows this leader in this epoch with its replica in line, answering with where its
 * log ends. From there, as soon as appends land here (an append observer wakes the thread), the batches are copied out
 * of the log into a frame of a registered ring and written with one WRITE WITH IMM into the follower's next staging
 * slot, as many contiguous batches per write as a slot holds, within the credits the follower gave. Each ack carries
 * the follower's log end after the write, which counts as its progress ({@link Partition#onFollowerPush}): the high
 * watermark and the ISR move with it, and {@code acks=all} producers are answered, without waiting for a fetch.
 *
 * <p>The copy into the ring (one memcpy a write, from the mapping) is what lets retention delete a segment while a
 * write from it is on the wire, and keeps the log itself out of any protection domain a peer's queue pair reaches.
 *
 * <p>While a partition's push is live, the follower's fetches of it are answered without records ({@link
 * PushedReplicas}). Any error (a refused write, a lost connection, a follower no longer in line) ends it: the follower
 * fetches over TCP again, and the pusher asks for access again after a backoff, learning the follower's log end anew.
 */
final class ReplicaPusher {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaPusher.class);
    /** Writes in flight to one follower: each holds a frame of the ring, as large as a staging slot. */
    static final int CREDITS = 8;

    private static final long IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** How often the follower's control connection is checked while nothing is in flight to it. */
    private static final long PROBE_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** One partition pushed to the follower, in one leader epoch. Owned by the pusher thread but for {@link #live}. */
    private static final class Pushed {
        final Partition partition;
        final int leaderEpoch;
        final Runnable wake;
        /**
         * What pushed the partition before (another epoch, or before it was unpushed), until its writes in flight are
         * answered: only then may access be asked again, or an old write would reach the new grant.
         */
        Pushed previous;

        RdmaProduceStream stream;
        /** Where the next write begins: the follower's log end when granted, plus what was written since. */
        long nextOffset;

        long retryAtNanos;
        int failures;
        /** Batches go by push now: the follower's fetches of the partition are answered without records. */
        volatile boolean live;

        Pushed(final Partition partition, final int leaderEpoch, final Runnable wake, final Pushed previous) {
            this.partition = partition;
            this.leaderEpoch = leaderEpoch;
            this.wake = wake;
            this.previous = previous;
        }

        /** Whether writes of this or an earlier push of the partition are still unanswered. */
        boolean awaitsAnswers() {
            if (previous != null) {
                if (previous.awaitsAnswers()) {
                    return true;
                }
                previous = null;
            }
            return stream != null && stream.inFlight() > 0;
        }
    }

    /** A write in flight: the frame it holds, and the stream and offset its ack speaks for. */
    private record Write(Pushed pushed, RdmaProduceStream stream, int frame, long endOffset) {}

    private final int localId;
    private final int followerId;
    private final IntFunction<Optional<InetSocketAddress>> addresses;
    private final RdmaClientSettings settings;
    private final int frameBytes;
    private final Map<TopicPartition, Pushed> pushed = new ConcurrentHashMap<>();
    /** Pushes ended by {@link #unpush}, kept for the next {@link #push} of their partition (see {@link Pushed#previous}). */
    private final Map<TopicPartition, Pushed> unpushed = new ConcurrentHashMap<>();

    private final Thread thread;
    private volatile boolean running = true;
    private volatile long writes;
    private volatile long acks;
    private volatile long failures;

    /** Owned by the thread. */
    private RdmaProducerTransport transport;

    private Arena arena;
    private MemorySegment ring;
    private final int[] freeFrames = new int[CREDITS];
    private int freeCount;

    /**
     * @param frameBytes the largest write: this broker's staging slot size ({@code message.max.bytes}, rounded up)
     */
    ReplicaPusher(
            final int localId,
            final int followerId,
            final IntFunction<Optional<InetSocketAddress>> addresses,
            final RdmaClientSettings settings,
            final int frameBytes) {
        this.localId = localId;
        this.followerId = followerId;
        this.addresses = addresses;
        this.settings = settings;
        this.frameBytes = frameBytes;
        this.thread = Thread.ofPlatform()
                .name("broker-" + localId + "-replica-pusher-" + followerId)
                .daemon()
                .unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    /** Pushes {@code partition}, led here in {@code leaderEpoch}, from now on (a new epoch starts it afresh). */
    void push(final Partition partition, final int leaderEpoch) {
        final Pushed current = pushed.get(partition.topicPartition());
        if (current != null && current.partition == partition && current.leaderEpoch == leaderEpoch) {
            return;
        }
        final Pushed before = current != null ? current : unpushed.remove(partition.topicPartition());
        final Pushed next = new Pushed(partition, leaderEpoch, () -> LockSupport.unpark(thread), before);
        partition.addAppendObserver(next.wake);
        pushed.put(partition.topicPartition(), next);
        if (current != null) {
            end(current);
        }
        LockSupport.unpark(thread);
    }

    /** Stops pushing {@code partition}; the follower fetches it over TCP (or no longer holds it). */
    void unpush(final TopicPartition partition) {
        final Pushed previous = pushed.remove(partition);
        if (previous != null) {
            end(previous);
            unpushed.put(partition, previous);
        }
    }

    private static void end(final Pushed p) {
        p.live = false;
        p.partition.removeAppendObserver(p.wake);
    }

    boolean isIdle() {
        return pushed.isEmpty();
    }

    /** Whether this very {@code partition}'s batches reach the follower by push now, in its current leader epoch. */
    boolean live(final Partition partition) {
        final Pushed p = pushed.get(partition.topicPartition());
        return p != null && p.partition == partition && p.live && p.leaderEpoch == partition.leaderEpoch();
    }

    private void run() {
        long nextProbeNanos = System.nanoTime();
        try {
            while (running) {
                int work = 0;
                try {
                    if (transport == null) {
                        open();
                    }
                    for (final Pushed p : pushed.values()) {
                        work += step(p);
                    }
                    work += transport.poll(this::onAck);
                    final long now = System.nanoTime();
                    if (now - nextProbeNanos >= 0) {
                        nextProbeNanos = now + PROBE_INTERVAL_NANOS;
                        probe();
                    }
                } catch (final RuntimeException e) {
                    if (!running) {
                        break;
                    }
                    LOG.warn("broker {}: pushing to follower {} failed; carrying on", localId, followerId, e);
                    LockSupport.parkNanos(FIRST_BACKOFF_NANOS);
                }
                if (work == 0) {
                    LockSupport.parkNanos(IDLE_PARK_NANOS);
                }
            }
        } finally {
            for (final Pushed p : pushed.values()) {
                p.live = false;
            }
            closeTransport();
            LOG.info(
                    "broker {}: replica pusher to broker {} stopped: writes={} acks={} failures={}",
                    localId,
                    followerId,
                    writes,
                    acks,
                    failures);
        }
    }

    private void open() {
        final Arena opened = Arena.ofShared();
        try {
            ring = opened.allocate((long) frameBytes * CREDITS, 4096);
            transport = new RdmaProducerTransport(settings, "broker-" + localId + "-replica-pusher", ring, (short) 1);
        } catch (final RuntimeException e) {
            opened.close();
            throw e;
        }
        arena = opened;
        for (int i = 0; i < CREDITS; i++) {
            freeFrames[i] = i;
        }
        freeCount = CREDITS;
    }

    /**
     * A follower that stopped, or was killed and restarted, closed the control connection: every push to it ends now,
     * not at its next write. Otherwise an idle push would stay live, and the restarted follower's fetches, whose log
     * may end short of what it acknowledged in its previous life, would be taken for a pushed follower's late ones.
     */
    private void probe() {
        unpushed.values().removeIf(p -> !p.awaitsAnswers());
        final Optional<InetSocketAddress> address = addresses.apply(followerId);
        if (address.isEmpty() || !transport.brokerClosed(address.get(), this::onAck)) {
            return;
        }
        for (final Pushed p : pushed.values()) {
            if (p.stream != null && !p.stream.needsAccess()) {
                stop(p, "broker " + followerId + " closed the connection");
            } else {
                p.live = false;
            }
        }
    }

    private void closeTransport() {
        if (transport != null) {
            transport.failAll((token, offset, error) -> {}, "replica pusher stopped");
            transport.close();
            transport = null;
        }
        if (arena != null) {
            arena.close();
            arena = null;
        }
    }

    /** Moves {@code p} on: access when it has none, then writes while batches, frames and credits last. */
    private int step(final Pushed p) {
        final long now = System.nanoTime();
        if (p.retryAtNanos - now > 0) {
            return 0;
        }
        if (p.stream == null || p.stream.needsAccess()) {
            p.live = false;
            if (p.awaitsAnswers()) {
                return 0; // answered first: none of them may reach the next grant
            }
            return access(p) ? 1 : 0;
        }
        int work = 0;
        final Partition partition = p.partition;
        if (partition.isFollower() || partition.leaderEpoch() != p.leaderEpoch) {
            // Deposed (the hosting thread unpushes it soon): its log may hold a newer leader's batches now.
            stop(p, "no longer the leader in epoch " + p.leaderEpoch);
            return 0;
        }
        while (p.nextOffset < partition.logEndOffset() && freeCount > 0) {
            final int frame = freeFrames[freeCount - 1];
            final MemorySegment framed = ring.asSlice((long) frame * frameBytes, frameBytes);
            final int room =
                    Math.min(frameBytes, p.stream.stagingSlotBytes()) - ReplicaPushFrameDescriptor.HEADER_LENGTH;
            final long endOffset;
            final int length;
            try (LogReadResult read = partition.read(p.nextOffset, room, FetchIsolation.LOG_END)) {
                if (read.isEmpty()) {
                    break;
                }
                if (read.sizeInBytes() > room) {
                    // A batch larger than a staging slot (the brokers' message.max.bytes differ): only a fetch
                    // carries it.
                    stop(
                            p,
                            "a batch at offset " + p.nextOffset + " of " + read.sizeInBytes()
                                    + " bytes does not fit the follower's staging slot");
                    break;
                }
                length = (int) read.sizeInBytes();
                ReplicaPushFrameDescriptor.writeHeader(framed, 0, length);
                MemorySegment.copy(read.records(), 0, framed, ReplicaPushFrameDescriptor.HEADER_LENGTH, length);
                endOffset = read.nextOffset();
            } catch (final RuntimeException e) {
                // The log moved under the read (retention, a truncation of a deposed leader's log): fetches take over.
                stop(p, "reading offset " + p.nextOffset + " failed: " + e);
                break;
            }
            final boolean written;
            try {
                written = transport.tryWrite(
                        p.stream,
                        framed,
                        ReplicaPushFrameDescriptor.HEADER_LENGTH + length,
                        new Write(p, p.stream, frame, endOffset));
            } catch (final RuntimeException e) {
                stop(p, "the write failed: " + e);
                break;
            }
            if (!written) {
                break; // no credit or send-queue room: acks first
            }
            freeCount--;
            p.nextOffset = endOffset;
            writes++;
            work++;
        }
        return work;
    }

    /** Asks the follower for access to push {@code p}; true if it goes live. */
    private boolean access(final Pushed p) {
        final Partition partition = p.partition;
        final Optional<InetSocketAddress> address = addresses.apply(followerId);
        if (address.isEmpty()) {
            backoff(p, "no address known for broker " + followerId);
            return false;
        }
        if (p.stream == null || !p.stream.broker().equals(address.get())) {
            p.stream = transport.replicaStream(
                    partition.topicPartition().topic(),
                    partition.topicPartition().partition(),
                    address.get(),
                    localId,
                    p.leaderEpoch);
        }
        final long followerEnd;
        try {
            followerEnd = transport.replicaAccess(p.stream);
        } catch (final RuntimeException e) {
            backoff(p, e.getMessage());
            return false;
        }
        if (followerEnd < partition.logStartOffset() || followerEnd > partition.logEndOffset()) {
            // Behind this log's start or past its end: the follower's fetches move it there first.
            stop(
                    p,
                    "its log ends at " + followerEnd + ", outside " + partition.logStartOffset() + ".."
                            + partition.logEndOffset());
            return false;
        }
        p.nextOffset = followerEnd;
        p.failures = 0;
        p.live = true;
        LOG.info(
                "broker {}: pushing {} to broker {} over RDMA from offset {} in leader epoch {}",
                localId,
                partition.topicPartition(),
                followerId,
                followerEnd,
                p.leaderEpoch);
        return true;
    }

    /**
     * Ends {@code p}'s live push for a reason the follower's fetches can get past; access is asked again later, once
     * the stream's writes in flight are answered (so none of them reaches the next grant).
     */
    private void stop(final Pushed p, final String reason) {
        transport.abandonAccess(p.stream);
        backoff(p, reason);
    }

    /**
     * Leaves {@code p} to the follower's fetches for a while, longer after each failure in a row. The first failure
     * is logged at INFO, the ones that follow at DEBUG: a follower without RDMA refuses every time.
     */
    private void backoff(final Pushed p, final String reason) {
        p.live = false;
        failures++;
        final long delay = Math.min(MAX_BACKOFF_NANOS, FIRST_BACKOFF_NANOS << Math.min(p.failures, 6));
        p.failures++;
        p.retryAtNanos = System.nanoTime() + delay;
        if (p.failures == 1 || LOG.isDebugEnabled()) {
            LOG.atLevel(p.failures == 1 ? Level.INFO : Level.DEBUG)
                    .log(
                            "broker {}: not pushing {} to broker {} for now, it fetches over TCP (retry in {} ms): {}",
                            localId,
                            p.partition.topicPartition(),
                            followerId,
                            TimeUnit.NANOSECONDS.toMillis(delay),
                            reason);
        }
    }

    /** An ack or a failure of a write: the frame is free again, and an ack is the follower's progress. */
    private void onAck(final Object token, final long followerEnd, final RuntimeException error) {
        final Write write = (Write) token;
        freeFrames[freeCount++] = write.frame();
        final Pushed p = write.pushed();
        final boolean current = pushed.get(p.partition.topicPartition()) == p && p.stream == write.stream();
        if (error != null) {
            if (current && p.live) {
                // The stream asks for access again once its other writes are answered (their failures, which follow
                // this one, change nothing more); the follower fetches meanwhile.
                backoff(p, error.getMessage());
            }
            return;
        }
        acks++;
        if (current && followerEnd == write.endOffset()) {
            try {
                p.partition.onFollowerPush(followerId, followerEnd, p.leaderEpoch, System.currentTimeMillis());
            } catch (final RuntimeException e) {
                // Not thrown into the transport's poll, whose other completions would go unhandled.
                LOG.error("broker {}: taking follower {}'s ack for {} failed", localId, followerId, p.partition, e);
            }
        }
    }

    /** Writes pushed so far, acks received, and pushes ended by an error. */
    long writes() {
        return writes;
    }

    long acks() {
        return acks;
    }

    long failures() {
        return failures;
    }

    /** Tells the thread to stop and returns; it fails its writes in flight and closes its transport on its way out. */
    void stop() {
        running = false;
        LockSupport.unpark(thread);
        for (final Pushed p : pushed.values()) {
            end(p);
        }
    }

    /** {@link #stop}, then waits for the thread to end (at most 10 s). */
    void close() throws InterruptedException {
        stop();
        thread.join(TimeUnit.SECONDS.toMillis(10));
    }
}
