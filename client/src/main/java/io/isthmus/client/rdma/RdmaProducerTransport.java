package io.isthmus.client.rdma;

import io.isthmus.client.network.OneSidedProducerTransport;
import io.isthmus.ffi.verbs.AccessFlags;
import io.isthmus.ffi.verbs.MemoryRegion;
import io.isthmus.ffi.verbs.WorkCompletions;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ProduceAccessRequest;
import io.isthmus.protocol.control.ProduceAccessResponse;
import io.isthmus.protocol.control.ProduceAckDescriptor;
import io.isthmus.protocol.control.ProduceImmediateDescriptor;
import io.isthmus.protocol.control.ProduceStagingDescriptor;
import io.isthmus.protocol.control.SharedProduceWordDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer side of exclusive RDMA produce (KafkaDirect section 4.2.2). Per partition an {@link RdmaProduceStream}
 * holds produce access to the active segment. Each sealed batch goes, from the producer's registered batch buffers,
 * with one WRITE WITH IMM into the connection's next {@link ProduceStagingDescriptor staging slot} at the broker; the
 * immediate names the segment and the write's order. The broker copies it to the segment's tail, validates and
 * commits the copy in order and SENDs an {@link ProduceAckDescriptor ack} with the base offset or an error. The
 * producer holds no rkey that can write the log.
 *
 * <p><b>Shared produce</b> ({@code rdma.produce.mode=shared}, KafkaDirect's "shared RDMA/TCP access"): before each
 * batch the producer adds {@link SharedProduceWordDescriptor#reservation(int) one order and the batch's size} to the
 * segment's reservation word with an RDMA FETCH_AND_ADD and waits for the old value: it says where in the segment the
 * batch will go and which order its immediate carries. Other producers, and the broker for TCP producers, reserve
 * through the same word; the broker commits the orders strictly in sequence.
 *
 * <ul>
 *   <li><b>Credits:</b> at most {@link RdmaConnection#produceCredits()} writes per connection are unacknowledged,
 *       exactly the receives the broker posted for them and the staging slots it has: the n-th write goes to slot n mod
 *       credits, so a write, exclusive or shared, is posted only once the write before it in that slot was acknowledged
 *       (and a shared reservation only then, so it is always filled at once). A write without its slot free would
 *       overwrite a batch the broker has not copied yet.
 *   <li><b>Send queue:</b> writes are signalled one in {@code credits / 4}; an ack can arrive before the send
 *       completion of its own write, so credits alone do not bound the send queue. Each signalled work request carries
 *       in its id how many requests its completion retires, and nothing is posted while the queue is full.
 *   <li><b>Roll:</b> a batch that does not fit the segment (exclusive: by the stream's tail; shared: the reservation
 *       overflowed) waits until the stream's writes are all acknowledged, then asks for the next segment
 *       (PRODUCE_ACCESS with ROLL_FULL, naming the overflowed order when shared) and goes there.
 *   <li><b>Errors:</b> an ack with an error means the broker committed nothing of that write and dropped or suspended
 *       the grant (writes behind it still land in their staging slots and are answered {@link
 *       ControlErrorCodes#ACCESS_REVOKED}), or, on a cluster with {@code acks=-1}, that the leader committed it but the
 *       in-sync replicas did not confirm it in time (REQUEST_TIMED_OUT, as for a Produce): either way the stream
 *       writes nothing more until its writes in flight are all answered and it has asked for access again. A {@link
 *       ControlErrorCodes#isRetriable retriable} code fails the batch with {@link RdmaAccessRevokedException}, which
 *       the sender retries in order; NOT_LEADER_OR_FOLLOWER (a write, or access, refused by a broker that does not
 *       lead the partition now) with Kafka's {@link NotLeaderOrFollowerException}, after which the producer refreshes
 *       its metadata and asks the new leader. A completion in error breaks the queue pair and fails every write in flight on it
 *       with {@link RdmaConnectionLostException} (retriable; whether the broker committed it is unknown, so an
 *       idempotent producer's retry may be answered as a duplicate); the next batches ask for access again over a new
 *       connection. Nothing is dropped silently.
 *   <li><b>Silence:</b> writes in flight and no ack for {@code request.timeout.ms} (1.5 times that with {@code
 *       acks=-1}, leaving the broker's own REQUEST_TIMED_OUT time to arrive) fail the connection the same way: a write
 *       can complete at this NIC and never be acknowledged when the broker's session dies before its datapath sees it,
 *       or the broker is paused or wedged. A broker that stopped or was killed is noticed sooner: while writes wait,
 *       every 100 ms the control connection is checked (without waiting), and one the broker closed fails them too.
 *   <li><b>Duplicates:</b> {@link ControlErrorCodes#DUPLICATE_SEQUENCE_NUMBER} completes the batch at the original
 *       offset; the broker wrote nothing, so the stream asks for access again (the grant's tail did not move).
 * </ul>
 *
 * <p>Acks are matched to writes by their immediate (unique among a connection's writes in flight: segment ids are
 * unique per broker, orders per segment): a shared write may be committed after a later write to another partition
 * that did not wait behind other producers. Owned by the sender thread; a write or an ack allocates nothing (batch
 * buffers lie in one slab registered once per connection).
 */
public final class RdmaProducerTransport implements OneSidedProducerTransport {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaProducerTransport.class);
    private static final int POLL_BATCH = 32;
    /**
     * Send work-request ids: {@code kind << 32 | retires}, where {@code retires} is how many send-queue entries the
     * request's completion frees (itself and the unsignalled writes posted before it).
     */
    private static final long KIND_RESERVE = 1L << 32;

    private static final long RETIRES_MASK = 0xFFFF_FFFFL;
    /** How often, with writes in flight and no ack, a poll checks that the broker still holds the control connection. */
    private static final long PROBE_INTERVAL_NANOS = 100_000_000L;

    private final RdmaClientSettings settings;
    private final String clientId;
    private final MemorySegment slab;
    /** The producer's acks, which each PRODUCE_ACCESS carries: -1 is answered once the in-sync replicas hold a write. */
    private final short acks;
    /**
     * How long writes in flight may go unanswered before the connection is given up: {@code request.timeout.ms}, and
     * half as long again with {@code acks=-1}, so the broker's own REQUEST_TIMED_OUT answer (after {@code
     * request.timeout.ms} without the in-sync replicas) arrives first.
     */
    private final long silenceNanos;

    private final Map<InetSocketAddress, Link> links = new HashMap<>();
    /** {@link #links}' values, rebuilt when a link comes or goes, so a poll iterates without allocating. */
    private Link[] linkArray = new Link[0];

    private final Arena arena = Arena.ofShared();
    private final WorkCompletions completions;
    private int inFlight;
    private long writes;
    private long rolls;

    /**
     * A connection with the slab registered and its writes in flight: one slot per credit (the broker's staging slot
     * of the same number), free where {@code streams} is null, taken in turn (the n-th write uses slot n mod
     * credits), each write's slot found again by its immediate when its ack arrives.
     */
    static final class Link {
        final RdmaConnection connection;
        final MemoryRegion slabRegion;
        /** Where a reservation's FETCH_AND_ADD puts the word's old value. */
        final MemorySegment reservation;

        final MemoryRegion reservationRegion;
        final int credits;
        final int signalInterval;
        final int sendQueueDepth;
        final Object[] tokens;
        final RdmaProduceStream[] streams;
        final int[] immediates;
        final MemoryRegion[] ownRegions;
        int size;
        /** WRITE WITH IMMs posted on the connection: the next one uses slot {@code posted mod credits}. */
        long posted;

        int unsignaled;
        /** Send-queue entries posted and not yet retired by a polled completion. */
        int sendQueued;
        /** When the link last made progress with writes in flight: the first write posted, or the last ack. */
        long progressNanos;
        /** When a poll that finds writes in flight and no ack next checks the control connection. */
        long nextProbeNanos;
        /** Why a completion seen while waiting for a reservation broke the connection, or null. */
        String broken;

        Link(final RdmaConnection connection, final MemorySegment slab) {
            this.connection = connection;
            this.slabRegion = slab == null ? null : connection.register(slab, AccessFlags.LOCAL_WRITE);
            this.reservation = connection.allocate(SharedProduceWordDescriptor.LENGTH);
            this.reservationRegion = connection.register(reservation, AccessFlags.LOCAL_WRITE);
            this.credits = connection.produceCredits();
            this.signalInterval = Math.max(1, credits / 4);
            this.sendQueueDepth = connection.maxSendWr();
            this.tokens = new Object[credits];
            this.streams = new RdmaProduceStream[credits];
            this.immediates = new int[credits];
            this.ownRegions = new MemoryRegion[credits];
        }

        /**
         * Whether a write (and, shared, its reservation before it) can be posted now: its staging slot free (the write
         * that used it last was acknowledged) and send-queue room.
         */
        boolean canPost(final boolean shared) {
            return streams[nextSlot()] == null && sendQueued + (shared ? 2 : 1) <= sendQueueDepth;
        }

        /**
         * The id of the next send request, which is signalled when {@code forceSignal} or when it completes a signal
         * interval; counts it as queued.
         */
        long nextSendId(final long kind, final boolean forceSignal) {
            sendQueued++;
            if (!forceSignal && ++unsignaled < signalInterval) {
                return kind; // unsignalled: retires nothing of its own
            }
            final long retires = forceSignal ? unsignaled + 1L : unsignaled;
            unsignaled = 0;
            return kind | retires;
        }

        /** A send completion was polled: frees the entries it retires. */
        void retired(final long wrId) {
            sendQueued -= (int) (wrId & RETIRES_MASK);
        }

        static boolean isSignaled(final long wrId) {
            return (wrId & RETIRES_MASK) != 0;
        }

        /** The slot the next write must use, free or not. */
        int nextSlot() {
            return ProduceStagingDescriptor.slot(posted, credits);
        }

        int slotOf(final int immediate) {
            for (int i = 0; i < credits; i++) {
                if (streams[i] != null && immediates[i] == immediate) {
                    return i;
                }
            }
            return -1;
        }
    }

    /**
     * @param slab the memory every pooled batch buffer lies in (registered once per connection); batches outside it
     *     (one-off buffers for oversized records) are registered for their one write
     * @param acks the producer's {@code acks}: on a cluster, -1 writes are answered once {@code min.insync.replicas}
     *     hold them
     */
    public RdmaProducerTransport(
            final RdmaClientSettings settings, final String clientId, final MemorySegment slab, final short acks) {
        this.settings = settings;
        this.clientId = clientId;
        this.slab = slab;
        this.acks = acks;
        this.silenceNanos = settings.requestTimeoutMs() * (acks == -1 ? 1_500_000L : 1_000_000L);
        this.completions = WorkCompletions.allocate(arena, POLL_BATCH);
    }

    @Override
    public RdmaProduceStream stream(final String topic, final int partition, final InetSocketAddress leader) {
        return new RdmaProduceStream(topic, partition, leader);
    }

    /**
     * A stream through which broker {@code leaderId}, leading {@code topic}-{@code partition} in {@code leaderEpoch},
     * pushes its committed batches to the follower at {@code follower} (KafkaDirect's push replication, section 4.3.2).
     * Its access is asked for with {@link #replicaAccess}, never by a write: the follower answers with its log end
     * offset, where the leader's next write must begin. Each ack's base offset is the follower's log end offset after
     * that write.
     */
    public RdmaProduceStream replicaStream(
            final String topic,
            final int partition,
            final InetSocketAddress follower,
            final int leaderId,
            final int leaderEpoch) {
        if (leaderId < 0 || leaderEpoch < 0) {
            throw new IllegalArgumentException("a replica stream needs the leader's id and epoch: leaderId=" + leaderId
                    + " leaderEpoch=" + leaderEpoch);
        }
        return new RdmaProduceStream(topic, partition, follower, leaderId, leaderEpoch);
    }

    /**
     * Asks the follower of a {@link #replicaStream replica stream} for push access, once the stream's writes under an
     * earlier grant are all answered.
     *
     * @return the follower's log end offset: the offset the next write's first batch must have
     * @throws IllegalStateException if writes of the stream are still in flight, or it is a producer's stream
     * @throws RdmaConnectionLostException if the connection cannot be opened or the request fails (retriable)
     * @throws RuntimeException with the follower's error code otherwise (Kafka's NOT_LEADER_OR_FOLLOWER for a follower
     *     that does not follow this leader in this epoch, or not yet in line with it)
     */
    public long replicaAccess(final RdmaProduceStream stream) {
        if (!stream.replica() || stream.inFlight > 0) {
            throw new IllegalStateException(
                    "replica access asked for a producer's stream or one with writes in flight: " + stream);
        }
        access(stream, ProduceAccessRequest.REPLICA, -1, -1);
        return stream.tail;
    }

    /**
     * Checks, without waiting, whether {@code broker} closed the control connection of this transport's link to it
     * (it stopped, or was killed and perhaps restarted) although no write is in flight, which {@link #poll} sees only
     * with writes in flight; if so, the link is failed as a lost connection (its writes in flight, if any, to {@code
     * handler}) and true returned: every stream to that broker must ask for access again.
     */
    public boolean brokerClosed(final InetSocketAddress broker, final AckHandler handler) {
        final Link link = links.get(broker);
        if (link == null || !link.connection.brokerClosed()) {
            return false;
        }
        fail(link, handler, "the broker closed the control connection");
        return true;
    }

    /**
     * Gives up a replica stream's grant without a word to the follower: the stream writes nothing more until its writes
     * in flight are answered and {@link #replicaAccess} is asked again (which drops the old grant there).
     */
    public void abandonAccess(final RdmaProduceStream stream) {
        stream.needsAccess = true;
    }

    private Link link(final InetSocketAddress broker) {
        Link link = links.get(broker);
        if (link == null) {
            final int credits = settings.credits();
            final int signalInterval = Math.max(1, credits / 4);
            final RdmaConnection connection =
                    RdmaConnection.open(broker, clientId, settings, credits, credits + signalInterval + 1);
            try {
                link = new Link(connection, slab);
            } catch (final RuntimeException e) {
                connection.close();
                throw e;
            }
            links.put(broker, link);
            linkArray = links.values().toArray(Link[]::new);
        }
        return link;
    }

    /**
     * Writes {@code length} bytes of {@code batch} (a whole sealed RecordBatch) to the stream's partition, unless it
     * must wait: access lost and writes of the stream still in flight, no credit or send-queue room on the connection,
     * or a roll waiting for the stream's writes to be acknowledged.
     *
     * @return true if written (its outcome comes to {@link #poll}), false to try again after acks
     * @throws RdmaAccessRevokedException if the broker refuses access for now (retriable)
     * @throws RdmaConnectionLostException if the connection cannot be opened or a post fails (retriable)
     * @throws RdmaTransportException if access is refused for good or the batch can never fit a segment
     */
    public boolean tryWrite(
            final RdmaProduceStream stream, final MemorySegment batch, final int length, final Object token) {
        if (stream.needsAccess) {
            if (stream.replica()) {
                return false; // the leader asks with replicaAccess, learning where the follower's log ends
            }
            if (stream.inFlight > 0) {
                return false; // access was lost: nothing more goes to the old grant; its writes are answered first
            }
            final Link previous = links.get(stream.broker);
            if (previous != null && previous.broken != null) {
                return false; // the next poll fails the broken connection's writes; then a new one is opened
            }
            access(stream, settings.sharedProduce() ? ProduceAccessRequest.SHARED : 0, -1, -1);
        }
        if (length > stream.capacity) {
            throw new RdmaTransportException("batch larger than a whole segment: " + stream + " batchBytes=" + length
                    + " (lower batch.size or raise the broker's log.segment.bytes)");
        }
        if (length > stream.stagingSlotBytes) {
            throw new RdmaTransportException("batch larger than the broker accepts: " + stream + " batchBytes="
                    + length + " stagingSlotBytes=" + stream.stagingSlotBytes
                    + " (lower batch.size or max.request.size, or raise the broker's message.max.bytes)");
        }
        if (!stream.link.canPost(stream.shared)) {
            return false;
        }
        if (stream.shared ? !reserve(stream, length) : stream.tail + length > stream.capacity && !roll(stream)) {
            return false;
        }
        final Link link = stream.link;
        final MemoryRegion region;
        final long offset;
        MemoryRegion own = null;
        if (link.slabRegion != null
                && batch.address() >= slab.address()
                && batch.address() + length <= slab.address() + slab.byteSize()) {
            region = link.slabRegion;
            offset = batch.address() - slab.address();
        } else {
            own = link.connection.register(batch, AccessFlags.LOCAL_WRITE);
            region = own;
            offset = 0;
        }
        final int immediate = ProduceImmediateDescriptor.immediate(stream.segmentId, stream.nextOrder);
        final int slot = link.nextSlot();
        if (link.streams[slot] != null) {
            throw new IllegalStateException(
                    "staging slot busy after canPost: " + stream + " slot=" + slot + " credits=" + link.credits);
        }
        final long wrId = link.nextSendId(0, false);
        try {
            link.connection.postWriteWithImmediate(
                    wrId,
                    region,
                    offset,
                    length,
                    stream.stagingAddress + ProduceStagingDescriptor.slotOffset(slot, stream.stagingSlotBytes),
                    stream.stagingRkey,
                    immediate,
                    Link.isSignaled(wrId));
        } catch (final RuntimeException e) {
            if (own != null) {
                link.connection.deregister(own);
            }
            // Nothing is known of the queue pair any more: fail the connection's writes, reconnect for the next ones.
            link.broken = "posting an RDMA write failed: " + e;
            throw new RdmaConnectionLostException("posting an RDMA write failed: " + stream + " cause=" + e, e);
        }
        link.tokens[slot] = token;
        link.streams[slot] = stream;
        link.immediates[slot] = immediate;
        link.ownRegions[slot] = own;
        link.posted++;
        if (link.size == 0) {
            link.progressNanos = System.nanoTime();
        }
        link.size++;
        inFlight++;
        writes++;
        stream.inFlight++;
        stream.tail += length;
        stream.nextOrder = ProduceImmediateDescriptor.nextOrder(stream.nextOrder);
        return true;
    }

    /** {@link #tryWrite(RdmaProduceStream, MemorySegment, int, Object)} for a stream of this transport. */
    @Override
    public boolean tryWrite(final Stream stream, final MemorySegment batch, final int length, final Object token) {
        return tryWrite((RdmaProduceStream) stream, batch, length, token);
    }

    /**
     * Exclusive: asks for the next segment once every write of the stream is acknowledged (the broker must have
     * committed them before it rolls); false while they are not.
     */
    private boolean roll(final RdmaProduceStream stream) {
        if (stream.inFlight > 0) {
            return false;
        }
        rolls++;
        access(stream, ProduceAccessRequest.ROLL_FULL, stream.segmentId, -1);
        return true;
    }

    /**
     * Shared: reserves {@code length} bytes through the segment's word, leaving the batch's position in {@code
     * stream.tail} and its order in {@code stream.nextOrder}; rolls to the next segment as often as a reservation
     * overflows. False (nothing reserved) without a credit or while the stream's writes must be acknowledged before a
     * roll.
     */
    private boolean reserve(final RdmaProduceStream stream, final int length) {
        while (true) {
            if (stream.overflowedOrder >= 0) {
                if (stream.inFlight > 0) {
                    return false;
                }
                rolls++;
                access(
                        stream,
                        ProduceAccessRequest.ROLL_FULL | ProduceAccessRequest.SHARED,
                        stream.segmentId,
                        stream.overflowedOrder);
            }
            final Link link = stream.link;
            if (!link.canPost(true)) {
                return false; // reserve only with a credit in hand: a reservation must be filled at once
            }
            final long old = fetchAndAdd(link, stream, SharedProduceWordDescriptor.reservation(length));
            if (SharedProduceWordDescriptor.fits(old, length, stream.capacity)) {
                stream.tail = SharedProduceWordDescriptor.position(old);
                stream.nextOrder = SharedProduceWordDescriptor.order(old);
                return true;
            }
            stream.overflowedOrder = SharedProduceWordDescriptor.order(old);
        }
    }

    /**
     * One FETCH_AND_ADD on the stream's word, waited for: the old value. Send completions of signalled writes that
     * arrive meanwhile need nothing; one in error marks the link broken for {@link #poll} to fail.
     */
    private long fetchAndAdd(final Link link, final RdmaProduceStream stream, final long add) {
        final RdmaConnection connection = link.connection;
        try {
            connection.postFetchAndAdd(
                    link.nextSendId(KIND_RESERVE, true),
                    link.reservationRegion,
                    0,
                    stream.wordAddress,
                    stream.wordRkey,
                    add);
        } catch (final RuntimeException e) {
            link.broken = "posting a reservation failed: " + e;
            throw new RdmaConnectionLostException("posting a reservation failed: " + stream + " cause=" + e, e);
        }
        final long deadline = System.nanoTime() + settings.requestTimeoutMs() * 1_000_000L;
        while (true) {
            final int count = connection.pollSend(completions);
            boolean reserved = false;
            for (int i = 0; i < count; i++) {
                if (!completions.isSuccess(i)) {
                    final String reason = "RDMA completion failed: completion=" + completions.describe(i);
                    link.broken = reason;
                    throw new RdmaConnectionLostException(reason + " " + stream);
                }
                final long wrId = completions.wrId(i);
                link.retired(wrId);
                reserved |= (wrId & ~RETIRES_MASK) == KIND_RESERVE;
            }
            if (reserved) {
                return link.reservation.get(SharedProduceWordDescriptor.INT64, 0);
            }
            if (System.nanoTime() - deadline > 0) {
                link.broken = "reservation not completed within " + settings.requestTimeoutMs() + " ms";
                throw new RdmaConnectionLostException(link.broken + ": " + stream);
            }
            Thread.onSpinWait();
        }
    }

    /**
     * PRODUCE_ACCESS for {@code stream}; the grant is copied into the stream at once (the answer lives in the
     * connection's response frame only until its next request).
     */
    private void access(final RdmaProduceStream stream, final int flags, final int fullSegmentId, final int fullOrder) {
        final Link link;
        final ProduceAccessResponse access;
        try {
            link = link(stream.broker);
            access = link.connection.produceAccess(
                    stream.topic,
                    stream.partition,
                    flags,
                    fullSegmentId,
                    fullOrder,
                    acks,
                    (int) Math.min(Integer.MAX_VALUE, settings.requestTimeoutMs()),
                    stream.replicaLeaderId,
                    stream.replicaLeaderEpoch);
        } catch (final RdmaTransportException e) {
            stream.needsAccess = true;
            final Link broken = links.get(stream.broker);
            if (broken != null) {
                broken.broken = "control request failed: " + e.getMessage();
            }
            throw new RdmaConnectionLostException("no RDMA produce access: " + stream + " cause=" + e.getMessage(), e);
        }
        final short error = access.errorCode();
        if (error == ControlErrorCodes.TOPIC_AUTHORIZATION_FAILED) {
            stream.needsAccess = true;
            throw new TopicAuthorizationException(
                    "not authorized to write topic '" + stream.topic + "' (RDMA produce access refused)",
                    Set.of(stream.topic));
        }
        if (error != ControlErrorCodes.NONE) {
            stream.needsAccess = true;
            String message = "broker refused RDMA produce access: " + stream + " error=" + ControlErrorCodes.name(error)
                    + " roll=" + ((flags & ProduceAccessRequest.ROLL_FULL) != 0);
            if (error == ControlErrorCodes.RDMA_UNAVAILABLE && (flags & ProduceAccessRequest.SHARED) != 0) {
                message += " (shared RDMA produce is served by a single broker only: use rdma.produce.mode=exclusive on"
                        + " a cluster)";
            }
            throw failure(error, message);
        }
        stream.link = link;
        stream.granted(access);
    }

    /**
     * Completions arrive in memory, with no file descriptor to block on: spins, then yields, then parks briefly (the
     * broker may share this core); the sender's unpark ends the park.
     */
    @Override
    public void awaitOutcomes(final int idleRounds, final long maxNanos) {
        if (idleRounds < 64) {
            Thread.onSpinWait();
        } else if (idleRounds < 256) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(this, maxNanos);
        }
    }

    /** Nothing to do: the sender's own unpark ends {@link #awaitOutcomes}' park. */
    @Override
    public void wakeup() {}

    /** Handles the acks and completions that arrived; returns how many writes completed. */
    @Override
    public int poll(final AckHandler handler) {
        int done = 0;
        for (final Link link : linkArray) {
            done += poll(link, handler);
        }
        return done;
    }

    private int poll(final Link link, final AckHandler handler) {
        if (link.broken != null) {
            return fail(link, handler, link.broken);
        }
        final RdmaConnection connection = link.connection;
        final int sent = connection.pollSend(completions);
        for (int i = 0; i < sent; i++) {
            if (!completions.isSuccess(i)) {
                return fail(link, handler, "RDMA write failed: completion=" + completions.describe(i));
            }
            link.retired(completions.wrId(i));
        }
        final int received = connection.pollReceive(completions);
        if (received > 0) {
            link.progressNanos = System.nanoTime();
        } else if (link.size > 0) {
            // Writes can complete at our NIC and still never be acknowledged: the broker's session died between
            // its NIC taking them and its datapath committing them. Their fate is unknown, as on any lost connection.
            // A broker that stopped or was killed closed the control connection too, which is seen at once; one that
            // is paused or wedged is given up after the silence.
            final long now = System.nanoTime();
            if (now - link.progressNanos > silenceNanos) {
                return fail(link, handler, "no ack within " + silenceNanos / 1_000_000L + " ms with writes in flight");
            }
            if (now - link.nextProbeNanos >= 0) {
                link.nextProbeNanos = now + PROBE_INTERVAL_NANOS;
                if (connection.brokerClosed()) {
                    return fail(link, handler, "the broker closed the control connection with writes in flight");
                }
            }
        }
        int done = 0;
        for (int i = 0; i < received; i++) {
            if (!completions.isSuccess(i)) {
                return done + fail(link, handler, "RDMA ack receive failed: completion=" + completions.describe(i));
            }
            final int ackSlot = (int) completions.wrId(i);
            final long at = RdmaConnection.ackOffset(ackSlot);
            final MemorySegment acks = connection.acks();
            final long baseOffset = ProduceAckDescriptor.baseOffset(acks, at);
            final int immediate = ProduceAckDescriptor.immediate(acks, at);
            final short error = ProduceAckDescriptor.errorCode(acks, at);
            connection.repostAck(ackSlot);
            final int slot = link.slotOf(immediate);
            if (slot < 0) {
                return done + fail(link, handler, "RDMA ack for no write in flight: immediate=" + immediate);
            }
            final Object token = link.tokens[slot];
            final RdmaProduceStream stream = link.streams[slot];
            release(link, slot);
            if (error == ControlErrorCodes.NONE) {
                handler.onAck(token, baseOffset, null);
            } else if (error == ControlErrorCodes.DUPLICATE_SEQUENCE_NUMBER) {
                // Already in the log from an earlier attempt; the broker wrote nothing and wants access asked again.
                stream.needsAccess = true;
                handler.onAck(token, baseOffset, null);
            } else {
                stream.needsAccess = true;
                handler.onAck(
                        token,
                        -1,
                        failure(
                                error,
                                "RDMA produce write answered with an error: " + stream + " error="
                                        + ControlErrorCodes.name(error) + " immediate=" + immediate));
            }
            done++;
        }
        return done;
    }

    /**
     * The exception a refused access or an answered write fails its batch with: Kafka's where the broker answered as
     * a Produce would (not the leader, no such partition there, too few in sync, not replicated in time; retriable,
     * and the first two send the producer to the metadata), {@link RdmaAccessRevokedException} where asking for access
     * again may pass, else {@link RdmaTransportException}.
     */
    private static RuntimeException failure(final short error, final String message) {
        return switch (error) {
            case ControlErrorCodes.NOT_LEADER_OR_FOLLOWER,
                    ControlErrorCodes.UNKNOWN_TOPIC_OR_PARTITION,
                    ControlErrorCodes.NOT_ENOUGH_REPLICAS,
                    ControlErrorCodes.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
                    ControlErrorCodes.REQUEST_TIMED_OUT -> Errors.forCode(error).exception(message);
            default ->
                ControlErrorCodes.isRetriable(error)
                        ? new RdmaAccessRevokedException(message)
                        : new RdmaTransportException(message);
        };
    }

    private void release(final Link link, final int slot) {
        final MemoryRegion own = link.ownRegions[slot];
        if (own != null) {
            link.connection.deregister(own);
            link.ownRegions[slot] = null;
        }
        link.streams[slot].inFlight--;
        link.tokens[slot] = null;
        link.streams[slot] = null;
        link.size--;
        inFlight--;
    }

    /** The connection broke: every write in flight on it fails with the reason; streams ask for access again. */
    private int fail(final Link link, final AckHandler handler, final String reason) {
        LOG.warn("RDMA produce connection failed, failing its writes in flight: {} reason={}", link.connection, reason);
        links.values().remove(link);
        linkArray = links.values().toArray(Link[]::new);
        int failed = 0;
        for (int slot = 0; slot < link.credits; slot++) {
            final RdmaProduceStream stream = link.streams[slot];
            if (stream == null) {
                continue;
            }
            final Object token = link.tokens[slot];
            release(link, slot);
            stream.needsAccess = true;
            stream.link = null;
            handler.onAck(token, -1, new RdmaConnectionLostException(reason + " " + stream));
            failed++;
        }
        link.connection.close();
        return failed;
    }

    /** Fails every write in flight (closing before they were acknowledged). */
    @Override
    public void failAll(final AckHandler handler, final String reason) {
        for (final Link link : linkArray) {
            if (link.size > 0 || link.broken != null) {
                fail(link, handler, reason);
            }
        }
    }

    /** Writes not acknowledged yet. */
    @Override
    public int inFlight() {
        return inFlight;
    }

    /** Writes posted so far. */
    public long writes() {
        return writes;
    }

    /** Segment rolls asked for so far. */
    public long rolls() {
        return rolls;
    }

    @Override
    public void close() {
        for (final Link link : links.values()) {
            link.connection.close();
        }
        links.clear();
        linkArray = new Link[0];
        arena.close();
    }
}
