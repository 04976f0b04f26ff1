package io.isthmus.client.consumer;

import io.isthmus.client.cluster.BrokerConnections;
import io.isthmus.client.cluster.BrokerNode;
import io.isthmus.client.cluster.ClusterMetadata;
import io.isthmus.client.cluster.OffsetAndTime;
import io.isthmus.client.cluster.OffsetLookup;
import io.isthmus.client.cluster.TopicMetadata;
import io.isthmus.client.config.Transport;
import io.isthmus.client.network.KafkaConnection;
import io.isthmus.client.network.ReceiveBufferPool;
import io.isthmus.client.network.Response;
import io.isthmus.client.rdma.RdmaConsumerTransport;
import io.isthmus.client.rdma.RdmaPartitionReader;
import io.isthmus.client.rdma.RdmaReadBuffer;
import io.isthmus.ffi.Rdma;
import io.isthmus.ffi.RdmaAvailability;
import io.isthmus.protocol.record.BatchDecompressor;
import io.isthmus.protocol.record.RecordBatchDescriptor;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.NoOffsetForPartitionException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka-protocol consumer that hands records to the application in place, from the off-heap buffer the fetch
 * response was read into.
 *
 * <ul>
 *   <li>{@link #poll(Duration)} returns an {@link AutoCloseable} {@link ConsumerBatch}: key, value and header slices
 *       stay valid until it is closed and throw afterwards; the receive buffer is recycled only then.
 *   <li>{@link #poll(ConsumerRecordHandler, int)} calls a handler with a reused flyweight, Aeron style: the
 *       allocation-free path.
 * </ul>
 *
 * <p>Fetches are pipelined: as soon as a response is taken for the application, the next fetch (from past the data
 * just received) is sent, so it travels while the application works. Partitions come from {@link #assign} or, with a
 * {@code group.id}, from {@link #subscribe} (Kafka's classic group protocol, range assignment, heartbeats on a
 * background thread). Like {@code KafkaConsumer}, an instance is used by one thread, except {@link #wakeup()}.
 */
public final class IsthmusConsumer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(IsthmusConsumer.class);
    private static final long IDLE_PARK_NANOS = 10_000_000L;

    private final ConsumerConfig config;
    private final ReceiveBufferPool pool;
    private final BrokerConnections connections;
    private final Map<TopicPartition, PartitionState> states = new LinkedHashMap<>();
    private PartitionState[] stateArray = new PartitionState[0];
    private final ArrayDeque<FetchedData> completed = new ArrayDeque<>();
    private final ArrayDeque<FetchedData> spareData = new ArrayDeque<>();
    private final Map<Integer, InFlightFetch> fetches = new HashMap<>();
    private final AtomicBoolean wakeup = new AtomicBoolean();
    private final BatchDecompressor handlerDecompressor = new BatchDecompressor();
    private final RecordIterator handlerIterator;
    private final ConsumedRecord handlerRecord = new ConsumedRecord();
    private final ConsumerGroupMember group;
    private FetchedData handlerData;
    private boolean metadataStale = true;
    private volatile KafkaConnection receivingOn;
    private Set<String> subscription = Set.of();
    private ConsumerRebalanceListener rebalanceListener;
    private long nextAutoCommitNanos;
    private boolean closed;
    private final RdmaConsumerTransport rdma;
    private final RdmaConsumerTransport.BatchSink rdmaSink;
    private RdmaPartitionReader[] rdmaReaders = new RdmaPartitionReader[0];
    private int rdmaIdle;
    private int rdmaSliceCount;
    private PartitionState[] rdmaSliceStates = new PartitionState[8];
    private long[] rdmaSliceStarts = new long[8];
    private long[] rdmaSliceEnds = new long[8];
    private long[] rdmaSliceFetchOffsets = new long[8];
    private long[] rdmaSliceNextOffsets = new long[8];

    /** A fetch in flight to one broker: the partitions and offsets it asked for. */
    private static final class InFlightFetch {
        final List<PartitionState> partitions = new ArrayList<>();
        final List<Long> offsets = new ArrayList<>();
        final List<Integer> generations = new ArrayList<>();
        KafkaConnection connection;
        boolean byTopicId;
    }

    public IsthmusConsumer(final Map<String, ?> settings) {
        this(new ConsumerConfig(settings));
    }

    public IsthmusConsumer(final ConsumerConfig config) {
        this.config = config;
        this.pool =
                new ReceiveBufferPool(Math.min(config.fetchMaxBytes(), config.maxPartitionFetchBytes()) + 64L * 1024);
        this.connections = new BrokerConnections(
                BrokerConnections.parseBootstrap(config.bootstrapServers()),
                config.clientId(),
                pool,
                config.requestTimeout());
        this.handlerIterator = new RecordIterator(config.checkCrcs(), handlerDecompressor);
        this.group = config.groupId() == null
                ? null
                : new ConsumerGroupMember(config, BrokerConnections.parseBootstrap(config.bootstrapServers()));
        this.nextAutoCommitNanos = System.nanoTime() + config.autoCommitIntervalMs() * 1_000_000L;
        try {
            this.rdma = openRdma(config, connections);
        } catch (final RuntimeException e) {
            connections.close();
            pool.close();
            if (group != null) {
                group.close(Duration.ZERO);
            }
            throw e;
        }
        this.rdmaSink = this::onRdmaBatches;
    }

    /** The RDMA transport when {@code transport} resolves to RDMA (see {@link Transport#resolve}), else null. */
    private static RdmaConsumerTransport openRdma(final ConsumerConfig config, final BrokerConnections connections) {
        if (config.transport() == Transport.TCP) {
            return null;
        }
        final RdmaAvailability local = Rdma.availability();
        final boolean advertised = local.usable() && connections.any().advertisesRdma();
        if (config.transport().resolve(local, advertised) != Transport.RDMA) {
            return null;
        }
        return new RdmaConsumerTransport(config.rdmaSettings(), config.clientId());
    }

    /** The transport in use: TCP, or RDMA (what {@code transport=auto} resolved to). */
    public Transport transport() {
        return rdma == null ? Transport.TCP : Transport.RDMA;
    }

    /** The RDMA transport's counters (null with TCP); for tests and metrics. */
    public RdmaConsumerTransport rdmaTransport() {
        return rdma;
    }

    public ConsumerConfig config() {
        return config;
    }

    // ------------------------------------------------------------------ assignment

    /** Takes exactly these partitions (no group management). */
    public void assign(final Collection<TopicPartition> partitions) {
        ensureOpen();
        if (!subscription.isEmpty()) {
            throw new IllegalStateException("assign() after subscribe(): unsubscribe() first");
        }
        setAssignment(partitions);
    }

    private void setAssignment(final Collection<TopicPartition> partitions) {
        discardBuffered();
        final Map<TopicPartition, PartitionState> next = new LinkedHashMap<>();
        for (final TopicPartition tp : partitions) {
            final PartitionState existing = states.get(tp);
            next.put(tp, existing != null ? existing : new PartitionState(tp));
        }
        for (final PartitionState old : stateArray) {
            if (old.rdma != null && !next.containsKey(old.topicPartition)) {
                rdma.remove(old.rdma);
                old.rdma = null;
            }
        }
        states.clear();
        states.putAll(next);
        stateArray = states.values().toArray(new PartitionState[0]);
        metadataStale = true;
    }

    /** The partitions currently assigned. */
    public Set<TopicPartition> assignment() {
        return Set.copyOf(states.keySet());
    }

    /**
     * Joins the consumer group ({@code group.id}) and consumes the partitions it assigns for these topics.
     */
    public void subscribe(final Collection<String> topics) {
        subscribe(topics, null);
    }

    public void subscribe(final Collection<String> topics, final ConsumerRebalanceListener listener) {
        ensureOpen();
        if (group == null) {
            throw new IllegalStateException("subscribe() needs group.id");
        }
        if (!subscription.isEmpty() || states.isEmpty()) {
            this.subscription = Set.copyOf(topics);
            this.rebalanceListener = listener;
            group.requestRejoin();
        } else {
            throw new IllegalStateException("subscribe() after assign(): unsubscribe() first");
        }
    }

    public Set<String> subscription() {
        return subscription;
    }

    /** Leaves the group (if any) and drops every partition. */
    public void unsubscribe() {
        ensureOpen();
        if (group != null && !subscription.isEmpty()) {
            revoke();
            group.leave("unsubscribe");
        }
        subscription = Set.of();
        setAssignment(List.of());
    }

    // ------------------------------------------------------------------ positions

    public void seek(final TopicPartition partition, final long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException(
                    "seek offset must be >= 0: partition=" + partition + ", offset=" + offset);
        }
        state(partition).seek(offset);
    }

    public void seekToBeginning(final Collection<TopicPartition> partitions) {
        seekTo(partitions, OffsetLookup.EARLIEST);
    }

    public void seekToEnd(final Collection<TopicPartition> partitions) {
        seekTo(partitions, OffsetLookup.LATEST);
    }

    private void seekTo(final Collection<TopicPartition> partitions, final long which) {
        final Collection<TopicPartition> targets = partitions.isEmpty() ? states.keySet() : partitions;
        final Map<TopicPartition, Long> query = new HashMap<>();
        for (final TopicPartition tp : targets) {
            state(tp);
            query.put(tp, which);
        }
        final Map<TopicPartition, OffsetAndTime> found =
                OffsetLookup.lookup(connections, query, config.isolationLevel());
        for (final TopicPartition tp : targets) {
            final OffsetAndTime offset = found.get(tp);
            state(tp).seek(offset == null ? 0 : offset.offset());
        }
    }

    /** The offset of the next record the application will get from {@code partition}. */
    public long position(final TopicPartition partition) {
        final PartitionState state = state(partition);
        if (!state.hasPosition()) {
            resolvePositions();
        }
        return state.position;
    }

    public Map<TopicPartition, OffsetAndTime> offsetsForTimes(final Map<TopicPartition, Long> timestamps) {
        ensureOpen();
        return OffsetLookup.lookup(connections, timestamps, config.isolationLevel());
    }

    public Map<TopicPartition, Long> beginningOffsets(final Collection<TopicPartition> partitions) {
        return offsets(partitions, OffsetLookup.EARLIEST);
    }

    public Map<TopicPartition, Long> endOffsets(final Collection<TopicPartition> partitions) {
        return offsets(partitions, OffsetLookup.LATEST);
    }

    private Map<TopicPartition, Long> offsets(final Collection<TopicPartition> partitions, final long which) {
        ensureOpen();
        final Map<TopicPartition, Long> query = new HashMap<>();
        for (final TopicPartition tp : partitions) {
            query.put(tp, which);
        }
        final Map<TopicPartition, Long> result = new HashMap<>();
        OffsetLookup.lookup(connections, query, config.isolationLevel())
                .forEach((tp, o) -> result.put(tp, o == null ? -1L : o.offset()));
        return result;
    }

    public void pause(final Collection<TopicPartition> partitions) {
        for (final TopicPartition tp : partitions) {
            state(tp).paused = true;
        }
    }

    public void resume(final Collection<TopicPartition> partitions) {
        for (final TopicPartition tp : partitions) {
            state(tp).paused = false;
        }
    }

    public Set<TopicPartition> paused() {
        final Set<TopicPartition> paused = new HashSet<>();
        for (final PartitionState s : stateArray) {
            if (s.paused) {
                paused.add(s.topicPartition);
            }
        }
        return paused;
    }

    private PartitionState state(final TopicPartition partition) {
        final PartitionState state = states.get(partition);
        if (state == null) {
            throw new IllegalStateException(
                    "partition is not assigned: partition=" + partition + ", assigned=" + states.keySet());
        }
        return state;
    }

    // ------------------------------------------------------------------ commits

    /** Commits the current positions of all assigned partitions and waits for the answer. */
    public void commitSync() {
        commitSync(currentPositions());
    }

    public void commitSync(final Map<TopicPartition, Long> offsets) {
        requireGroup().commit(offsets, topicIds());
    }

    /**
     * Commits the current positions without waiting; {@code callback} (may be null) runs on the group's background
     * thread with the offsets and null, or the failure.
     */
    public void commitAsync(final OffsetCommitCallback callback) {
        requireGroup().commitAsync(currentPositions(), topicIds(), callback);
    }

    public void commitAsync() {
        commitAsync(null);
    }

    /** The committed offsets of these partitions (absent: none committed). */
    public Map<TopicPartition, Long> committed(final Set<TopicPartition> partitions) {
        return requireGroup().fetchCommitted(partitions, topicIds());
    }

    private ConsumerGroupMember requireGroup() {
        ensureOpen();
        if (group == null) {
            throw new IllegalStateException("commits need group.id");
        }
        return group;
    }

    private Map<TopicPartition, Long> currentPositions() {
        final Map<TopicPartition, Long> offsets = new HashMap<>();
        for (final PartitionState s : stateArray) {
            if (s.hasPosition()) {
                offsets.put(s.topicPartition, s.position);
            }
        }
        return offsets;
    }

    private Map<String, org.apache.kafka.common.Uuid> topicIds() {
        final Map<String, org.apache.kafka.common.Uuid> ids = new HashMap<>();
        for (final PartitionState s : stateArray) {
            ids.put(s.topic, s.topicId);
        }
        return ids;
    }

    // ------------------------------------------------------------------ poll

    /**
     * Waits up to {@code timeout} for records and returns them as a batch to close after use (an empty batch if none
     * came). The positions of the partitions in it move past its records.
     */
    public ConsumerBatch poll(final Duration timeout) {
        ensureOpen();
        final FetchedData data = pollData(timeout.toNanos());
        if (data == null) {
            return new ConsumerBatch(this, null, config.checkCrcs());
        }
        for (int i = 0; i < data.sliceCount(); i++) {
            final FetchedData.Slice slice = data.slice(i);
            if (slice.generation == slice.state.generation && slice.nextOffset > slice.state.position) {
                slice.state.position = slice.nextOffset;
            }
        }
        return new ConsumerBatch(this, data, config.checkCrcs());
    }

    /** {@link #poll(ConsumerRecordHandler, int, Duration)} without waiting: only records already here. */
    public int poll(final ConsumerRecordHandler handler, final int limit) {
        return poll(handler, limit, Duration.ZERO);
    }

    /**
     * Calls {@code handler} for up to {@code limit} records, waiting up to {@code timeout} for the first. The record is
     * a reused flyweight valid during the call; the position moves past each record handled. Allocates nothing per
     * record (and nothing per call, once fetch responses are in).
     *
     * @return the number of records handled
     */
    public int poll(final ConsumerRecordHandler handler, final int limit, final Duration timeout) {
        ensureOpen();
        int handled = 0;
        long waitNanos = timeout.toNanos();
        while (handled < limit) {
            if (handlerData == null) {
                handlerData = pollData(waitNanos);
                if (handlerData == null) {
                    break;
                }
                handlerIterator.reset(handlerData);
            }
            waitNanos = 0;
            final RecordIterator it = handlerIterator;
            if (it.next()) {
                final FetchedData.Slice slice = it.slice();
                handlerRecord.set(it.record(), slice.state, it.recordSegment());
                handler.onRecord(handlerRecord);
                final long next = it.record().offset() + 1;
                if (slice.generation == slice.state.generation && next > slice.state.position) {
                    slice.state.position = next;
                }
                handled++;
            } else {
                final FetchedData done = handlerData;
                handlerData = null;
                handlerIterator.reset(null);
                release(done);
            }
        }
        return handled;
    }

    /** The next fetched data for the application, sending the next fetch before returning it (pipelining). */
    private FetchedData pollData(final long timeoutNanos) {
        final long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            checkWakeup();
            maintainGroup();
            if (metadataStale) {
                refreshMetadata();
            }
            resolvePositions();
            if (rdma != null) {
                final FetchedData read = pollRdma();
                if (read != null) {
                    return read;
                }
                final long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return null;
                }
                rdmaIdle = Math.min(rdmaIdle + 1, 1 << 20);
                if (rdmaIdle > 256) {
                    // Nothing new: back off from slot READs (they cost the broker nothing, but cost this core).
                    LockSupport.parkNanos(this, Math.min(remaining, Math.min(IDLE_PARK_NANOS, 1_000L * rdmaIdle)));
                } else {
                    Thread.yield();
                }
                continue;
            }
            final FetchedData ready = completed.pollFirst();
            if (ready != null) {
                sendFetches();
                return ready;
            }
            sendFetches();
            final long remaining = deadline - System.nanoTime();
            final InFlightFetch fetch = firstFetch();
            if (fetch == null) {
                if (remaining <= 0) {
                    return null;
                }
                LockSupport.parkNanos(this, Math.min(remaining, IDLE_PARK_NANOS));
                continue;
            }
            receiveFetch(fetch, Math.max(0, Math.min(remaining, group == null ? remaining : 100_000_000L)));
            if (completed.isEmpty() && deadline - System.nanoTime() <= 0) {
                return null;
            }
        }
    }

    /**
     * One RDMA round: access where needed, one slot READ per broker, segment READs of the new bytes; the whole
     * batches become one {@link FetchedData} over the READ target buffer.
     */
    private FetchedData pollRdma() {
        if (rdmaReaders.length < stateArray.length) {
            rdmaReaders = new RdmaPartitionReader[stateArray.length];
        }
        int count = 0;
        for (final PartitionState s : stateArray) {
            if (!s.fetchable()) {
                continue;
            }
            RdmaPartitionReader reader = s.rdma;
            if (reader == null) {
                reader = rdma.reader(s.topic, s.partition);
                reader.attach(s);
                s.rdma = reader;
            }
            if (reader.nextOffset() != s.fetchPosition) {
                final BrokerNode leader = connections.metadata() == null
                        ? null
                        : connections.metadata().node(s.leader);
                if (leader == null) {
                    metadataStale = true;
                    continue;
                }
                reader.seek(s.fetchPosition, leader.address());
            }
            rdmaReaders[count++] = reader;
        }
        if (count == 0) {
            return null;
        }
        rdmaSliceCount = 0;
        final RdmaReadBuffer buffer = rdma.poll(rdmaReaders, count, rdmaSink);
        for (int i = 0; i < count; i++) {
            final RdmaPartitionReader reader = rdmaReaders[i];
            if (reader.outOfRange()) {
                final PartitionState state = (PartitionState) reader.attachment();
                if (config.autoOffsetReset() == ConsumerConfig.OffsetReset.NONE) {
                    throw new OffsetOutOfRangeException("RDMA consume offset out of range: partition="
                            + state.topicPartition + ", offset=" + reader.nextOffset());
                }
                state.position = -1;
                state.generation++;
                state.rdma = null;
            }
            rdmaReaders[i] = null;
        }
        if (buffer == null) {
            return null;
        }
        FetchedData data = spareData.pollFirst();
        if (data == null) {
            data = new FetchedData();
        }
        data.reset(buffer);
        for (int i = 0; i < rdmaSliceCount; i++) {
            final FetchedData.Slice slice =
                    data.addSlice(rdmaSliceStates[i], rdmaSliceStarts[i], rdmaSliceEnds[i], rdmaSliceFetchOffsets[i]);
            slice.nextOffset = rdmaSliceNextOffsets[i];
            rdmaSliceStates[i] = null;
        }
        rdmaSliceCount = 0;
        rdmaIdle = 0;
        return data;
    }

    private void onRdmaBatches(
            final RdmaPartitionReader reader,
            final long start,
            final long end,
            final long fetchOffset,
            final long nextOffset) {
        final PartitionState state = (PartitionState) reader.attachment();
        final int i = rdmaSliceCount++;
        if (i == rdmaSliceStates.length) {
            rdmaSliceStates = java.util.Arrays.copyOf(rdmaSliceStates, i * 2);
            rdmaSliceStarts = java.util.Arrays.copyOf(rdmaSliceStarts, i * 2);
            rdmaSliceEnds = java.util.Arrays.copyOf(rdmaSliceEnds, i * 2);
            rdmaSliceFetchOffsets = java.util.Arrays.copyOf(rdmaSliceFetchOffsets, i * 2);
            rdmaSliceNextOffsets = java.util.Arrays.copyOf(rdmaSliceNextOffsets, i * 2);
        }
        rdmaSliceStates[i] = state;
        rdmaSliceStarts[i] = start;
        rdmaSliceEnds[i] = end;
        rdmaSliceFetchOffsets[i] = fetchOffset;
        rdmaSliceNextOffsets[i] = nextOffset;
        state.fetchPosition = nextOffset;
    }

    private InFlightFetch firstFetch() {
        for (final InFlightFetch fetch : fetches.values()) {
            return fetch;
        }
        return null;
    }

    private void checkWakeup() {
        if (wakeup.compareAndSet(true, false)) {
            throw new WakeupException();
        }
    }

    /** Makes a blocked or the next {@code poll} throw {@link WakeupException}; callable from any thread. */
    public void wakeup() {
        wakeup.set(true);
        final KafkaConnection connection = receivingOn;
        if (connection != null) {
            connection.wakeup();
        }
    }

    private void refreshMetadata() {
        final Set<String> topics = new HashSet<>();
        for (final PartitionState s : stateArray) {
            topics.add(s.topic);
        }
        if (topics.isEmpty()) {
            metadataStale = false;
            return;
        }
        final ClusterMetadata metadata = connections.awaitTopics(topics, config.requestTimeout());
        for (final PartitionState s : stateArray) {
            final TopicMetadata t = metadata.topic(s.topic);
            s.leader = t == null ? -1 : t.leader(s.partition);
            s.topicId = t == null ? org.apache.kafka.common.Uuid.ZERO_UUID : t.topicId();
        }
        metadataStale = false;
    }

    /** Gives partitions without a position one: the committed offset, else auto.offset.reset. */
    private void resolvePositions() {
        List<TopicPartition> missing = null;
        for (final PartitionState s : stateArray) {
            if (!s.hasPosition()) {
                if (missing == null) {
                    missing = new ArrayList<>();
                }
                missing.add(s.topicPartition);
            }
        }
        if (missing == null) {
            return;
        }
        if (metadataStale) {
            refreshMetadata();
        }
        if (group != null) {
            final Map<TopicPartition, Long> committed = group.fetchCommitted(new HashSet<>(missing), topicIds());
            final List<TopicPartition> still = new ArrayList<>();
            for (final TopicPartition tp : missing) {
                final Long offset = committed.get(tp);
                if (offset != null && offset >= 0) {
                    states.get(tp).seek(offset);
                } else {
                    still.add(tp);
                }
            }
            missing = still;
        }
        if (missing.isEmpty()) {
            return;
        }
        resetPositions(missing);
    }

    private void resetPositions(final List<TopicPartition> partitions) {
        switch (config.autoOffsetReset()) {
            case EARLIEST -> seekTo(partitions, OffsetLookup.EARLIEST);
            case LATEST -> seekTo(partitions, OffsetLookup.LATEST);
            case NONE -> throw new NoOffsetForPartitionException(partitions);
        }
    }

    // ------------------------------------------------------------------ fetching

    private void sendFetches() {
        if (!completed.isEmpty()) {
            return;
        }
        Map<Integer, FetchRequestData> requests = null;
        Map<Integer, InFlightFetch> pending = null;
        for (final PartitionState s : stateArray) {
            if (!s.fetchable() || fetches.containsKey(s.leader)) {
                continue;
            }
            if (requests == null) {
                requests = new HashMap<>();
                pending = new HashMap<>();
            }
            final FetchRequestData request = requests.computeIfAbsent(s.leader, n -> new FetchRequestData()
                    .setReplicaId(-1)
                    .setMaxWaitMs(config.fetchMaxWaitMs())
                    .setMinBytes(config.fetchMinBytes())
                    .setMaxBytes(config.fetchMaxBytes())
                    .setIsolationLevel(config.isolationLevel())
                    .setSessionId(0)
                    .setSessionEpoch(-1));
            FetchRequestData.FetchTopic topic = null;
            for (final FetchRequestData.FetchTopic t : request.topics()) {
                if (t.topic().equals(s.topic)) {
                    topic = t;
                }
            }
            if (topic == null) {
                topic = new FetchRequestData.FetchTopic().setTopic(s.topic).setTopicId(s.topicId);
                request.topics().add(topic);
            }
            topic.partitions()
                    .add(new FetchRequestData.FetchPartition()
                            .setPartition(s.partition)
                            .setFetchOffset(s.fetchPosition)
                            .setCurrentLeaderEpoch(-1)
                            .setLastFetchedEpoch(-1)
                            .setLogStartOffset(-1)
                            .setPartitionMaxBytes(config.maxPartitionFetchBytes()));
            final InFlightFetch fetch = pending.computeIfAbsent(s.leader, n -> new InFlightFetch());
            fetch.partitions.add(s);
            fetch.offsets.add(s.fetchPosition);
            fetch.generations.add(s.generation);
        }
        if (requests == null) {
            return;
        }
        for (final Map.Entry<Integer, FetchRequestData> e : requests.entrySet()) {
            final InFlightFetch fetch = pending.get(e.getKey());
            try {
                final KafkaConnection connection = connections.node(e.getKey());
                fetch.connection = connection;
                fetch.byTopicId = connection.version(ApiKeys.FETCH) >= 13;
                connection.send(ApiKeys.FETCH, e.getValue());
                fetches.put(e.getKey(), fetch);
            } catch (final NetworkException ex) {
                LOG.debug("fetch send failed: node={}", e.getKey(), ex);
                connections.disconnect(e.getKey());
                metadataStale = true;
            }
        }
    }

    private void receiveFetch(final InFlightFetch fetch, final long waitNanos) {
        final Response response;
        receivingOn = fetch.connection;
        try {
            if (wakeup.get()) {
                return;
            }
            response = fetch.connection.receive(waitNanos);
        } catch (final NetworkException e) {
            LOG.debug("fetch failed: connection={}", fetch.connection, e);
            removeFetch(fetch);
            metadataStale = true;
            return;
        } finally {
            receivingOn = null;
        }
        if (response == null) {
            return;
        }
        removeFetch(fetch);
        FetchedData data = spareData.pollFirst();
        if (data == null) {
            data = new FetchedData();
        }
        data.reset(response.buffer());
        try {
            parseFetch(fetch, (FetchResponseData) response.parse(), data);
        } catch (final RuntimeException e) {
            release(data);
            throw e;
        }
        if (data.sliceCount() == 0) {
            release(data);
        } else {
            completed.addLast(data);
        }
    }

    private void removeFetch(final InFlightFetch fetch) {
        fetches.values().remove(fetch);
    }

    private void parseFetch(final InFlightFetch fetch, final FetchResponseData response, final FetchedData data) {
        final Errors topLevel = Errors.forCode(response.errorCode());
        if (topLevel != Errors.NONE) {
            throw topLevel.exception("fetch failed: error=" + topLevel + ", connection=" + fetch.connection);
        }
        final MemorySegment buffer = data.buffer.segment();
        for (final FetchResponseData.FetchableTopicResponse topic : response.responses()) {
            for (final FetchResponseData.PartitionData p : topic.partitions()) {
                final int index = find(fetch, topic, p.partitionIndex());
                if (index < 0) {
                    continue;
                }
                final PartitionState state = fetch.partitions.get(index);
                final long fetchOffset = fetch.offsets.get(index);
                if (state.generation != fetch.generations.get(index) || state.fetchPosition != fetchOffset) {
                    continue;
                }
                final Errors error = Errors.forCode(p.errorCode());
                if (error == Errors.OFFSET_OUT_OF_RANGE) {
                    if (config.autoOffsetReset() == ConsumerConfig.OffsetReset.NONE) {
                        throw new OffsetOutOfRangeException("fetch offset out of range: partition="
                                + state.topicPartition + ", offset=" + fetchOffset);
                    }
                    state.position = -1;
                    state.generation++;
                    continue;
                }
                if (error != Errors.NONE) {
                    LOG.debug("fetch partition error: partition={}, error={}", state.topicPartition, error);
                    metadataStale = true;
                    continue;
                }
                state.highWatermark = p.highWatermark();
                state.logStartOffset = p.logStartOffset();
                final BaseRecords records = p.records();
                if (!(records instanceof MemoryRecords memoryRecords) || memoryRecords.sizeInBytes() == 0) {
                    continue;
                }
                final java.nio.ByteBuffer bytes = memoryRecords.buffer();
                final long start = MemorySegment.ofBuffer(bytes).address() - buffer.address();
                final long end = start + bytes.remaining();
                if (start < 0 || end > data.buffer.frameLength()) {
                    throw new IllegalStateException("fetched records outside the receive buffer: start=" + start
                            + ", end=" + end + ", frameLength=" + data.buffer.frameLength());
                }
                long position = start;
                long nextOffset = fetchOffset;
                final long readableEnd =
                        io.isthmus.protocol.record.RecordBatchValidator.readableBatchEnd(buffer, start, end);
                while (position < readableEnd) {
                    nextOffset = Math.max(nextOffset, RecordBatchDescriptor.lastOffset(buffer, position) + 1);
                    position += RecordBatchDescriptor.batchSize(buffer, position);
                }
                if (readableEnd == start) {
                    continue;
                }
                final FetchedData.Slice slice = data.addSlice(state, start, readableEnd, fetchOffset);
                slice.nextOffset = nextOffset;
                state.fetchPosition = nextOffset;
            }
        }
    }

    private static int find(
            final InFlightFetch fetch, final FetchResponseData.FetchableTopicResponse topic, final int partition) {
        final List<PartitionState> partitions = fetch.partitions;
        for (int i = 0; i < partitions.size(); i++) {
            final PartitionState s = partitions.get(i);
            if (s.partition != partition) {
                continue;
            }
            if (fetch.byTopicId ? s.topicId.equals(topic.topicId()) : s.topic.equals(topic.topic())) {
                return i;
            }
        }
        return -1;
    }

    /** Takes fetched data back from the application (a closed batch) or from the callback path. */
    void release(final FetchedData data) {
        data.release();
        if (!closed) {
            spareData.addFirst(data);
        } else {
            data.close();
        }
    }

    private void discardBuffered() {
        FetchedData data;
        while ((data = completed.pollFirst()) != null) {
            release(data);
        }
        if (handlerData != null) {
            final FetchedData done = handlerData;
            handlerData = null;
            handlerIterator.reset(null);
            release(done);
        }
    }

    // ------------------------------------------------------------------ groups

    private void maintainGroup() {
        if (group == null || subscription.isEmpty()) {
            return;
        }
        if (group.needsRejoin()) {
            revoke();
            final List<TopicPartition> assigned = group.join(subscription, connections);
            setAssignment(assigned);
            if (rebalanceListener != null) {
                rebalanceListener.onPartitionsAssigned(assigned);
            }
        }
        if (config.autoCommit() && System.nanoTime() - nextAutoCommitNanos >= 0) {
            nextAutoCommitNanos = System.nanoTime() + config.autoCommitIntervalMs() * 1_000_000L;
            group.commitAsync(currentPositions(), topicIds(), null);
        }
    }

    private void revoke() {
        final List<TopicPartition> owned = new ArrayList<>(states.keySet());
        if (owned.isEmpty()) {
            return;
        }
        if (config.autoCommit() && group.isActive()) {
            try {
                group.commit(currentPositions(), topicIds());
            } catch (final RuntimeException e) {
                LOG.warn("commit before rebalance failed: group={}", config.groupId(), e);
            }
        }
        if (rebalanceListener != null) {
            rebalanceListener.onPartitionsRevoked(owned);
        }
    }

    // ------------------------------------------------------------------ close

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("consumer is closed: clientId=" + config.clientId());
        }
    }

    /** Commits (with auto commit), leaves the group, closes connections and frees the buffers. */
    public void close(final Duration timeout) {
        if (closed) {
            return;
        }
        try {
            if (group != null) {
                if (config.autoCommit() && !states.isEmpty() && group.isActive()) {
                    try {
                        group.commit(currentPositions(), topicIds());
                    } catch (final RuntimeException e) {
                        LOG.warn("final commit failed: group={}", config.groupId(), e);
                    }
                }
                group.close(timeout);
            }
        } finally {
            closed = true;
            discardBuffered();
            FetchedData data;
            while ((data = spareData.pollFirst()) != null) {
                data.close();
            }
            if (rdma != null) {
                rdma.close();
            }
            connections.close();
            handlerDecompressor.close();
            pool.close();
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(30));
    }
}
