package io.isthmus.client.shm;

import io.isthmus.client.record.ReadableBatches;
import io.isthmus.client.security.SecuritySettings;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.MetadataSlotDescriptor;
import io.isthmus.protocol.control.ShmConsumeAccessResponse;
import io.isthmus.protocol.control.ShmDirectoryLayout;
import io.isthmus.protocol.record.RecordBatchDescriptor;
import io.isthmus.protocol.record.RecordBatchValidator;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer side of shared-memory consume: the RDMA consumer's protocol with loads in place of READs. Per partition
 * a {@link ShmPartitionReader} maps the segment file it was granted read-only. Each {@link #poll}:
 *
 * <ol>
 *   <li>asks for access where a reader needs it (first read, a seek, a sealed segment read to its end, a revoked slot),
 *       and maps the granted segment file;
 *   <li>loads the readers' metadata slots in place from the mapped slot file, the readable word with acquire semantics
 *       (the broker stores it last, with release semantics);
 *   <li>hands out the new whole batches of one partition, found by one walk over their headers ({@link
 *       ReadableBatches}), as a slice of the segment's mapping: no copy, no system call, no broker CPU. Partitions take
 *       turns, poll by poll.
 * </ol>
 *
 * <p>A broker that stops or restarts marks its slot file closed, and a broker killed or ending the session closes the
 * control connection (checked every 100 ms of polling, without waiting): the session is dropped and every reader
 * attaches again (to the restarted broker, which grants from the offset the reader reached, so nothing is read twice or
 * skipped). While the broker is away, polls find nothing and try again at most every {@value #REATTACH_BACKOFF_MS} ms;
 * a broker that answers and refuses (shared memory turned off, a token this process cannot read) fails the poll.
 *
 * <p>With {@code read_committed} a reader hands out no batch at or above the last stable offset its slot carries, and
 * keeps a copy of the partition's aborted transactions, loaded from the broker's array file (mapped read-only) up to
 * the count its slot publishes.
 *
 * <p>Owned by the consumer's polling thread. Allocates nothing per poll once readers and mappings exist.
 */
public final class ShmConsumerTransport implements ShmAttachable {
    private static final Logger LOG = LoggerFactory.getLogger(ShmConsumerTransport.class);
    static final long REATTACH_BACKOFF_MS = 100;
    /** How often a poll also checks that the sessions' control connections are still open. */
    private static final long PROBE_INTERVAL_NANOS = 100_000_000L;

    /** Receives the whole batches of one poll. */
    public interface BatchSink {
        /**
         * Batches of {@code reader}'s partition lie in {@code [start, end)} of the poll's mapping. Both ends and the next
         * offset come from the one walk over their headers: trust them.
         *
         * @param fetchOffset records below it are not to be handed out (the first batch may start earlier)
         * @param nextOffset the offset after the last of these batches
         */
        void onBatches(ShmPartitionReader reader, long start, long end, long fetchOffset, long nextOffset);
    }

    private final String clientId;
    private final long requestTimeoutMs;
    private final SecuritySettings security;
    private final long maxBytesPerPoll;
    private final boolean readCommitted;
    private final Map<InetSocketAddress, ShmConnection> connections = new HashMap<>();
    /** Brokers a session was lost with: when to try attaching again (nanoTime). */
    private final Map<InetSocketAddress, Long> reattachAfter = new HashMap<>();

    private final List<ShmPartitionReader> readers = new ArrayList<>();
    private final ReadableBatches batches = new ReadableBatches();
    private long accessRequests;
    private long slotLoads;
    private long sessionsLost;
    private long abortedArraysOutgrown;
    private int rotation;
    private long nextProbe = System.nanoTime();

    /**
     * @param maxBytesPerPoll batches of one partition handed out by one poll at most (a larger single batch still goes
     *     out whole)
     * @param readCommitted hand out only what {@code isolation.level=read_committed} may see
     */
    public ShmConsumerTransport(
            final String clientId,
            final long requestTimeoutMs,
            final SecuritySettings security,
            final long maxBytesPerPoll,
            final boolean readCommitted) {
        this.readCommitted = readCommitted;
        this.clientId = clientId;
        this.requestTimeoutMs = requestTimeoutMs;
        this.security = security;
        this.maxBytesPerPoll = maxBytesPerPoll;
    }

    /**
     * Attaches to {@code broker} now, so that a client asking for {@code transport=shm} learns at once whether it can.
     *
     * @throws ShmTransportException with the reason if it cannot
     */
    @Override
    public void attach(final InetSocketAddress broker) {
        connection(broker);
    }

    /** A reader for a partition; {@link ShmPartitionReader#seek} it before polling. */
    public ShmPartitionReader reader(final String topic, final int partition) {
        final ShmPartitionReader reader = new ShmPartitionReader(topic, partition);
        readers.add(reader);
        return reader;
    }

    /** Gives the reader's access back and unmaps its segment (the partition is no longer read). */
    public void remove(final ShmPartitionReader reader) {
        final ShmConnection connection = reader.connection;
        // Whatever the reader's state, the broker may hold a grant for it (one answered before a seek, a revocation):
        // releasing one it does not hold is answered NONE.
        if (connection != null && !connection.isClosed()) {
            try {
                connection.release(reader.topic, reader.partition);
            } catch (final RuntimeException e) {
                LOG.debug("releasing shared-memory consume access failed: {}", reader, e);
            }
        }
        reader.connection = null;
        reader.needsAccess = true;
        reader.unmap();
        readers.remove(reader);
    }

    /**
     * One round over the readers (those the caller wants read now: not paused, positioned). Returns the mapping the
     * batches handed to {@code sink} lie in, with a reference the caller must release once they are consumed, or null
     * if no reader had new batches.
     */
    public ShmSegmentMapping poll(final ShmPartitionReader[] polled, final int count, final BatchSink sink) {
        final long now = System.nanoTime();
        final boolean probe = now - nextProbe >= 0;
        if (probe) {
            nextProbe = now + PROBE_INTERVAL_NANOS;
        }
        for (int i = 0; i < count; i++) {
            final ShmPartitionReader reader = polled[i];
            if (reader.connection != null && !reader.connection.brokerAlive(probe)) {
                lose(reader.connection, "the broker stopped, restarted or ended the session");
            }
            if (reader.needsAccess && !reader.outOfRange && !reader.leaderLost) {
                requestAccess(reader);
            }
        }
        final int first = count == 0 ? 0 : Math.floorMod(rotation++, count);
        for (int k = 0; k < count; k++) {
            final ShmPartitionReader r = polled[(first + k) % count];
            if (r.needsAccess || r.connection == null) {
                continue;
            }
            refresh(r);
            if (r.needsAccess) {
                continue;
            }
            final ShmSegmentMapping handedOut = handOut(r, sink);
            if (handedOut != null) {
                return handedOut;
            }
        }
        return null;
    }

    /** Loads the reader's slot in place: the readable word first, with acquire semantics, then what it orders. */
    private void refresh(final ShmPartitionReader r) {
        slotLoads++;
        final MemorySegment slots = r.connection.slotFile();
        final long word = MetadataSlotDescriptor.readableAcquire(slots, r.slotOffset);
        if (MetadataSlotDescriptor.segmentId(slots, r.slotOffset) != r.segmentId) {
            // The slot was cleared or given to another segment since our grant: ask again.
            r.needsAccess = true;
            return;
        }
        if (MetadataSlotDescriptor.isRevoked(word)) {
            LOG.info("shared-memory read access revoked by the broker, asking again: {}", r);
            r.needsAccess = true;
            return;
        }
        r.readable = Math.max(r.readable, MetadataSlotDescriptor.position(word));
        r.highWatermark = Math.max(r.highWatermark, MetadataSlotDescriptor.highWatermark(slots, r.slotOffset));
        r.sealed |= MetadataSlotDescriptor.isSealed(word);
        if (readCommitted && !copyAborted(r, slots)) {
            return;
        }
        if (r.finishedSealedSegment()) {
            r.needsAccess = true;
        }
    }

    /**
     * read_committed: takes the last stable offset the slot carries and copies the aborted transactions it counts from
     * the mapped array (entries below a published count are final, and the slot's acquire load orders them). Returns
     * false if the reader must ask for access again: the broker replaced a full array with a larger one.
     */
    private boolean copyAborted(final ShmPartitionReader r, final MemorySegment slots) {
        // The LSO first, then the count (both acquire): the count then covers every aborted transaction below the LSO.
        r.lastStableOffset =
                Math.max(r.lastStableOffset, MetadataSlotDescriptor.lastStableOffsetAcquire(slots, r.slotOffset));
        final long published = MetadataSlotDescriptor.abortedCountAcquire(slots, r.slotOffset);
        final ShmAbortedArray array = r.abortedArray;
        if (published > r.abortedKnown && !array.holds(published - 1)) {
            abortedArraysOutgrown++;
            r.needsAccess = true;
            return false;
        }
        for (; r.abortedKnown < published; r.abortedKnown++) {
            r.aborted.add(
                    array.producerId(r.abortedKnown),
                    array.firstOffset(r.abortedKnown),
                    array.lastOffset(r.abortedKnown));
        }
        r.aborted.dropBefore(r.nextOffset);
        return true;
    }

    /** Hands the reader's new whole batches to the sink; returns the retained mapping, or null if there were none. */
    private ShmSegmentMapping handOut(final ShmPartitionReader r, final BatchSink sink) {
        if (r.readable <= r.readPosition || (readCommitted && r.nextOffset >= r.lastStableOffset)) {
            return null;
        }
        final MemorySegment memory = r.mapping.segment();
        final long start = r.readPosition;
        // read_committed stops before the first batch at or above the last stable offset (a batch boundary).
        final long offsetBound = readCommitted ? r.lastStableOffset : Long.MAX_VALUE;
        ReadableBatches whole =
                batches.scan(memory, start, Math.min(r.readable, start + maxBytesPerPoll), r.nextOffset, offsetBound);
        if (whole.isEmpty() && r.readable - start >= RecordBatchDescriptor.LOG_OVERHEAD) {
            // The first batch alone is larger than the bound: it goes out whole, and alone.
            final long first = RecordBatchDescriptor.batchSize(memory, start);
            whole = batches.scan(memory, start, Math.min(r.readable, start + first), r.nextOffset, offsetBound);
        }
        if (whole.isEmpty()
                && readCommitted
                && RecordBatchValidator.structure(memory, start, r.readable) == RecordBatchValidator.Structure.COMPLETE
                && RecordBatchDescriptor.baseOffset(memory, start) >= r.lastStableOffset) {
            return null; // the next batch is at or above the last stable offset
        }
        if (whole.isEmpty()) {
            // The broker publishes whole batches only: bytes below the readable position that hold none are corrupt.
            throw new ShmTransportException("no whole batch below the readable position of a shared-memory segment: "
                    + r + " structure=" + RecordBatchValidator.structure(memory, start, r.readable));
        }
        final ShmSegmentMapping mapping = r.mapping.retain();
        try {
            sink.onBatches(r, start, whole.end(), r.nextOffset, whole.nextOffset());
        } catch (final RuntimeException e) {
            mapping.release();
            throw e;
        }
        r.readPosition = whole.end();
        r.nextOffset = whole.nextOffset();
        if (r.finishedSealedSegment()) {
            r.needsAccess = true;
        }
        return mapping;
    }

    private void requestAccess(final ShmPartitionReader reader) {
        if (reader.broker == null || reader.nextOffset < 0) {
            throw new IllegalStateException("shared-memory reader not positioned: " + reader);
        }
        final ShmConnection connection = reachable(reader.broker);
        if (connection == null) {
            // Down, restarting, or gone for good with its leadership taken over by another broker: the fetcher looks.
            reader.leaderLost = true;
            return;
        }
        accessRequests++;
        final ShmConsumeAccessResponse access;
        try {
            access = connection.consumeAccess(reader.topic, reader.partition, reader.nextOffset);
        } catch (final ShmBrokerUnreachableException e) {
            lose(connection, e.getMessage());
            reader.leaderLost = true;
            return;
        } catch (final ShmTransportException e) {
            // The broker broke the protocol: the application hears of it, and the next poll attaches afresh.
            lose(connection, e.getMessage());
            throw e;
        }
        reader.connection = connection;
        switch (access.errorCode()) {
            case ControlErrorCodes.NONE -> {
                final long slot = connection.slotOffset(access.slotIndex());
                final ShmSegmentMapping mapped;
                if (reader.mapping != null && reader.mapping.maps(access.segmentId(), access.segmentPath())) {
                    mapped = reader.mapping;
                } else {
                    try {
                        mapped = ShmSegmentMapping.map(
                                Path.of(access.segmentPath()), access.segmentId(), access.capacity());
                    } catch (final IOException e) {
                        // Retention renamed the file between the grant and the map: the next request learns where to
                        // go.
                        LOG.info("granted segment file is gone, asking again: {} cause={}", reader, e.toString());
                        return;
                    }
                }
                if (readCommitted && !mapAborted(reader, connection, access)) {
                    if (mapped != reader.mapping) {
                        mapped.release();
                    }
                    return;
                }
                reader.granted(access, mapped, slot);
                // Entries below the array's base had markers below the log start: no readable batch belongs to them
                // (after a seek the copy starts again, at the base).
                reader.abortedKnown = Math.max(reader.abortedKnown, access.abortedBase());
            }
            case ControlErrorCodes.OFFSET_OUT_OF_RANGE -> reader.outOfRange = true;
            // The leadership moved: the fetcher refreshes the metadata and seeks the reader to the new leader.
            case ControlErrorCodes.NOT_LEADER_OR_FOLLOWER -> reader.leaderLost = true;
            case ControlErrorCodes.TOPIC_AUTHORIZATION_FAILED ->
                throw new TopicAuthorizationException(
                        "not authorized to read topic '" + reader.topic + "' (shared-memory consume access refused)",
                        Set.of(reader.topic));
            default ->
                throw new ShmTransportException("broker refused shared-memory consume access: " + reader + " error="
                        + ControlErrorCodes.name(access.errorCode()) + " broker=" + reader.broker);
        }
    }

    /**
     * Maps the partition's aborted-transaction array the answer names, unless the reader maps it already. Another array
     * (grown, or built anew after the partition had no reader) is copied from its base again: its entries may be
     * numbered differently.
     */
    private static boolean mapAborted(
            final ShmPartitionReader reader, final ShmConnection connection, final ShmConsumeAccessResponse access) {
        final ShmAbortedArray current = reader.abortedArray;
        if (current != null && current.id == access.abortedArrayId()) {
            return true;
        }
        final Path file = connection.directory().resolve(ShmDirectoryLayout.abortedFile(access.abortedArrayId()));
        try {
            reader.abortedArray =
                    ShmAbortedArray.map(file, access.abortedArrayId(), access.abortedBase(), access.abortedCapacity());
        } catch (final IOException e) {
            // Replaced and freed since the answer: the next request names the current one.
            LOG.info("granted aborted-transaction array is gone, asking again: {} cause={}", reader, e.toString());
            return false;
        }
        if (current != null) {
            current.close();
        }
        reader.aborted.clear();
        reader.abortedKnown = access.abortedBase();
        return true;
    }

    /**
     * The session with {@code broker}, attaching if there is none; null while the broker cannot be reached (a lost one
     * not back yet, or a partition's new leader that is down or restarting), retried after a backoff. A broker that
     * answers and refuses (another host, another OS user) throws, so that {@code transport=shm} fails with the reason.
     */
    private ShmConnection reachable(final InetSocketAddress broker) {
        final Long after = reattachAfter.get(broker);
        if (after != null && System.nanoTime() - after < 0) {
            return null;
        }
        try {
            final ShmConnection connection = connection(broker);
            if (reattachAfter.remove(broker) != null) {
                LOG.info("shared-memory session attached again: {}", connection);
            }
            return connection;
        } catch (final ShmBrokerUnreachableException e) {
            // Down or restarting: try again later.
            reattachAfter.put(broker, System.nanoTime() + REATTACH_BACKOFF_MS * 1_000_000L);
            LOG.debug("the broker is not back yet: broker={} cause={}", broker, e.getMessage());
            return null;
        }
    }

    private ShmConnection connection(final InetSocketAddress broker) {
        ShmConnection connection = connections.get(broker);
        if (connection == null || connection.isClosed()) {
            connection = ShmConnection.open(broker, clientId, requestTimeoutMs, security);
            connections.put(broker, connection);
        }
        return connection;
    }

    /** The session is gone: its readers ask again (attaching anew) from where they are. */
    private void lose(final ShmConnection connection, final String reason) {
        LOG.warn("shared-memory session lost, attaching again: {} reason={}", connection, reason);
        sessionsLost++;
        connections.remove(connection.broker(), connection);
        reattachAfter.put(connection.broker(), System.nanoTime());
        for (final ShmPartitionReader reader : readers) {
            if (reader.connection == connection) {
                reader.connection = null;
                reader.needsAccess = true;
                // A restarted broker numbers its segments and arrays anew: map whatever it grants next afresh.
                reader.unmap();
                reader.forgetAborted();
            }
        }
        connection.close();
    }

    /** SHM_CONSUME_ACCESS requests so far (first reads, sealed segments, revocations, seeks). */
    public long accessRequests() {
        return accessRequests;
    }

    /** Slot loads so far: what an empty poll costs (a few loads, no request). */
    public long slotLoads() {
        return slotLoads;
    }

    /**
     * read_committed: times a slot counted more aborted transactions than the reader's array holds, so that it asked
     * for access again to learn the broker's larger array.
     */
    public long abortedArraysOutgrown() {
        return abortedArraysOutgrown;
    }

    /** Sessions lost to a broker that stopped or restarted. */
    public long sessionsLost() {
        return sessionsLost;
    }

    @Override
    public void close() {
        for (final ShmPartitionReader reader : readers) {
            reader.unmap();
            reader.connection = null;
        }
        readers.clear();
        for (final ShmConnection connection : connections.values()) {
            connection.close();
        }
        connections.clear();
    }
}
