package io.isthmus.broker.replication;

import io.isthmus.broker.log.EpochDivergence;
import io.isthmus.broker.log.LeaderEpochCache.EpochEndOffset;
import io.isthmus.broker.log.UnexpectedAppendOffsetException;
import io.isthmus.broker.partition.Partition;
import io.isthmus.client.network.KafkaConnection;
import io.isthmus.client.network.ReceiveBufferPool;
import io.isthmus.client.network.Response;
import io.isthmus.client.network.SocketBuffers;
import io.isthmus.client.security.SecuritySettings;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread that keeps this broker's replicas of the partitions one leader leads in line with that leader's logs
 * (Kafka's {@code ReplicaFetcherThread}): it fetches all of them in one Fetch request as a replica ({@code replica_id}
 * this broker), with each partition's log end offset, newest epoch and the leader epoch it follows, and then for each
 * partition either appends what came ({@link Partition#appendAsFollower}), or truncates where the leader says the
 * follower's log diverged ({@link EpochDivergence#truncationFor}), and takes the leader's high watermark.
 *
 * <p>The connection is the isthmus client's {@link KafkaConnection}; the fetch response's records are views of its
 * receive buffer, copied once, into the follower's log. A failed connection is opened again after a pause; a partition
 * whose leader answers that it no longer leads (or not yet) pauses until the cluster's metadata moves it.
 */
final class ReplicaFetcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaFetcher.class);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    private static final long IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** The first Fetch version whose request names the replica in {@code replica_state}. */
    private static final short FIRST_VERSION_WITH_REPLICA_STATE = 15;

    private static final short FIRST_VERSION_WITH_TOPIC_IDS = 13;
    private static final short FIRST_VERSION_WITH_LAST_FETCHED_EPOCH = 12;

    /**
     * A partition this thread fetches, in the leader epoch it follows; paused until {@code retryAtNanos}. {@code inLine}
     * once a fetch in this epoch was answered without a divergence: the leader has checked the end of this replica's
     * log against its own history, so what it appends from now on (fetched, or pushed over RDMA) continues it.
     */
    private record Followed(Partition partition, int leaderEpoch, long retryAtNanos, boolean inLine) {
        Followed inLine(final boolean inLine) {
            return new Followed(partition, leaderEpoch, retryAtNanos, inLine);
        }
    }

    private final int localId;
    private final int leaderId;
    private final IntFunction<Optional<InetSocketAddress>> addresses;
    private final ReplicationSettings settings;
    private final Map<TopicPartition, Followed> followed = new ConcurrentHashMap<>();
    private final ReceiveBufferPool buffers = new ReceiveBufferPool(1 << 20);
    private final Thread thread;
    private volatile boolean running = true;
    private volatile KafkaConnection connection;

    ReplicaFetcher(
            final int localId,
            final int leaderId,
            final IntFunction<Optional<InetSocketAddress>> addresses,
            final ReplicationSettings settings) {
        this.localId = localId;
        this.leaderId = leaderId;
        this.addresses = addresses;
        this.settings = settings;
        this.thread = Thread.ofPlatform()
                .name("broker-" + localId + "-replica-fetcher-" + leaderId)
                .daemon()
                .unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    /** Fetches {@code partition} from now on, following its leader in {@code leaderEpoch}. */
    void follow(final Partition partition, final int leaderEpoch) {
        followed.put(partition.topicPartition(), new Followed(partition, leaderEpoch, 0, false));
    }

    /** Stops fetching {@code partition}. */
    void unfollow(final TopicPartition partition) {
        followed.remove(partition);
    }

    boolean isIdle() {
        return followed.isEmpty();
    }

    /**
     * Whether this thread fetches this very {@code partition} in {@code leaderEpoch} and its log is in line with the
     * leader's (see {@link Followed}): the condition for taking the leader's pushed batches.
     */
    boolean inLine(final Partition partition, final int leaderEpoch) {
        final Followed f = followed.get(partition.topicPartition());
        return f != null && f.partition() == partition && f.leaderEpoch() == leaderEpoch && f.inLine();
    }

    /** Whether this thread fetches this very {@code partition} (not one of a topic since re-created) in {@code epoch}. */
    boolean follows(final Partition partition, final int leaderEpoch) {
        final Followed f = followed.get(partition.topicPartition());
        return f != null && f.partition() == partition && f.leaderEpoch() == leaderEpoch;
    }

    private void run() {
        while (running) {
            final Map<TopicPartition, Followed> round = due();
            if (round.isEmpty()) {
                LockSupport.parkNanos(IDLE_PARK_NANOS);
                continue;
            }
            try {
                fetchOnce(round);
            } catch (final RuntimeException e) {
                if (!running) {
                    break;
                }
                LOG.warn(
                        "broker {}: fetch from leader {} failed ({}); retrying in {} ms",
                        localId,
                        leaderId,
                        e.toString(),
                        TimeUnit.NANOSECONDS.toMillis(RETRY_NANOS));
                closeConnection();
                LockSupport.parkNanos(RETRY_NANOS);
            }
        }
        closeConnection();
        buffers.close();
    }

    /** The partitions not paused now. */
    private Map<TopicPartition, Followed> due() {
        final long now = System.nanoTime();
        final Map<TopicPartition, Followed> round = new LinkedHashMap<>();
        followed.forEach((tp, f) -> {
            if (f.retryAtNanos() - now <= 0) {
                round.put(tp, f);
            }
        });
        return round;
    }

    private void fetchOnce(final Map<TopicPartition, Followed> round) {
        final KafkaConnection conn = connection();
        final short version = conn.version(ApiKeys.FETCH);
        final Map<Uuid, String> names = new HashMap<>();
        final FetchRequestData request = request(round, version, names);
        conn.send(ApiKeys.FETCH, request);
        final long deadline = System.nanoTime()
                + TimeUnit.MILLISECONDS.toNanos(settings.fetchWaitMaxMs() + settings.requestTimeoutMs());
        Response response = null;
        while (response == null) {
            final long left = deadline - System.nanoTime();
            if (!running) {
                return;
            }
            if (left <= 0) {
                throw new org.apache.kafka.common.errors.TimeoutException(
                        "no fetch response from leader " + leaderId + " in time");
            }
            response = conn.receive(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
        }
        try {
            final FetchResponseData body = (FetchResponseData) response.parse();
            if (body.errorCode() != Errors.NONE.code()) {
                throw Errors.forCode(body.errorCode()).exception("fetch from leader " + leaderId);
            }
            for (final FetchResponseData.FetchableTopicResponse topic : body.responses()) {
                final String name =
                        version >= FIRST_VERSION_WITH_TOPIC_IDS ? names.get(topic.topicId()) : topic.topic();
                for (final FetchResponseData.PartitionData data : topic.partitions()) {
                    final TopicPartition tp = new TopicPartition(name, data.partitionIndex());
                    final Followed f = round.get(tp);
                    // A partition whose role changed during the round is left to its new state.
                    if (f != null && followed.get(tp) == f) {
                        try {
                            process(f, data);
                        } catch (final RuntimeException e) {
                            // One partition's fault (a log taken offline, a batch refused) pauses that partition
                            // only; the others of this leader go on.
                            LOG.warn(
                                    "broker {}: replicating {} from leader {} failed; retrying it in {} ms",
                                    localId,
                                    tp,
                                    leaderId,
                                    TimeUnit.NANOSECONDS.toMillis(RETRY_NANOS),
                                    e);
                            pause(f);
                        }
                    }
                }
            }
        } finally {
            response.release();
        }
    }

    private FetchRequestData request(
            final Map<TopicPartition, Followed> round, final short version, final Map<Uuid, String> names) {
        final FetchRequestData request = new FetchRequestData()
                .setMaxWaitMs(settings.fetchWaitMaxMs())
                .setMinBytes(1)
                .setMaxBytes(Integer.MAX_VALUE)
                .setIsolationLevel((byte) 0)
                .setSessionId(0)
                .setSessionEpoch(-1);
        if (version >= FIRST_VERSION_WITH_REPLICA_STATE) {
            request.setReplicaState(new FetchRequestData.ReplicaState().setReplicaId(localId));
        } else {
            request.setReplicaId(localId);
        }
        final Map<String, FetchRequestData.FetchTopic> topics = new LinkedHashMap<>();
        round.forEach((tp, f) -> {
            final Partition partition = f.partition();
            final FetchRequestData.FetchTopic topic = topics.computeIfAbsent(tp.topic(), name -> {
                final FetchRequestData.FetchTopic created = new FetchRequestData.FetchTopic();
                if (version >= FIRST_VERSION_WITH_TOPIC_IDS) {
                    created.setTopicId(partition.topicId());
                    names.put(partition.topicId(), name);
                } else {
                    created.setTopic(name);
                }
                return created;
            });
            final FetchRequestData.FetchPartition fetch = new FetchRequestData.FetchPartition()
                    .setPartition(tp.partition())
                    .setCurrentLeaderEpoch(f.leaderEpoch())
                    .setFetchOffset(partition.logEndOffset())
                    .setLogStartOffset(partition.logStartOffset())
                    .setPartitionMaxBytes(settings.fetchMaxBytes());
            if (version >= FIRST_VERSION_WITH_LAST_FETCHED_EPOCH) {
                fetch.setLastFetchedEpoch(partition.log().latestEpoch());
            }
            topic.partitions().add(fetch);
        });
        request.topics().addAll(topics.values());
        return request;
    }

    private void process(final Followed f, final FetchResponseData.PartitionData data) {
        final Partition partition = f.partition();
        final Errors error = Errors.forCode(data.errorCode());
        switch (error) {
            case NONE -> {
                final FetchResponseData.EpochEndOffset diverging = data.divergingEpoch();
                if (diverging.epoch() >= 0 || diverging.endOffset() >= 0) {
                    final EpochDivergence.Truncation truncation = EpochDivergence.truncationFor(
                            partition.log(),
                            new EpochEndOffset(diverging.epoch(), diverging.endOffset()),
                            partition.highWatermark());
                    LOG.info(
                            "broker {}: {} diverged from leader {} (leader's epoch {} ends at {}): truncating to {}{}",
                            localId,
                            partition.topicPartition(),
                            leaderId,
                            diverging.epoch(),
                            diverging.endOffset(),
                            truncation.offset(),
                            truncation.complete() ? "" : ", then asking again");
                    markInLine(f, false);
                    partition.truncateTo(truncation.offset());
                    return;
                }
                if (data.records() instanceof MemoryRecords records && records.sizeInBytes() > 0) {
                    try {
                        partition.appendAsFollower(MemorySegment.ofBuffer(records.buffer()));
                    } catch (final UnexpectedAppendOffsetException e) {
                        // The log moved while the fetch was out (a truncation): the next fetch starts from its end.
                        LOG.info("broker {}: {}", localId, e.getMessage());
                        return;
                    }
                }
                markInLine(f, true);
                partition.followerHighWatermark(data.highWatermark());
                // As Kafka's followers do: what the leader no longer holds (its transaction state log compacted, its
                // retention ran), this replica drops too, up to what is committed.
                if (data.logStartOffset() > partition.logStartOffset()) {
                    partition.log().deleteSegmentsBelow(Math.min(data.logStartOffset(), partition.highWatermark()));
                }
            }
            case OFFSET_OUT_OF_RANGE -> {
                if (partition.logEndOffset() < data.logStartOffset()) {
                    LOG.info(
                            "broker {}: {} is behind leader {}'s log start {}: starting over there",
                            localId,
                            partition.topicPartition(),
                            leaderId,
                            data.logStartOffset());
                    partition.truncateFullyAndStartAt(data.logStartOffset());
                } else if (data.highWatermark() >= 0 && partition.logEndOffset() > data.highWatermark()) {
                    // Past the leader's log end with no epoch to tell where it diverged (its epochs went with a full
                    // truncation): keep only what the leader has committed.
                    LOG.info(
                            "broker {}: {} ends past leader {}'s log; truncating to its high watermark {}",
                            localId,
                            partition.topicPartition(),
                            leaderId,
                            data.highWatermark());
                    partition.truncateTo(data.highWatermark());
                } else {
                    pause(f, error);
                }
            }
            default -> pause(f, error);
        }
    }

    private void markInLine(final Followed f, final boolean inLine) {
        if (f.inLine() != inLine) {
            followed.replace(f.partition().topicPartition(), f, f.inLine(inLine));
        }
    }

    /** Leaves {@code f} alone for a moment: its leader cannot serve it now (metadata on its way, or a fault). */
    private void pause(final Followed f, final Errors error) {
        if (error == Errors.TOPIC_AUTHORIZATION_FAILED || error == Errors.CLUSTER_AUTHORIZATION_FAILED) {
            LOG.warn(
                    "broker {}: leader {} refuses to replicate {}: {}",
                    localId,
                    leaderId,
                    f.partition().topicPartition(),
                    error);
        } else {
            LOG.debug(
                    "broker {}: leader {} answered {} for {}; pausing it",
                    localId,
                    leaderId,
                    error,
                    f.partition().topicPartition());
        }
        pause(f);
    }

    private void pause(final Followed f) {
        followed.replace(
                f.partition().topicPartition(),
                f,
                new Followed(f.partition(), f.leaderEpoch(), System.nanoTime() + RETRY_NANOS, false));
    }

    private KafkaConnection connection() {
        KafkaConnection current = connection;
        if (current == null || current.isClosed()) {
            final InetSocketAddress address = addresses
                    .apply(leaderId)
                    .orElseThrow(() -> new IllegalStateException("no PLAINTEXT endpoint known for leader " + leaderId));
            current = KafkaConnection.open(
                    address,
                    "broker-" + localId + "-replica-fetcher",
                    buffers,
                    CONNECT_TIMEOUT,
                    SecuritySettings.PLAINTEXT,
                    SocketBuffers.DEFAULT);
            connection = current;
        }
        return current;
    }

    private void closeConnection() {
        final KafkaConnection current = connection;
        connection = null;
        if (current != null) {
            current.close();
        }
    }

    /**
     * Tells the thread to stop and returns: a fetch in flight is abandoned, and the thread closes its connection and
     * buffers on its way out (a connect in progress first runs out its timeout). Never blocks a role change.
     */
    void stop() {
        running = false;
        final KafkaConnection current = connection;
        if (current != null) {
            current.wakeup();
        }
    }

    /** {@link #stop}, then waits for the thread to end (at most 10 s). */
    @Override
    public void close() throws InterruptedException {
        stop();
        thread.join(TimeUnit.SECONDS.toMillis(10));
    }
}
