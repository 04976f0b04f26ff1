package io.isthmus.client.rdma;

import io.isthmus.client.record.ReadableBatches;
import io.isthmus.ffi.verbs.AccessFlags;
import io.isthmus.ffi.verbs.MemoryRegion;
import io.isthmus.ffi.verbs.WorkCompletions;
import io.isthmus.protocol.control.AbortedTransactionsDescriptor;
import io.isthmus.protocol.control.ConsumeAccessResponse;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.MetadataSlotDescriptor;
import io.isthmus.protocol.control.ReleaseAccessRequest;
import io.isthmus.protocol.record.RecordBatchDescriptor;
import io.isthmus.protocol.record.RecordBatchValidator;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer side of RDMA consume (KafkaDirect section 4.4.2). Per partition a {@link RdmaPartitionReader} holds
 * read access to one segment, asked for over the control connection. Each {@link #poll}:
 *
 * <ol>
 *   <li>asks for access where a reader needs it (first read, a seek, a sealed segment read to its end, a revoked
 *       slot);
 *   <li>refreshes every partition read over a connection with ONE RDMA READ of its metadata slots;
 *   <li>READs the new bytes of each partition, never past its readable position, into one registered {@link
 *       RdmaReadBuffer} of {@code rdma.read.bytes}, all READs in flight together;
 *   <li>hands out only whole batches, found by one walk over their headers ({@link ReadableBatches}): a partial
 *       trailing batch is not handed out and is read again, with the rest of it, once the slot says the rest is
 *       there.
 * </ol>
 *
 * <p>With {@code read_committed}, a reader hands out no batch at or above the last stable offset its slot carries, and
 * keeps a copy of the partition's aborted transactions ({@link AbortedTransactionsDescriptor}): when a slot's count
 * passes what it copied, one more READ brings the new entries (entries below a published count are final, so that
 * READ is never torn). The consumer drops aborted batches with them as it does with a fetch response's list; the
 * broker's CPU still does nothing per poll.
 *
 * <p>A READ that completes in error (e.g. REM_ACCESS_ERR on an rkey retention withdrew) breaks the queue pair: the
 * connection is closed and every reader on it asks for access again on the next poll, over a new connection; the
 * application sees no error unless access is refused (then {@link RdmaPartitionReader#outOfRange()}).
 *
 * <p>Owned by the consumer's polling thread. Allocates nothing per poll once buffers and readers exist.
 */
public final class RdmaConsumerTransport implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaConsumerTransport.class);
    private static final int MAX_SEND_WR = 64;
    private static final int SLOT_BYTES = 64 * 1024;
    /** Aborted-transaction entries one READ brings at most. */
    private static final int ABORTED_BYTES = 64 * 1024;
    /** How long a broker found out of reach is not dialled again. */
    private static final long UNREACHABLE_BACKOFF_NANOS = 500_000_000L;

    /** How the READs of one wait ended ({@link #awaitReads}). */
    private enum Reads {
        /** Every READ completed well. */
        DONE,
        /** One failed or timed out; all were ended and reaped, and their memory may be reused. */
        FAILED,
        /** One failed or timed out and the rest could not be reaped: the NIC may still write where they point. */
        ABANDONED
    }

    /** Receives the whole batches of one poll. */
    public interface BatchSink {
        /**
         * Batches of {@code reader}'s partition lie in {@code [start, end)} of the poll's buffer. Both ends and the
         * next offset come from the one walk over their headers: trust them, do not walk the batches again.
         *
         * @param fetchOffset records below it are not to be handed out (the first batch may start earlier)
         * @param nextOffset the offset after the last of these batches
         */
        void onBatches(RdmaPartitionReader reader, long start, long end, long fetchOffset, long nextOffset);
    }

    private final RdmaClientSettings settings;
    private final String clientId;
    private final boolean readCommitted;
    private final RdmaReadBufferPool buffers;
    private final Map<InetSocketAddress, Link> links = new HashMap<>();
    /** {@link #links}' values, rebuilt when a link comes or goes, so a poll iterates without allocating. */
    private Link[] linkArray = new Link[0];
    /**
     * Brokers found out of reach, with when they may be dialled again: the other readers of such a broker look for
     * their leader at once instead of each waiting out a connection attempt in the same poll.
     */
    private final Map<InetSocketAddress, Long> unreachableUntil = new HashMap<>();

    private final WorkCompletions completions;
    private final Arena arena = Arena.ofShared();
    private final List<RdmaPartitionReader> chunkReaders = new ArrayList<>();
    private final ReadableBatches batches = new ReadableBatches();
    private long[] chunkStarts = new long[16];
    private int[] chunkLengths = new int[16];
    private long slotReads;
    private long dataReads;
    private long accessRequests;
    private long abortedReads;
    private long abortedArraysOutgrown;
    private int rotation;

    /** A connection to one broker with its slot READ target. */
    private static final class Link {
        final RdmaConnection connection;
        final MemorySegment slots;
        final MemoryRegion slotRegion;
        final MemorySegment aborted;
        final MemoryRegion abortedRegion;

        Link(final RdmaConnection connection) {
            this.connection = connection;
            this.slots = connection.allocate(SLOT_BYTES);
            this.slotRegion = connection.register(slots, AccessFlags.LOCAL_WRITE);
            this.aborted = connection.allocate(ABORTED_BYTES);
            this.abortedRegion = connection.register(aborted, AccessFlags.LOCAL_WRITE);
        }
    }

    public RdmaConsumerTransport(final RdmaClientSettings settings, final String clientId) {
        this(settings, clientId, false);
    }

    /** @param readCommitted hand out only what {@code isolation.level=read_committed} may see */
    public RdmaConsumerTransport(
            final RdmaClientSettings settings, final String clientId, final boolean readCommitted) {
        this.settings = settings;
        this.clientId = clientId;
        this.readCommitted = readCommitted;
        this.buffers = new RdmaReadBufferPool(settings.readBytes());
        this.completions = WorkCompletions.allocate(arena, MAX_SEND_WR);
    }

    /** A reader for a partition; {@link RdmaPartitionReader#seek} it before polling. */
    public RdmaPartitionReader reader(final String topic, final int partition) {
        return new RdmaPartitionReader(topic, partition);
    }

    /** Gives the reader's access back (the partition is no longer read). */
    public void remove(final RdmaPartitionReader reader) {
        final RdmaConnection connection = reader.connection;
        if (connection != null && !connection.isClosed() && !reader.needsAccess) {
            try {
                connection.release(reader.topic, reader.partition, ReleaseAccessRequest.CONSUME);
            } catch (final RuntimeException e) {
                LOG.debug("releasing consume access failed: {}", reader, e);
            }
        }
        reader.connection = null;
        reader.needsAccess = true;
    }

    /**
     * One round over the readers (those the caller wants read now: not paused, positioned). Returns the buffer the
     * batches handed to {@code sink} lie in, to release once they are consumed, or null if no reader had whole
     * batches.
     */
    public RdmaReadBuffer poll(final RdmaPartitionReader[] readers, final int count, final BatchSink sink) {
        for (int i = 0; i < count; i++) {
            final RdmaPartitionReader reader = readers[i];
            if (reader.connection != null && reader.connection.isClosed()) {
                // Its connection broke under another reader: it asks for access again, on a new one.
                reader.connection = null;
                reader.needsAccess = true;
            }
            if (reader.needsAccess && !reader.outOfRange && !reader.leaderLost) {
                requestAccess(reader);
            }
        }
        for (final Link link : linkArray) {
            final RdmaReadBuffer buffer = pollLink(link, readers, count, sink);
            if (buffer != null) {
                return buffer;
            }
        }
        return null;
    }

    private Link link(final InetSocketAddress broker) {
        Link link = links.get(broker);
        if (link == null || link.connection.isClosed()) {
            final RdmaConnection connection = RdmaConnection.open(broker, clientId, settings, 1, MAX_SEND_WR);
            try {
                link = new Link(connection);
            } catch (final RuntimeException e) {
                connection.close();
                throw e;
            }
            links.put(broker, link);
            linkArray = links.values().toArray(Link[]::new);
        }
        return link;
    }

    private void requestAccess(final RdmaPartitionReader reader) {
        if (reader.broker == null || reader.nextOffset < 0) {
            throw new IllegalStateException("RDMA reader not positioned: " + reader);
        }
        final Long until = unreachableUntil.get(reader.broker);
        if (until != null) {
            if (System.nanoTime() - until < 0) {
                reader.leaderLost = true;
                return;
            }
            unreachableUntil.remove(reader.broker);
        }
        Link link = null;
        final ConsumeAccessResponse access;
        try {
            link = link(reader.broker);
            accessRequests++;
            access = link.connection.consumeAccess(reader.topic, reader.partition, reader.nextOffset);
        } catch (final RdmaBrokerUnreachableException e) {
            // Down, restarting, or gone with its leadership taken over: the fetcher asks the metadata where to read now
            // (a single broker's reader asks this broker again, spaced out).
            LOG.debug("RDMA consume access not asked, the broker is out of reach: {} cause={}", reader, e.getMessage());
            if (link != null) {
                drop(link.connection);
            }
            unreachableUntil.put(reader.broker, System.nanoTime() + UNREACHABLE_BACKOFF_NANOS);
            reader.leaderLost = true;
            return;
        } catch (final RdmaTransportException e) {
            // The broker broke the protocol, or the device failed: the application hears of it, and the next poll
            // connects afresh.
            if (link != null) {
                drop(link.connection);
            }
            throw e;
        }
        reader.connection = link.connection;
        switch (access.errorCode()) {
            case ControlErrorCodes.NONE -> {
                if (access.slotIndex() < 0
                        || (long) (access.slotIndex() + 1) * MetadataSlotDescriptor.LENGTH > SLOT_BYTES) {
                    throw new RdmaTransportException("metadata slot out of range: " + reader + " slotIndex="
                            + access.slotIndex() + " slotBytes=" + SLOT_BYTES);
                }
                reader.granted(access);
            }
            case ControlErrorCodes.OFFSET_OUT_OF_RANGE -> reader.outOfRange = true;
            // The leadership moved: the fetcher refreshes the metadata and seeks the reader to the new leader.
            case ControlErrorCodes.NOT_LEADER_OR_FOLLOWER -> reader.leaderLost = true;
            case ControlErrorCodes.TOPIC_AUTHORIZATION_FAILED ->
                throw new TopicAuthorizationException(
                        "not authorized to read topic '" + reader.topic + "' (RDMA consume access refused)",
                        Set.of(reader.topic));
            default ->
                throw new RdmaTransportException("broker refused RDMA consume access: " + reader + " error="
                        + ControlErrorCodes.name(access.errorCode()) + " broker=" + reader.broker);
        }
    }

    private RdmaReadBuffer pollLink(
            final Link link, final RdmaPartitionReader[] readers, final int count, final BatchSink sink) {
        final RdmaConnection connection = link.connection;
        int slotsToRead = 0;
        for (int i = 0; i < count; i++) {
            final RdmaPartitionReader r = readers[i];
            if (r.connection == connection && !r.needsAccess) {
                slotsToRead = Math.max(slotsToRead, r.slotIndex + 1);
            }
        }
        if (slotsToRead == 0) {
            return null;
        }
        final RdmaPartitionReader any = firstOn(connection, readers, count);
        slotReads++;
        connection.postRead(
                0,
                link.slotRegion,
                0,
                slotsToRead * MetadataSlotDescriptor.LENGTH,
                any.slotRegionAddress,
                any.slotRegionRkey);
        if (awaitReads(connection, 1, readers, count) != Reads.DONE) {
            return null;
        }
        if (readCommitted && !refreshTransactions(link, readers, count)) {
            return null;
        }
        chunkReaders.clear();
        RdmaReadBuffer buffer = null;
        MemoryRegion region = null;
        long used = 0;
        final long capacity = buffers.bufferBytes();
        // Start at another partition each poll, so one with a large backlog cannot take every buffer.
        final int first = count == 0 ? 0 : Math.floorMod(rotation++, count);
        for (int k = 0; k < count && chunkReaders.size() < MAX_SEND_WR; k++) {
            final RdmaPartitionReader r = readers[(first + k) % count];
            if (r.connection != connection || r.needsAccess) {
                continue;
            }
            final long slot = (long) r.slotIndex * MetadataSlotDescriptor.LENGTH;
            if (MetadataSlotDescriptor.segmentId(link.slots, slot) == r.segmentId) {
                final long word = MetadataSlotDescriptor.readable(link.slots, slot);
                if (MetadataSlotDescriptor.isRevoked(word)) {
                    LOG.info("RDMA read access revoked by the broker, asking again: {}", r);
                    r.needsAccess = true;
                    continue;
                }
                r.readable = Math.max(r.readable, MetadataSlotDescriptor.position(word));
                r.highWatermark = Math.max(r.highWatermark, MetadataSlotDescriptor.highWatermark(link.slots, slot));
                r.sealed |= MetadataSlotDescriptor.isSealed(word);
            }
            if (r.finishedSealedSegment()) {
                r.needsAccess = true;
                continue;
            }
            if (readCommitted && (r.needsAccess || r.nextOffset >= r.lastStableOffset)) {
                // Asking again for access, or nothing below the last stable offset to read yet.
                continue;
            }
            final long length = Math.min(r.readable - r.readPosition, capacity - used);
            if (length <= 0) {
                continue;
            }
            if (buffer == null) {
                buffer = buffers.acquire();
                region = buffer.regionFor(connection);
            }
            if (chunkReaders.size() == chunkStarts.length) {
                chunkStarts = java.util.Arrays.copyOf(chunkStarts, chunkStarts.length * 2);
                chunkLengths = java.util.Arrays.copyOf(chunkLengths, chunkLengths.length * 2);
            }
            final int index = chunkReaders.size();
            chunkStarts[index] = used;
            chunkLengths[index] = (int) length;
            chunkReaders.add(r);
            dataReads++;
            connection.postRead(index + 1L, region, used, (int) length, r.segmentAddress + r.readPosition, r.rkey);
            used += (length + 7) & ~7L;
        }
        if (buffer == null) {
            return null;
        }
        final Reads reads = awaitReads(connection, chunkReaders.size(), readers, count);
        if (reads != Reads.DONE) {
            if (reads == Reads.FAILED) {
                buffer.release();
            }
            return null;
        }
        final boolean handedOut;
        try {
            handedOut = handOut(buffer.segment(), sink);
        } catch (final RuntimeException e) {
            buffer.release();
            throw e;
        }
        if (!handedOut) {
            buffer.release();
            return null;
        }
        return buffer;
    }

    /**
     * Hands each chunk's whole batches to the sink: one walk over their headers ({@link ReadableBatches}) finds where
     * they end and the offset after them, and the sink trusts both. A truncated tail is left for the next poll.
     */
    private boolean handOut(final MemorySegment memory, final BatchSink sink) {
        boolean handedOut = false;
        for (int c = 0; c < chunkReaders.size(); c++) {
            final RdmaPartitionReader r = chunkReaders.get(c);
            final long start = chunkStarts[c];
            final long limit = start + chunkLengths[c];
            final ReadableBatches whole = readCommitted
                    ? batches.scan(memory, start, limit, r.nextOffset, r.lastStableOffset)
                    : batches.scan(memory, start, limit, r.nextOffset);
            if (whole.isEmpty()) {
                checkIncomplete(r, memory, start, limit);
                continue;
            }
            sink.onBatches(r, start, whole.end(), r.nextOffset, whole.nextOffset());
            handedOut = true;
            r.readPosition += whole.end() - start;
            r.nextOffset = whole.nextOffset();
            if (r.finishedSealedSegment()) {
                r.needsAccess = true;
            }
        }
        return handedOut;
    }

    /**
     * read_committed, after the slot READ and before any data READ (each waits for its own completion): every reader
     * on the link takes its last stable offset from its slot and copies the aborted transactions the slot counts.
     * Returns false if a READ failed (the connection is closed, its readers ask for access again).
     */
    private boolean refreshTransactions(final Link link, final RdmaPartitionReader[] readers, final int count) {
        for (int i = 0; i < count; i++) {
            final RdmaPartitionReader r = readers[i];
            if (r.connection != link.connection || r.needsAccess) {
                continue;
            }
            final long slot = (long) r.slotIndex * MetadataSlotDescriptor.LENGTH;
            r.lastStableOffset =
                    Math.max(r.lastStableOffset, MetadataSlotDescriptor.lastStableOffset(link.slots, slot));
            final long published = MetadataSlotDescriptor.abortedCount(link.slots, slot);
            if (!copyAborted(link, r, published, readers, count) && r.connection == null) {
                return false;
            }
        }
        return true;
    }

    /**
     * Brings the reader's copy of its partition's aborted transactions up to {@code published} entries (the count its
     * slot carried), READing the new ones. Returns false if the reader must ask for access again instead: the broker
     * replaced a full array, or the READ failed (the connection is then closed).
     */
    private boolean copyAborted(
            final Link link,
            final RdmaPartitionReader r,
            final long published,
            final RdmaPartitionReader[] readers,
            final int count) {
        if (published <= r.abortedKnown) {
            return true;
        }
        if (published > r.abortedBase + r.abortedCapacity) {
            abortedArraysOutgrown++;
            r.needsAccess = true;
            return false;
        }
        while (r.abortedKnown < published) {
            final long first = r.abortedKnown - r.abortedBase;
            final int entries = (int)
                    Math.min(published - r.abortedKnown, ABORTED_BYTES / AbortedTransactionsDescriptor.ENTRY_LENGTH);
            abortedReads++;
            link.connection.postRead(
                    0,
                    link.abortedRegion,
                    0,
                    entries * AbortedTransactionsDescriptor.ENTRY_LENGTH,
                    r.abortedAddress + first * AbortedTransactionsDescriptor.ENTRY_LENGTH,
                    r.abortedRkey);
            if (awaitReads(link.connection, 1, readers, count) != Reads.DONE) {
                return false;
            }
            for (int i = 0; i < entries; i++) {
                r.addAborted(
                        AbortedTransactionsDescriptor.producerId(link.aborted, i),
                        AbortedTransactionsDescriptor.firstOffset(link.aborted, i),
                        AbortedTransactionsDescriptor.lastOffset(link.aborted, i));
            }
            r.abortedKnown += entries;
        }
        r.dropAbortedBefore(r.nextOffset);
        return true;
    }

    /** No whole batch in a chunk: garbage is an error, a batch larger than a whole buffer can never be read. */
    private void checkIncomplete(
            final RdmaPartitionReader r, final MemorySegment memory, final long start, final long limit) {
        final RecordBatchValidator.Structure structure = RecordBatchValidator.structure(memory, start, limit);
        if (structure == RecordBatchValidator.Structure.MALFORMED) {
            throw new RdmaTransportException("malformed batch read over RDMA: " + r + " segmentPosition="
                    + r.readPosition + " bytesRead=" + (limit - start));
        }
        if (limit - start >= RecordBatchDescriptor.LOG_OVERHEAD) {
            final long batchSize = RecordBatchDescriptor.batchSize(memory, start);
            if (batchSize > buffers.bufferBytes()) {
                throw new RdmaTransportException("a batch is larger than one RDMA READ buffer: " + r + " batchBytes="
                        + batchSize + " " + RdmaClientSettings.READ_BYTES + "=" + buffers.bufferBytes()
                        + " (raise it)");
            }
        }
    }

    private static RdmaPartitionReader firstOn(
            final RdmaConnection connection, final RdmaPartitionReader[] readers, final int count) {
        for (int i = 0; i < count; i++) {
            if (readers[i].connection == connection && !readers[i].needsAccess) {
                return readers[i];
            }
        }
        throw new IllegalStateException("no reader on connection " + connection);
    }

    /**
     * Waits for {@code expected} READ completions. On an error the queue pair is broken: the connection is closed and
     * its readers ask for access again.
     */
    private Reads awaitReads(
            final RdmaConnection connection, final int expected, final RdmaPartitionReader[] readers, final int count) {
        final long deadline = System.nanoTime() + settings.requestTimeoutMs() * 1_000_000L;
        int done = 0;
        boolean failed = false;
        String failure = null;
        int idle = 0;
        while (done < expected) {
            final int n = connection.pollSend(completions);
            for (int i = 0; i < n; i++) {
                if (!completions.isSuccess(i) && !failed) {
                    failed = true;
                    failure = completions.describe(i);
                }
            }
            done += n;
            if (n == 0) {
                if (System.nanoTime() - deadline > 0) {
                    failed = true;
                    failure = "no completion within " + settings.requestTimeoutMs() + " ms";
                    break;
                }
                idle(++idle);
            }
        }
        if (!failed) {
            return Reads.DONE;
        }
        // READs still outstanding may yet land in this connection's slot and aborted-array memory and in the read
        // buffer: they are ended and reaped before any of it is freed or used again.
        final boolean abandoned =
                done < expected && !connection.drainSend(expected - done, completions, settings.requestTimeoutMs());
        if (abandoned) {
            LOG.warn(
                    "RDMA READs not ended within {} ms after a failure; their read buffer is left unused: {}",
                    settings.requestTimeoutMs(),
                    connection);
        }
        LOG.warn("RDMA READ failed, reconnecting and asking for access again: {} completion={}", connection, failure);
        for (int i = 0; i < count; i++) {
            if (readers[i].connection == connection) {
                readers[i].connection = null;
                readers[i].needsAccess = true;
            }
        }
        drop(connection);
        return abandoned ? Reads.ABANDONED : Reads.FAILED;
    }

    /** Forgets and closes a connection that broke: the next access request to its broker opens a new one. */
    private void drop(final RdmaConnection connection) {
        links.values().removeIf(link -> link.connection == connection);
        linkArray = links.values().toArray(Link[]::new);
        connection.close();
    }

    /** Spin briefly, then yield, then park: the broker may share this core (embedded, or a one-vCPU guest). */
    static void idle(final int idleCount) {
        if (idleCount < 64) {
            Thread.onSpinWait();
        } else if (idleCount < 256) {
            Thread.yield();
        } else {
            java.util.concurrent.locks.LockSupport.parkNanos(Math.min(1_000_000L, 1_000L * (idleCount - 255)));
        }
    }

    /** Slot READs so far: one per poll per connection, whatever the number of partitions. */
    public long slotReads() {
        return slotReads;
    }

    /** Segment data READs so far. */
    public long dataReads() {
        return dataReads;
    }

    /** READs of aborted-transaction entries so far (read_committed; one per new batch of entries a slot counts). */
    public long abortedReads() {
        return abortedReads;
    }

    /**
     * Times a slot counted more aborted transactions than the reader's array holds, so that the reader asked for access
     * again to learn the broker's larger array.
     */
    public long abortedArraysOutgrown() {
        return abortedArraysOutgrown;
    }

    /** CONSUME_ACCESS requests so far (first reads, sealed segments, revocations, seeks). */
    public long accessRequests() {
        return accessRequests;
    }

    @Override
    public void close() {
        for (final Link link : links.values()) {
            link.connection.close();
        }
        links.clear();
        linkArray = new Link[0];
        buffers.close();
        arena.close();
    }
}
