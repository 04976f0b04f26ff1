package io.isthmus.client.consumer;

import io.isthmus.client.cluster.BrokerConnections;
import io.isthmus.client.cluster.OffsetAndTime;
import io.isthmus.client.cluster.OffsetLookup;
import io.isthmus.client.config.Transport;
import io.isthmus.client.consumer.internals.ConsumerMetadata;
import io.isthmus.client.consumer.internals.FetchedData;
import io.isthmus.client.consumer.internals.FetchedDataPool;
import io.isthmus.client.consumer.internals.Fetcher;
import io.isthmus.client.consumer.internals.PositionResolver;
import io.isthmus.client.consumer.internals.RdmaFetcher;
import io.isthmus.client.consumer.internals.RecordIterator;
import io.isthmus.client.consumer.internals.ShmFetcher;
import io.isthmus.client.consumer.internals.SubscriptionState;
import io.isthmus.client.consumer.internals.SubscriptionState.PartitionState;
import io.isthmus.client.consumer.internals.TcpFetcher;
import io.isthmus.client.consumer.internals.WakeupTrigger;
import io.isthmus.client.network.KafkaConnection;
import io.isthmus.client.network.ReceiveBufferPool;
import io.isthmus.client.rdma.RdmaConsumerTransport;
import io.isthmus.client.shm.ShmAttachable;
import io.isthmus.client.shm.ShmConsumerTransport;
import io.isthmus.ffi.Rdma;
import io.isthmus.ffi.RdmaAvailability;
import io.isthmus.protocol.record.BatchDecompressor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnstableOffsetCommitException;
import org.apache.kafka.common.errors.WakeupException;
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
 *
 * <p>A facade, as {@code KafkaConsumer} is: {@link SubscriptionState} owns assignment and positions, a {@link
 * Fetcher} (TCP or RDMA) brings records in, {@link ConsumerGroupMember} does group work, {@link RecordIterator} walks
 * the records, and this class wires them together.
 */
