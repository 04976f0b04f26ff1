package io.isthmus.client.consumer.internals;

import io.isthmus.client.cluster.BrokerConnections;
import io.isthmus.client.config.Transport;
import io.isthmus.client.consumer.ConsumerConfig;
import io.isthmus.client.consumer.internals.SubscriptionState.PartitionState;
import io.isthmus.client.network.FetchResponseReader;
import io.isthmus.client.network.KafkaConnection;
import io.isthmus.client.network.ReceiveBuffer;
import io.isthmus.client.network.Response;
import io.isthmus.client.record.ReadableBatches;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetches over the Kafka protocol: one Fetch request in flight per leader, its response read into a pooled off-heap
 * receive buffer and read there in place ({@link FetchResponseReader}). Each partition's records become a {@link
 * FetchedSlice} after one walk over their batch headers ({@link ReadableBatches}), which also gives the offset the
 * next fetch starts from, so the next request goes out as soon as a response is taken for the application.
 *
 * <p>With {@code read_committed} a slice also takes the partition's aborted transactions from the response, for the
 * record iterator to skip their batches; the fetch position moves past everything fetched, markers and aborted
 * batches included.
 *
 * <p>A response is dropped partition by partition if the partition was seeked, reset or unassigned since the request,
 * or fetched further in between ({@link PartitionState#continuesAt}).
 */
public final class TcpFetcher implements Fetcher {
    private static final Logger LOG = LoggerFactory.getLogger(TcpFetcher.class);
    private static final long IDLE_PARK_NANOS = 10_000_000L;

    private final ConsumerConfig config;
    private final BrokerConnections connections;
    private final SubscriptionState subscriptions;
    private final ConsumerMetadata metadata;
    private final FetchedDataPool pool;
    private final WakeupTrigger wakeup;
    private final long maxBlockNanos;
    private final ArrayDeque<FetchedData> completed = new ArrayDeque<>();
    /**
     * The fetch in flight to each leader, oldest sent first: waiting on the oldest, and sending the next one to a
     * leader only after its last came back, serves every leader in turn (waiting always on the lowest broker id left
     * the others' answers unread for as long as that broker kept answering).
     */
    private final Map<Integer, InFlightFetch> inFlight = new LinkedHashMap<>();

    private final FetchResponseReader reader = new FetchResponseReader();
    private final ReadableBatches batches = new ReadableBatches();

    /** A fetch in flight to one broker: the partitions it asked for, from which offsets, under which generations. */
    private static final class InFlightFetch {
        PartitionState[] partitions = new PartitionState[4];
        long[] offsets = new long[4];
        int[] generations = new int[4];
        int count;
        KafkaConnection connection;

        void add(final PartitionState partition) {
            if (count == partitions.length) {
                partitions = Arrays.copyOf(partitions, count * 2);
                offsets = Arrays.copyOf(offsets, count * 2);
                generations = Arrays.copyOf(generations, count * 2);
            }
            partitions[count] = partition;
            offsets[count] = partition.fetchPosition();
            generations[count] = partition.generation();
            count++;
        }

        /** The index of the partition the reader is at, or -1 if this fetch did not ask for it. */
        int indexOf(final FetchResponseReader reader) {
            final int partition = reader.partitionIndex();
            for (int i = 0; i < count; i++) {
                final PartitionState state = partitions[i];
                if (state.partition() == partition
                        && (reader.hasTopicIds()
                                ? reader.topicIdEquals(state.topicId())
                                : reader.topicNameEquals(state.topic()))) {
                    return i;
                }
            }
            return -1;
        }
    }

    /**
     * @param maxBlockNanos the longest one receive may block: short with a group, so the poll loop keeps up with
     *     rebalances
     */
    public TcpFetcher(
            final ConsumerConfig config,
            final BrokerConnections connections,
            final SubscriptionState subscriptions,
            final ConsumerMetadata metadata,
            final FetchedDataPool pool,
            final WakeupTrigger wakeup,
            final long maxBlockNanos) {
        this.config = config;
        this.connections = connections;
        this.subscriptions = subscriptions;
        this.metadata = metadata;
        this.pool = pool;
        this.wakeup = wakeup;
        this.maxBlockNanos = maxBlockNanos;
    }

    @Override
    public Transport transport() {
        return Transport.TCP;
    }

    @Override
    public FetchedData poll() {
        final FetchedData ready = completed.pollFirst();
        sendFetches();
        return ready;
    }

    @Override
    public boolean awaitData(final long deadlineNanos) {
        final long remaining = deadlineNanos - System.nanoTime();
        final InFlightFetch fetch = firstInFlight();
        if (fetch == null) {
            if (remaining <= 0) {
                return false;
            }
            LockSupport.parkNanos(this, Math.min(remaining, IDLE_PARK_NANOS));
            return true;
        }
        // Answers that have come from any leader first, then the oldest fetch still out.
        for (final InFlightFetch other : List.copyOf(inFlight.values())) {
            if (other != fetch) {
                receive(other, 0);
            }
        }
        if (!completed.isEmpty()) {
            return true;
        }
        receive(fetch, Math.max(0, Math.min(remaining, maxBlockNanos)));
        return !completed.isEmpty() || deadlineNanos - System.nanoTime() > 0;
    }

    @Override
    public void discardBuffered() {
        FetchedData data;
        while ((data = completed.pollFirst()) != null) {
            data.release();
        }
    }

    @Override
    public void unassigned(final PartitionState partition) {
        // Responses still in flight for it are dropped when they come: it no longer continuesAt anything.
    }

    @Override
    public void close() {
        discardBuffered();
    }

    private InFlightFetch firstInFlight() {
        for (final InFlightFetch fetch : inFlight.values()) {
            return fetch;
        }
        return null;
    }

    // ------------------------------------------------------------------ requests

    /** Sends a fetch to every leader with fetchable partitions and none in flight, unless data waits already. */
    private void sendFetches() {
        if (!completed.isEmpty()) {
            return;
        }
        Map<Integer, FetchRequestData> requests = null;
        Map<Integer, InFlightFetch> pending = null;
        for (final PartitionState state : subscriptions.partitions()) {
            if (!state.fetchable() || inFlight.containsKey(state.leader())) {
                continue;
            }
            if (requests == null) {
                requests = new HashMap<>();
                pending = new HashMap<>();
            }
            final FetchRequestData request = requests.computeIfAbsent(state.leader(), n -> new FetchRequestData()
                    .setReplicaId(-1)
                    .setMaxWaitMs(config.fetchMaxWaitMs())
                    .setMinBytes(config.fetchMinBytes())
                    .setMaxBytes(config.fetchMaxBytes())
                    .setIsolationLevel(config.isolationLevel())
                    .setSessionId(0)
                    .setSessionEpoch(-1));
            topic(request, state)
                    .partitions()
                    .add(new FetchRequestData.FetchPartition()
                            .setPartition(state.partition())
                            .setFetchOffset(state.fetchPosition())
                            .setCurrentLeaderEpoch(-1)
                            .setLastFetchedEpoch(-1)
                            .setLogStartOffset(-1)
                            .setPartitionMaxBytes(config.maxPartitionFetchBytes()));
            pending.computeIfAbsent(state.leader(), n -> new InFlightFetch()).add(state);
        }
        if (requests == null) {
            return;
        }
        for (final Map.Entry<Integer, FetchRequestData> e : requests.entrySet()) {
            final InFlightFetch fetch = pending.get(e.getKey());
            try {
                // A leader whose connection is still being opened is left out of this round: a broker that is paused
                // (it accepts the connection and answers nothing) must not hold up the fetches from the others.
                final KafkaConnection connection = connections.nodeIfOpen(e.getKey());
                if (connection == null) {
                    continue;
                }
                fetch.connection = connection;
                connection.send(ApiKeys.FETCH, e.getValue());
                inFlight.put(e.getKey(), fetch);
            } catch (final NetworkException ex) {
                LOG.debug("fetch send failed: node={}", e.getKey(), ex);
                connections.disconnect(e.getKey());
                metadata.requestUpdate();
            }
        }
    }

    private static FetchRequestData.FetchTopic topic(final FetchRequestData request, final PartitionState state) {
        FetchRequestData.FetchTopic topic = null;
        for (final FetchRequestData.FetchTopic t : request.topics()) {
            if (t.topic().equals(state.topic())) {
                topic = t;
            }
        }
        if (topic == null) {
            topic = new FetchRequestData.FetchTopic().setTopic(state.topic()).setTopicId(state.topicId());
            request.topics().add(topic);
        }
        return topic;
    }

    // ------------------------------------------------------------------ responses

    private void receive(final InFlightFetch fetch, final long waitNanos) {
        final Response response;
        wakeup.blockingOn(fetch.connection);
        try {
            if (wakeup.isPending()) {
                return;
            }
            response = fetch.connection.receive(waitNanos);
        } catch (final NetworkException e) {
            LOG.debug("fetch failed: connection={}", fetch.connection, e);
            inFlight.values().remove(fetch);
            metadata.requestUpdate();
            return;
        } finally {
            wakeup.unblocked();
        }
        if (response == null) {
            return;
        }
        inFlight.values().remove(fetch);
        final FetchedData data = pool.acquire();
        data.lease(response.buffer());
        try {
            takeResponse(fetch, response, data);
        } catch (final RuntimeException e) {
            data.release();
            throw e;
        }
        if (data.isEmpty()) {
            data.release();
        } else {
            completed.addLast(data);
        }
    }

    /**
     * Reads the response in place and adds a slice per partition with whole batches: the one walk over their headers
     * happens here, and the slice keeps what it found.
     */
    private void takeResponse(final InFlightFetch fetch, final Response response, final FetchedData data) {
        final ReceiveBuffer buffer = response.buffer();
        final FetchResponseReader body =
                reader.wrap(buffer.segment(), response.bodyOffset(), buffer.frameLength(), response.version());
        final Errors topLevel = Errors.forCode(body.errorCode());
        if (topLevel != Errors.NONE) {
            throw topLevel.exception("fetch failed: error=" + topLevel + ", connection=" + fetch.connection);
        }
        while (body.nextTopic()) {
            while (body.nextPartition()) {
                final int index = fetch.indexOf(body);
                if (index < 0) {
                    continue;
                }
                final PartitionState state = fetch.partitions[index];
                final long fetchOffset = fetch.offsets[index];
                if (!state.continuesAt(fetch.generations[index], fetchOffset)) {
                    continue;
                }
                final Errors error = Errors.forCode(body.partitionErrorCode());
                if (error == Errors.OFFSET_OUT_OF_RANGE) {
                    if (config.autoOffsetReset() == ConsumerConfig.OffsetReset.NONE) {
                        throw new OffsetOutOfRangeException("fetch offset out of range: partition="
                                + state.topicPartition() + ", offset=" + fetchOffset);
                    }
                    subscriptions.requestPositionReset(state);
                    continue;
                }
                if (error == Errors.TOPIC_AUTHORIZATION_FAILED) {
                    // As KafkaConsumer: the application hears of it from poll, and no retry can help.
                    throw new TopicAuthorizationException(
                            "not authorized to read topic '"
                                    + state.topicPartition().topic() + "'",
                            Set.of(state.topicPartition().topic()));
                }
                if (error != Errors.NONE) {
                    LOG.debug("fetch partition error: partition={}, error={}", state.topicPartition(), error);
                    metadata.requestUpdate();
                    continue;
                }
                // A read_committed consumer reads up to the last stable offset: its lag is counted to there, as
                // Kafka's.
                state.logBounds(
                        config.readCommitted() ? body.lastStableOffset() : body.highWatermark(), body.logStartOffset());
                if (body.recordsLength() <= 0) {
                    continue;
                }
                final long start = body.recordsOffset();
                final ReadableBatches whole =
                        batches.scan(buffer.segment(), start, start + body.recordsLength(), fetchOffset);
                if (whole.isEmpty()) {
                    continue;
                }
                final FetchedSlice slice = data.addSlice(state, start, whole.end(), fetchOffset, whole.nextOffset());
                if (config.readCommitted()) {
                    for (int i = 0; i < body.abortedTransactionCount(); i++) {
                        slice.addAbortedTransaction(body.abortedProducerId(i), body.abortedFirstOffset(i));
                    }
                }
                subscriptions.advanceFetchPosition(state, whole.nextOffset());
            }
        }
    }
}
