package io.isthmus.client.rdma;

import io.isthmus.ffi.verbs.AccessFlags;
import io.isthmus.ffi.verbs.MemoryRegion;
import io.isthmus.ffi.verbs.WorkCompletions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer side of exclusive RDMA produce (KafkaDirect section 4.2.2). Per partition an {@link RdmaProduceStream}
 * holds produce access to the active segment. Each sealed batch goes, from the producer's registered batch buffers,
 * with one WRITE WITH IMM to the segment's tail; the immediate names the segment and the write's order. The broker
 * validates and commits in order and SENDs an {@link ProduceAckDescriptor ack} with the base offset or an error.
 *
 * <ul>
 *   <li><b>Credits:</b> at most {@link RdmaConnection#produceCredits()} writes per connection are unacknowledged.
 *   <li><b>Roll:</b> a batch that does not fit the segment waits until the stream's writes are all acknowledged, then
 *       asks for the next segment (PRODUCE_ACCESS with ROLL_FULL) and goes there.
 *   <li><b>Errors:</b> an ack with an error fails that batch (the broker revoked access: writes behind it fail too); a
 *       completion in error breaks the queue pair, fails every write in flight on it with the reason, and the next
 *       batches ask for access again over a new connection. Nothing is dropped silently.
 * </ul>
 *
 * <p>Acks come back in write order per connection, so writes in flight are a ring. Owned by the sender thread; a write
 * or an ack allocates nothing (batch buffers lie in one slab registered once per connection).
 */
public final class RdmaProducerTransport implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaProducerTransport.class);
    private static final int POLL_BATCH = 32;

    /** Gets the outcome of each write. */
    public interface AckHandler {
        /** {@code token} was written and committed at {@code baseOffset}, or failed with {@code error}. */
        void onAck(Object token, long baseOffset, RuntimeException error);
    }

    private final RdmaClientSettings settings;
    private final String clientId;
    private final MemorySegment slab;
    private final Map<InetSocketAddress, Link> links = new HashMap<>();
    /** {@link #links}' values, rebuilt when a link comes or goes, so a poll iterates without allocating. */
    private Link[] linkArray = new Link[0];

    private final Arena arena = Arena.ofShared();
    private final WorkCompletions completions;
    private int inFlight;
    private long writes;
    private long rolls;

    /** A connection with the slab registered and its ring of writes in flight. */
    static final class Link {
        final RdmaConnection connection;
        final MemoryRegion slabRegion;
        final int credits;
        final int signalInterval;
        final Object[] tokens;
        final RdmaProduceStream[] streams;
        final int[] immediates;
        final MemoryRegion[] ownRegions;
        int head;
        int size;
        int unsignaled;

        Link(final RdmaConnection connection, final MemorySegment slab) {
            this.connection = connection;
            this.slabRegion = slab == null ? null : connection.register(slab, AccessFlags.LOCAL_WRITE);
            this.credits = connection.produceCredits();
            this.signalInterval = Math.max(1, credits / 4);
            this.tokens = new Object[credits];
            this.streams = new RdmaProduceStream[credits];
            this.immediates = new int[credits];
            this.ownRegions = new MemoryRegion[credits];
        }
    }

    /**
     * @param slab the memory every pooled batch buffer lies in (registered once per connection); batches outside it
     *     (one-off buffers for oversized records) are registered for their one write
     */
    public RdmaProducerTransport(final RdmaClientSettings settings, final String clientId, final MemorySegment slab) {
        this.settings = settings;
        this.clientId = clientId;
        this.slab = slab;
        this.completions = WorkCompletions.allocate(arena, POLL_BATCH);
    }

    public RdmaProduceStream stream(final String topic, final int partition, final InetSocketAddress leader) {
        return new RdmaProduceStream(topic, partition, leader);
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
     * must wait: no credit left, or a roll waiting for the stream's writes to be acknowledged.
     *
     * @return true if written (its outcome comes to {@link #poll}), false to try again after acks
     * @throws RdmaTransportException if access is refused or the batch can never fit a segment
     */
    public boolean tryWrite(
            final RdmaProduceStream stream, final MemorySegment batch, final int length, final Object token) {
        if (stream.needsAccess) {
            if (stream.inFlight > 0) {
                return false;
            }
            access(stream, ProduceAccessRequest.of(stream.topic, stream.partition));
        }
        if (stream.tail + length > stream.capacity) {
            if (length > stream.capacity) {
                throw new RdmaTransportException("batch larger than a whole segment: " + stream + " batchBytes="
                        + length + " (lower batch.size or raise the broker's log.segment.bytes)");
            }
            if (stream.inFlight > 0) {
                return false; // the broker must have committed everything before it rolls the segment
            }
            rolls++;
            access(stream, ProduceAccessRequest.rollFull(stream.topic, stream.partition, stream.segmentId));
        }
        final Link link = stream.link;
        if (link.size == link.credits) {
            return false;
        }
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
        final boolean signaled = ++link.unsignaled >= link.signalInterval;
        if (signaled) {
            link.unsignaled = 0;
        }
        try {
            link.connection.postWriteWithImmediate(
                    0, region, offset, length, stream.segmentAddress + stream.tail, stream.rkey, immediate, signaled);
        } catch (final RuntimeException e) {
            if (own != null) {
                link.connection.deregister(own);
            }
            throw new RdmaTransportException("posting an RDMA write failed: " + stream + " cause=" + e, e);
        }
        final int slot = (link.head + link.size) % link.credits;
        link.tokens[slot] = token;
        link.streams[slot] = stream;
        link.immediates[slot] = immediate;
        link.ownRegions[slot] = own;
        link.size++;
        inFlight++;
        writes++;
        stream.inFlight++;
        stream.tail += length;
        stream.nextOrder = ProduceImmediateDescriptor.nextOrder(stream.nextOrder);
        return true;
    }

    private void access(final RdmaProduceStream stream, final ProduceAccessRequest request) {
        final Link link = link(stream.broker);
        final ProduceAccessResponse access = link.connection.produceAccess(request);
        if (access.errorCode() != ControlErrorCodes.NONE) {
            stream.needsAccess = true;
            throw new RdmaTransportException("broker refused RDMA produce access: " + stream + " error="
                    + ControlErrorCodes.name(access.errorCode()) + " roll=" + request.rollsFullSegment());
        }
        stream.link = link;
        stream.granted(access);
    }

    /** Handles the acks and completions that arrived; returns how many writes completed. */
    public int poll(final AckHandler handler) {
        int done = 0;
        for (final Link link : linkArray) {
            done += poll(link, handler);
        }
        return done;
    }

    private int poll(final Link link, final AckHandler handler) {
        final RdmaConnection connection = link.connection;
        final int sent = connection.pollSend(completions);
        for (int i = 0; i < sent; i++) {
            if (!completions.isSuccess(i)) {
                return fail(link, handler, "RDMA write failed: completion=" + completions.describe(i));
            }
        }
        final int received = connection.pollReceive(completions);
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
            if (link.size == 0 || link.immediates[link.head] != immediate) {
                return done
                        + fail(
                                link,
                                handler,
                                "RDMA ack out of order: immediate=" + immediate + " expected="
                                        + (link.size == 0 ? "none" : Integer.toString(link.immediates[link.head])));
            }
            final int slot = link.head;
            final Object token = link.tokens[slot];
            final RdmaProduceStream stream = link.streams[slot];
            pop(link);
            if (error == ControlErrorCodes.NONE) {
                handler.onAck(token, baseOffset, null);
            } else {
                stream.needsAccess = true;
                handler.onAck(
                        token,
                        -1,
                        new RdmaTransportException("RDMA produce rejected, access revoked: " + stream + " error="
                                + ControlErrorCodes.name(error) + " immediate=" + immediate));
            }
            done++;
        }
        return done;
    }

    private void pop(final Link link) {
        final int slot = link.head;
        final MemoryRegion own = link.ownRegions[slot];
        if (own != null) {
            link.connection.deregister(own);
            link.ownRegions[slot] = null;
        }
        link.streams[slot].inFlight--;
        link.tokens[slot] = null;
        link.streams[slot] = null;
        link.head = (slot + 1) % link.credits;
        link.size--;
        inFlight--;
    }

    /** The connection broke: every write in flight on it fails with the reason; streams ask for access again. */
    private int fail(final Link link, final AckHandler handler, final String reason) {
        LOG.warn("RDMA produce connection failed, failing its writes in flight: {} reason={}", link.connection, reason);
        links.values().remove(link);
        linkArray = links.values().toArray(Link[]::new);
        int failed = 0;
        while (link.size > 0) {
            final Object token = link.tokens[link.head];
            final RdmaProduceStream stream = link.streams[link.head];
            pop(link);
            stream.needsAccess = true;
            stream.link = null;
            handler.onAck(token, -1, new RdmaTransportException(reason + " " + stream));
            failed++;
        }
        link.connection.close();
        return failed;
    }

    /** Fails every write in flight (closing before they were acknowledged). */
    public void failAll(final AckHandler handler, final String reason) {
        for (final Link link : linkArray) {
            if (link.size > 0) {
                fail(link, handler, reason);
            }
        }
    }

    /** Writes not acknowledged yet. */
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