public final class IsthmusConsumer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(IsthmusConsumer.class);
    /** With a group, the longest a poll blocks on the network at once, so rebalances are noticed in time. */
    private static final long GROUP_MAX_BLOCK_NANOS = 100_000_000L;
    /** How long to wait before asking again for committed offsets a transaction has pending. */
    private static final long UNSTABLE_OFFSETS_BACKOFF_MS = 20;

    private final ConsumerConfig config;
    private final ReceiveBufferPool receiveBuffers;
    private final BrokerConnections connections;
    private final ConsumerGroupMember group;
    private final SubscriptionState subscriptions = new SubscriptionState();
    private final ConsumerMetadata metadata;
    private final PositionResolver positions;
    private final WakeupTrigger wakeup = new WakeupTrigger();
    private final FetchedDataPool fetchedData = new FetchedDataPool();
    private final Fetcher fetcher;
    private final BatchDecompressor handlerDecompressor = new BatchDecompressor();
    private final RecordIterator handlerIterator;
    private final ConsumedRecord handlerRecord = new ConsumedRecord();
    private long nextAutoCommitNanos;
    private boolean closed;

    public IsthmusConsumer(final Map<String, ?> settings) {
        this(new ConsumerConfig(settings));
    }

    public IsthmusConsumer(final ConsumerConfig config) {
        this.config = config;
        this.receiveBuffers =
                new ReceiveBufferPool(Math.min(config.fetchMaxBytes(), config.maxPartitionFetchBytes()) + 64L * 1024);
        this.connections = new BrokerConnections(
                BrokerConnections.parseBootstrap(config.bootstrapServers()),
                config.clientId(),
                receiveBuffers,
                config.requestTimeout(),
                config.connectionSetupTimeout(),
                config.security(),
                config.socketBuffers());
        this.handlerIterator = new RecordIterator(subscriptions, config.checkCrcs(), handlerDecompressor);
        this.group = config.groupId() == null
                ? null
                : new ConsumerGroupMember(config, BrokerConnections.parseBootstrap(config.bootstrapServers()));
        this.metadata = new ConsumerMetadata(connections, config.requestTimeout());
        this.positions = new PositionResolver(
                subscriptions,
                metadata,
                connections,
                config,
                group == null ? null : partitions -> group.fetchCommitted(partitions, subscriptions.topicIds()));
        this.nextAutoCommitNanos = System.nanoTime() + config.autoCommitIntervalMs() * 1_000_000L;
        try {
            this.fetcher = openFetcher();
        } catch (final RuntimeException e) {
            connections.close();
            receiveBuffers.close();
            if (group != null) {
                group.close(Duration.ZERO);
            }
            throw e;
        }
    }

    /**
     * The fetcher {@code transport} resolves to: shared memory ({@code shm}, or {@code auto} when the broker advertises
     * it and this process can attach to it: same host, allowed to read its directory), then RDMA (see {@link
     * Transport#resolve}), else TCP. With {@code read_committed} the RDMA readers stop at the last stable offset their
     * metadata slot carries and copy the partition's aborted transactions, which the fetcher hands to the record
     * iterator as a fetch response's list; the shared-memory readers do the same from the broker's array files.
     */
    private Fetcher openFetcher() {
        final Transport asked = config.transport();
        if (asked == Transport.SHM || asked == Transport.AUTO) {
            final Fetcher shm = openShmFetcher(asked == Transport.SHM);
            if (shm != null) {
                return shm;
            }
        }
        if (asked == Transport.RDMA || asked == Transport.AUTO) {
            final RdmaAvailability local = Rdma.availability();
            final boolean advertised = local.usable() && connections.any().advertisesRdma();
            if (asked.resolve(local, advertised) == Transport.RDMA) {
                return new RdmaFetcher(
                        new RdmaConsumerTransport(config.rdmaSettings(), config.clientId(), config.readCommitted()),
                        config,
                        subscriptions,
                        metadata,
                        fetchedData);
            }
        }
        return new TcpFetcher(
                config,
                connections,
                subscriptions,
                metadata,
                fetchedData,
                wakeup,
                group == null ? Long.MAX_VALUE : GROUP_MAX_BLOCK_NANOS);
    }

    /**
     * The shared-memory fetcher, attached to the bootstrap broker, or null where {@code auto} passes shared memory by
     * (the broker does not advertise it, or this process cannot attach: logged with the reason).
     *
     * @throws UnsupportedOperationException for {@code transport=shm} where it cannot work, with the reason
     */
    private Fetcher openShmFetcher(final boolean required) {
        final KafkaConnection broker = connections.any();
        if (!broker.advertisesShm()) {
            if (required) {
                throw new UnsupportedOperationException(Transport.SHM_UNAVAILABLE
                        + "the broker does not advertise the isthmus shared-memory control requests (shm.enabled=false,"
                        + " or its directory could not be prepared); use --transport tcp, rdma or auto");
            }
            return null;
        }
        final ShmConsumerTransport transport = new ShmConsumerTransport(
                config.clientId(),
                config.requestTimeout().toMillis(),
                config.security(),
                config.fetchMaxBytes(),
                config.readCommitted());
        return ShmAttachable.attachOrPassBy(transport, broker.address(), required) == null
                ? null
                : new ShmFetcher(transport, config, subscriptions, metadata, fetchedData);
    }

    /** The shared-memory transport's counters (null unless shared memory is in use); for tests and metrics. */
    public ShmConsumerTransport shmTransport() {
        return fetcher instanceof ShmFetcher shm ? shm.shmTransport() : null;
    }

    /** The transport in use: TCP, RDMA or SHM (what {@code transport=auto} resolved to). */
    public Transport transport() {
        return fetcher.transport();
    }

    /** The RDMA transport's counters (null with TCP); for tests and metrics. */
    public RdmaConsumerTransport rdmaTransport() {
        return fetcher instanceof RdmaFetcher rdma ? rdma.rdmaTransport() : null;
    }

    public ConsumerConfig config() {
        return config;
    }

    // ------------------------------------------------------------------ assignment

    /** Takes exactly these partitions (no group management). */
    public void assign(final Collection<TopicPartition> partitions) {
        ensureOpen();
        assigned(subscriptions.assignFromUser(partitions));
    }

    /**
     * After an assignment change: data fetched but not handed out is dropped (SubscriptionState has rewound the fetch
     * positions), the fetcher lets go of removed partitions, and leaders are looked up afresh.
     */
    private void assigned(final List<PartitionState> removed) {
        discardBuffered();
        for (final PartitionState partition : removed) {
            fetcher.unassigned(partition);
        }
        metadata.requestUpdate();
    }

    /** The partitions currently assigned. */
    public Set<TopicPartition> assignment() {
        return subscriptions.assignedPartitions();
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
        subscriptions.subscribe(topics, listener);
        group.requestRejoin();
    }

    public Set<String> subscription() {
        return subscriptions.subscription();
    }

    /** Leaves the group (if any) and drops every partition. */
    public void unsubscribe() {
        ensureOpen();
        if (group != null && subscriptions.hasSubscription()) {
            revoke();
            group.leave("unsubscribe");
        }
        assigned(subscriptions.unsubscribe());
    }

    // ------------------------------------------------------------------ positions

    public void seek(final TopicPartition partition, final long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException(
                    "seek offset must be >= 0: partition=" + partition + ", offset=" + offset);
        }
        subscriptions.seek(partition, offset);
    }

    public void seekToBeginning(final Collection<TopicPartition> partitions) {
        positions.seekTo(partitions, OffsetLookup.EARLIEST);
    }

    public void seekToEnd(final Collection<TopicPartition> partitions) {
        positions.seekTo(partitions, OffsetLookup.LATEST);
    }

    /**
     * The offset of the next record the application will get from {@code partition}; looked up first if it has none,
     * waiting up to {@code request.timeout.ms} while the group's offset for it is pending in a transaction.
     *
     * @throws org.apache.kafka.common.errors.TimeoutException if the position is still unknown then
     */
    public long position(final TopicPartition partition) {
        final PartitionState state = subscriptions.partition(partition);
        final long deadline = System.nanoTime() + config.requestTimeout().toNanos();
        while (!state.hasPosition()) {
            positions.resolveMissing();
            if (state.hasPosition()) {
                break;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new TimeoutException("no position for " + partition + " within request.timeout.ms="
                        + config.requestTimeout().toMillis() + ": the group's committed offset is pending in an"
                        + " open transaction");
            }
            pause(UNSTABLE_OFFSETS_BACKOFF_MS);
        }
        return state.position();
    }

    private static void pause(final long millis) {
        try {
            Thread.sleep(millis);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptException(e);
        }
    }

    /**
     * The consumer's lag on an assigned partition, as Kafka's {@code KafkaConsumer.currentLag}: records between its
     * position and the high watermark the last fetch (TCP) or metadata-slot READ (RDMA) reported, with no request to
     * the broker; empty until both are known.
     *
     * @throws IllegalStateException if the partition is not assigned
     */
    public OptionalLong currentLag(final TopicPartition partition) {
        ensureOpen();
        final long lag = subscriptions.partition(partition).lag();
        return lag < 0 ? OptionalLong.empty() : OptionalLong.of(lag);
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
            subscriptions.pause(tp);
        }
    }

    public void resume(final Collection<TopicPartition> partitions) {
        for (final TopicPartition tp : partitions) {
            subscriptions.resume(tp);
        }
    }

    public Set<TopicPartition> paused() {
        return subscriptions.paused();
    }

    // ------------------------------------------------------------------ commits

    /**
     * The group this consumer is a member of, with its generation and member id, for a transactional producer's {@link
     * io.isthmus.client.producer.IsthmusProducer#sendOffsetsToTransaction(Map, ConsumerGroupMetadata)} (Kafka's
     * {@code KafkaConsumer.groupMetadata()}).
     *
     * @throws IllegalStateException without {@code group.id}
     */
    public ConsumerGroupMetadata groupMetadata() {
        return requireGroup().groupMetadata();
    }

    /** Commits the current positions of all assigned partitions and waits for the answer. */
    public void commitSync() {
        commitSync(subscriptions.consumedPositions());
    }

    public void commitSync(final Map<TopicPartition, Long> offsets) {
        requireGroup().commit(offsets, subscriptions.topicIds());
    }

    /**
     * Commits the current positions without waiting; {@code callback} (may be null) runs on the group's background
     * thread with the offsets and null, or the failure.
     */
    public void commitAsync(final OffsetCommitCallback callback) {
        requireGroup().commitAsync(subscriptions.consumedPositions(), subscriptions.topicIds(), callback);
    }

    public void commitAsync() {
        commitAsync(null);
    }

    /**
     * Commits these offsets (the next offset to read, per partition) without waiting; they need not be current
     * positions, nor assigned (a stream engine commits what its last checkpoint holds). {@code callback} (may be null)
     * runs on the group's background thread.
     */
    public void commitAsync(final Map<TopicPartition, Long> offsets, final OffsetCommitCallback callback) {
        requireGroup().commitAsync(Map.copyOf(offsets), subscriptions.topicIds(), callback);
    }

    /**
     * The committed offsets of these partitions (absent: none committed). While a transaction's offsets for them are
     * pending it asks again, up to {@code request.timeout.ms}, as Kafka's consumer does.
     *
     * @throws org.apache.kafka.common.errors.TimeoutException if they are still pending then
     */
    public Map<TopicPartition, Long> committed(final Set<TopicPartition> partitions) {
        final ConsumerGroupMember member = requireGroup();
        final long deadline = System.nanoTime() + config.requestTimeout().toNanos();
        while (true) {
            try {
                return member.fetchCommitted(partitions, subscriptions.topicIds());
            } catch (final UnstableOffsetCommitException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw new TimeoutException(
                            "committed offsets still pending in an open transaction after request.timeout.ms="
                                    + config.requestTimeout().toMillis(),
                            e);
                }
                pause(UNSTABLE_OFFSETS_BACKOFF_MS);
            }
        }
    }

    private ConsumerGroupMember requireGroup() {
        ensureOpen();
        if (group == null) {
            throw new IllegalStateException("commits need group.id");
        }
        return group;
    }

    // ------------------------------------------------------------------ poll

    /**
     * Waits up to {@code timeout} for records and returns them as a batch to close after use (an empty batch if none
     * came). The positions of the partitions in it move past its records. The batch may be handed to another thread
     * (see {@link ConsumerBatch}).
     */
    public ConsumerBatch poll(final Duration timeout) {
        ensureOpen();
        final FetchedData data = pollData(timeout.toNanos());
        if (data == null) {
            return new ConsumerBatch(null, null);
        }
        data.retainCurrentSlices();
        if (data.isEmpty()) {
            data.release();
            return new ConsumerBatch(null, null);
        }
        subscriptions.advancePositions(data);
        return new ConsumerBatch(data, new RecordIterator(null, config.checkCrcs(), null));
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
        final RecordIterator it = handlerIterator;
        int handled = 0;
        long waitNanos = timeout.toNanos();
        while (handled < limit) {
            if (it.data() == null) {
                final FetchedData data = pollData(waitNanos);
                if (data == null) {
                    break;
                }
                it.reset(data);
            }
            waitNanos = 0;
            if (it.next()) {
                handlerRecord.set(it.record(), it.partition(), it.recordSegment());
                handler.onRecord(handlerRecord);
                it.consumed();
                handled++;
            } else {
                it.releaseData();
            }
        }
        return handled;
    }

    /**
     * The next fetched data for the application. Each round first takes care of what must happen between fetches
     * (wakeup, group, metadata, positions without an offset), then asks the fetcher, then lets it wait.
     */
    private FetchedData pollData(final long timeoutNanos) {
        final long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            throwIfInterrupted();
            wakeup.maybeTriggerWakeup();
            fetchedData.takeBackReleasedElsewhere();
            maintainGroup();
            metadata.updateIfRequested(subscriptions);
            positions.resolveMissing();
            final FetchedData data = fetcher.poll();
            if (data != null) {
                return data;
            }
            if (!fetcher.awaitData(deadline)) {
                return null;
            }
        }
    }

    /**
     * As KafkaConsumer: a poll on an interrupted thread throws {@link InterruptException}, the flag left set. Why not
     * go on: every wait of the fetchers ends at once while the flag is set, so such a poll would return nothing, as
     * fast as it is called, for as long as the application keeps calling.
     */
    private static void throwIfInterrupted() {
        if (Thread.interrupted()) {
            throw new InterruptException("the polling thread was interrupted");
        }
    }

    /** Makes a blocked or the next {@code poll} throw {@link WakeupException}; callable from any thread. */
    public void wakeup() {
        wakeup.wakeup();
    }

    /** Drops data fetched but not yet handed out, and what the callback path had not finished. */
    private void discardBuffered() {
        fetcher.discardBuffered();
        handlerIterator.releaseData();
    }

    // ------------------------------------------------------------------ groups

    private void maintainGroup() {
        if (group == null || !subscriptions.hasSubscription()) {
            return;
        }
        group.checkPartitionCounts(connections);
        if (group.needsRejoin()) {
            revoke();
            final List<TopicPartition> assigned = group.join(subscriptions.subscription(), connections);
            assigned(subscriptions.assignFromGroup(assigned));
            final ConsumerRebalanceListener listener = subscriptions.rebalanceListener();
            if (listener != null) {
                listener.onPartitionsAssigned(assigned);
            }
        }
        if (config.autoCommit() && System.nanoTime() - nextAutoCommitNanos >= 0) {
            nextAutoCommitNanos = System.nanoTime() + config.autoCommitIntervalMs() * 1_000_000L;
            group.commitAsync(subscriptions.consumedPositions(), subscriptions.topicIds(), null);
        }
    }

    private void revoke() {
        final List<TopicPartition> owned = new ArrayList<>();
        for (final PartitionState partition : subscriptions.partitions()) {
            owned.add(partition.topicPartition());
        }
        if (owned.isEmpty()) {
            return;
        }
        if (config.autoCommit() && group.isActive()) {
            try {
                group.commit(subscriptions.consumedPositions(), subscriptions.topicIds());
            } catch (final RuntimeException e) {
                LOG.warn("commit before rebalance failed: group={}", config.groupId(), e);
            }
        }
        final ConsumerRebalanceListener listener = subscriptions.rebalanceListener();
        if (listener != null) {
            listener.onPartitionsRevoked(owned);
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
                if (config.autoCommit() && subscriptions.partitions().length > 0 && group.isActive()) {
                    try {
                        group.commit(subscriptions.consumedPositions(), subscriptions.topicIds());
                    } catch (final RuntimeException e) {
                        LOG.warn("final commit failed: group={}", config.groupId(), e);
                    }
                }
                group.close(timeout);
            }
        } finally {
            closed = true;
            discardBuffered();
            fetchedData.close();
            fetcher.close();
            connections.close();
            handlerDecompressor.close();
            receiveBuffers.close();
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(30));
    }
}
