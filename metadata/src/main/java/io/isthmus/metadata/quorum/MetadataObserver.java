package io.isthmus.metadata.quorum;

import io.isthmus.metadata.image.ClusterImage;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker-only node's view of the metadata (Kafka's observer, {@code process.roles=broker}): it votes in no election
 * and holds no quorum log, and follows the leader's image through {@link ImageFetch} long polls on one thread of its
 * own. Its commands (registration, heartbeats, ISR changes) go to the leader through a {@link QuorumClient} like a
 * voter's.
 *
 * <p>An image is published only if it is newer than the one held, so listeners see the applied index rise, never fall,
 * including across a change of quorum leader. While no voter answers (no quorum), the node keeps its last image and
 * asks again; its heartbeats fail meanwhile, so its lease runs out and it stops leading, as a voter cut off would.
 */
public final class MetadataObserver implements MetadataNode {
    private static final Logger LOG = LoggerFactory.getLogger(MetadataObserver.class);

    /** The pause after a failed fetch (its client has already retried through elections). */
    private static final Duration RETRY_PAUSE = Duration.ofMillis(200);

    private final QuorumSettings settings;
    private final QuorumClient client;
    private final List<Consumer<ClusterImage>> listeners = new CopyOnWriteArrayList<>();
    private final Thread follower;
    private volatile ClusterImage image = ClusterImage.EMPTY;
    private volatile boolean running = true;

    private MetadataObserver(QuorumSettings settings, Duration commandRetrySpan) {
        this.settings = settings;
        RaftProperties properties = new RaftProperties();
        RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
        RaftClientConfigKeys.Rpc.setRequestTimeout(
                properties, TimeDuration.valueOf(settings.requestTimeout().toMillis(), TimeUnit.MILLISECONDS));
        this.client = QuorumClient.connect(
                MetadataQuorum.groupOf(settings), properties, settings.brokerSessionTimeout(), commandRetrySpan);
        this.follower = new Thread(this::follow, "metadata-observer-" + settings.nodeId());
        follower.setDaemon(true);
    }

    /**
     * Starts following the quorum of {@code settings}.
     *
     * @throws IllegalArgumentException if this node is a voter (it runs {@link MetadataQuorum} instead)
     * @throws IllegalStateException if its directory is not formatted, or formatted for another cluster or node
     */
    public static MetadataObserver start(QuorumSettings settings) throws IOException {
        return start(settings, QuorumClient.DEFAULT_RETRY_SPAN);
    }

    /** As {@link #start(QuorumSettings)}, with commands retried for {@code commandRetrySpan} (tests shorten it). */
    static MetadataObserver start(QuorumSettings settings, Duration commandRetrySpan) throws IOException {
        if (settings.isVoter()) {
            throw new IllegalArgumentException(
                    "node " + settings.nodeId() + " is a voter of " + settings.voters() + "; it runs the quorum");
        }
        NodeDirectory.check(settings);
        MetadataObserver observer = new MetadataObserver(settings, commandRetrySpan);
        try {
            NodeDirectory.markStarted(settings);
        } catch (IOException | RuntimeException e) {
            observer.client.close();
            throw e;
        }
        observer.follower.start();
        return observer;
    }

    private void follow() {
        while (running) {
            try {
                Optional<ClusterImage> newer = client.fetchImage(image.appliedIndex(), ImageFetch.MAX_WAIT)
                        .get();
                newer.ifPresent(this::publish);
            } catch (InterruptedException e) {
                return;
            } catch (ExecutionException | RuntimeException | Error e) {
                // An Error too: a follower thread that died would leave this broker serving a frozen image.
                if (running) {
                    LOG.warn(
                            "broker {}: fetching the metadata image from the quorum failed; asking again",
                            settings.nodeId(),
                            e);
                    try {
                        Thread.sleep(RETRY_PAUSE.toMillis());
                    } catch (InterruptedException stop) {
                        return;
                    }
                }
            }
        }
    }

    private void publish(ClusterImage newer) {
        synchronized (listeners) {
            if (newer.appliedIndex() <= image.appliedIndex()) {
                return;
            }
            image = newer;
            for (Consumer<ClusterImage> listener : listeners) {
                try {
                    listener.accept(newer);
                } catch (RuntimeException e) {
                    LOG.error("a metadata listener failed on image {}", newer, e);
                }
            }
        }
    }

    @Override
    public int nodeId() {
        return settings.nodeId();
    }

    @Override
    public ClusterImage image() {
        return image;
    }

    @Override
    public void addListener(Consumer<ClusterImage> listener) {
        synchronized (listeners) {
            listeners.add(listener);
            listener.accept(image);
        }
    }

    @Override
    public OptionalInt leaderId() {
        return client.leaderId();
    }

    @Override
    public QuorumClient controller() {
        return client;
    }

    /** Stops following, then closes the client. */
    @Override
    public void close() throws IOException {
        running = false;
        follower.interrupt();
        try {
            follower.join(Duration.ofSeconds(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        client.close();
    }
}
