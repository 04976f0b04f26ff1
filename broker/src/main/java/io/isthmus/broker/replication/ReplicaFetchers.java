package io.isthmus.broker.replication;

import io.isthmus.broker.partition.Partition;
import java.net.InetSocketAddress;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replica fetchers of one broker (Kafka's {@code ReplicaFetcherManager}): one {@link ReplicaFetcher} thread per
 * leader this broker follows partitions of, started with its first partition and stopped with its last. They also say
 * which replicas may take their leader's pushed batches ({@link PushAcceptance}): those in line with it.
 */
public final class ReplicaFetchers implements PushAcceptance, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaFetchers.class);

    private final int localId;
    private final IntFunction<Optional<InetSocketAddress>> addresses;
    private final ReplicationSettings settings;
    /** Changed under this object's lock; read without it by {@link #accepts}, on the RDMA datapath thread. */
    private final Map<Integer, ReplicaFetcher> byLeader = new ConcurrentHashMap<>();

    private final Map<TopicPartition, Integer> leaderOf = new ConcurrentHashMap<>();
    private boolean closed;

    /**
     * @param addresses where each broker is reached (its PLAINTEXT listener), by id
     */
    public ReplicaFetchers(
            final int localId,
            final IntFunction<Optional<InetSocketAddress>> addresses,
            final ReplicationSettings settings) {
        this.localId = localId;
        this.addresses = addresses;
        this.settings = settings;
    }

    /**
     * Makes this broker fetch {@code partition} from {@code leaderId}, which leads it in {@code leaderEpoch}; a
     * partition fetched from another leader before moves over.
     */
    public synchronized void follow(final Partition partition, final int leaderId, final int leaderEpoch) {
        if (closed) {
            return;
        }
        final TopicPartition tp = partition.topicPartition();
        final Integer previous = leaderOf.get(tp);
        if (previous != null && previous == leaderId && byLeader.get(leaderId).follows(partition, leaderEpoch)) {
            return;
        }
        if (previous != null && previous != leaderId) {
            unfollowLocked(tp);
        }
        ReplicaFetcher fetcher = byLeader.get(leaderId);
        if (fetcher == null) {
            fetcher = new ReplicaFetcher(localId, leaderId, addresses, settings);
            byLeader.put(leaderId, fetcher);
            fetcher.start();
        }
        fetcher.follow(partition, leaderEpoch);
        leaderOf.put(tp, leaderId);
        LOG.info("broker {}: fetching {} from leader {} in epoch {}", localId, tp, leaderId, leaderEpoch);
    }

    /** Without the lock: a close waiting for its fetchers must not stall the datapath thread that asks. */
    @Override
    public boolean accepts(final Partition partition, final int leaderId, final int leaderEpoch) {
        final Integer leader = leaderOf.get(partition.topicPartition());
        if (leader == null || leader != leaderId) {
            return false;
        }
        final ReplicaFetcher fetcher = byLeader.get(leaderId);
        return fetcher != null && fetcher.inLine(partition, leaderEpoch);
    }

    /** Stops fetching {@code partition} (this broker leads it now, or no longer holds it). */
    public synchronized void unfollow(final TopicPartition partition) {
        unfollowLocked(partition);
    }

    /** Stops fetching every partition not in {@code keep}. */
    public synchronized void retainOnly(final java.util.Set<TopicPartition> keep) {
        for (final TopicPartition tp : Map.copyOf(leaderOf).keySet()) {
            if (!keep.contains(tp)) {
                unfollowLocked(tp);
            }
        }
    }

    private void unfollowLocked(final TopicPartition partition) {
        final Integer leader = leaderOf.remove(partition);
        if (leader == null) {
            return;
        }
        final ReplicaFetcher fetcher = byLeader.get(leader);
        fetcher.unfollow(partition);
        if (fetcher.isIdle()) {
            // Stopped, not waited for: the hosting thread that calls this must not hang on a dead leader's connect.
            byLeader.remove(leader);
            fetcher.stop();
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        for (final Iterator<ReplicaFetcher> it = byLeader.values().iterator(); it.hasNext(); ) {
            closeQuietly(it.next());
            it.remove();
        }
        leaderOf.clear();
    }

    private void closeQuietly(final ReplicaFetcher fetcher) {
        try {
            fetcher.close();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
