package io.isthmus.broker.replication;

import io.isthmus.broker.partition.Partition;
import io.isthmus.client.rdma.RdmaClientSettings;
import io.isthmus.client.security.SecuritySettings;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replica pushers of one broker, the leader's side of RDMA push replication: one {@link ReplicaPusher} thread per
 * follower this broker leads partitions for, started with its first partition and stopped with its last, as {@link
 * ReplicaFetchers} keeps one fetcher per leader. Off until {@link #enable enabled} (the broker's RDMA datapath runs
 * and {@code rdma.replication.push} is true); a follower without RDMA refuses access and is left to its fetches.
 */
public final class ReplicaPushers implements PushedReplicas, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaPushers.class);

    private final int localId;
    private final IntFunction<Optional<InetSocketAddress>> addresses;
    private final Map<Integer, ReplicaPusher> byFollower = new ConcurrentHashMap<>();
    /** The followers each pushed partition goes to. */
    private final Map<TopicPartition, Set<Integer>> followersOf = new HashMap<>();

    private RdmaClientSettings settings;
    private int frameBytes;
    private boolean closed;

    /** @param addresses where each broker's control requests are answered (its PLAINTEXT listener), by id */
    public ReplicaPushers(final int localId, final IntFunction<Optional<InetSocketAddress>> addresses) {
        this.localId = localId;
        this.addresses = addresses;
    }

    /**
     * Pushes from now on, through this broker's RDMA {@code device} (null: the first), its {@code port} and {@code
     * gidIndex}, writes of at most {@code frameBytes} (a staging slot: {@code message.max.bytes}, rounded up), giving
     * a follower up to {@code requestTimeoutMs} to answer. Partitions led before are pushed from the next time they are
     * {@link #lead led}.
     */
    public synchronized void enable(
            final String device,
            final int port,
            final int gidIndex,
            final long requestTimeoutMs,
            final int frameBytes) {
        this.settings = new RdmaClientSettings(
                device,
                port,
                gidIndex,
                RdmaClientSettings.DEFAULT_READ_BYTES,
                ReplicaPusher.CREDITS,
                requestTimeoutMs,
                false,
                SecuritySettings.PLAINTEXT);
        this.frameBytes = frameBytes;
        LOG.info("broker {}: RDMA push replication on (device {})", localId, device == null ? "the first" : device);
    }

    /**
     * This broker leads {@code partition}, which has {@code replicas}, in {@code leaderEpoch}: each follower gets its
     * batches pushed; followers no longer among the replicas stop getting them.
     */
    public synchronized void lead(final Partition partition, final int leaderEpoch, final List<Integer> replicas) {
        if (closed || settings == null) {
            return;
        }
        final TopicPartition tp = partition.topicPartition();
        final Set<Integer> followers = new HashSet<>(replicas);
        followers.remove(localId);
        for (final int gone : followersOf.getOrDefault(tp, Set.of())) {
            if (!followers.contains(gone)) {
                unpush(gone, tp);
            }
        }
        for (final int follower : followers) {
            byFollower
                    .computeIfAbsent(follower, id -> {
                        final ReplicaPusher pusher = new ReplicaPusher(localId, id, addresses, settings, frameBytes);
                        pusher.start();
                        return pusher;
                    })
                    .push(partition, leaderEpoch);
        }
        if (followers.isEmpty()) {
            followersOf.remove(tp);
        } else {
            followersOf.put(tp, followers);
        }
    }

    /** Stops pushing {@code partition} (this broker no longer leads it). */
    public synchronized void unlead(final TopicPartition partition) {
        for (final int follower : followersOf.getOrDefault(partition, Set.of())) {
            unpush(follower, partition);
        }
        followersOf.remove(partition);
    }

    /** Stops pushing every partition not in {@code led}. */
    public synchronized void retainOnly(final Set<TopicPartition> led) {
        for (final TopicPartition tp : Set.copyOf(followersOf.keySet())) {
            if (!led.contains(tp)) {
                unlead(tp);
            }
        }
    }

    private void unpush(final int follower, final TopicPartition partition) {
        final ReplicaPusher pusher = byFollower.get(follower);
        if (pusher == null) {
            return;
        }
        pusher.unpush(partition);
        if (pusher.isIdle()) {
            // Stopped, not waited for: the hosting thread that calls this must not wait on a dead follower.
            byFollower.remove(follower);
            pusher.stop();
        }
    }

    @Override
    public boolean pushes(final int replicaId, final Partition partition) {
        final ReplicaPusher pusher = byFollower.get(replicaId);
        return pusher != null && pusher.live(partition);
    }

    @Override
    public synchronized void close() {
        closed = true;
        for (final ReplicaPusher pusher : byFollower.values()) {
            try {
                pusher.close();
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        byFollower.clear();
        followersOf.clear();
    }
}
