package io.isthmus.client.cluster;

import io.isthmus.client.network.KafkaConnection;
import io.isthmus.client.network.ReceiveBufferPool;
import io.isthmus.client.network.SocketBuffers;
import io.isthmus.client.security.SecuritySettings;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.protocol.Errors;

/**
 * The connections of one client thread: one to a bootstrap broker for metadata, and one per broker node it talks to
 * (opened on first use). Not thread-safe: each thread that does I/O owns its own instance.
 *
 * <p>Opening a connection (TCP connect, ApiVersions, SASL) waits at most {@code socket.connection.setup.timeout.ms}:
 * a broker that is paused or wedged accepts the connection in its kernel and then answers nothing, and a client must
 * not wait a whole request timeout on it before trying the next broker. A caller that serves several brokers and must
 * not wait on one of them at all (a fetcher) opens connections in the background instead ({@link #nodeIfOpen}).
 */
public final class BrokerConnections implements AutoCloseable {
    /** Kafka's default {@code socket.connection.setup.timeout.ms}. */
    public static final Duration DEFAULT_SETUP_TIMEOUT = Duration.ofSeconds(10);

    private final List<InetSocketAddress> bootstrap;
    private final String clientId;
    private final ReceiveBufferPool pool;
    private final Duration requestTimeout;
    private final Duration setupTimeout;
    private final SecuritySettings security;
    private final SocketBuffers buffers;
    private final Map<Integer, KafkaConnection> byNode = new HashMap<>();
    /** Connections being opened in the background, by node: taken into {@link #byNode} by the owner once done. */
    private final Map<Integer, CompletableFuture<KafkaConnection>> opening = new HashMap<>();
    /** The threads that open connections for {@link #nodeIfOpen}; started on first use. */
    private ExecutorService opener;

    private KafkaConnection bootstrapConnection;
    private ClusterMetadata metadata;
    /** Every topic and broker the refreshes have named, as last named: what a new answer's leader epochs must not undo. */
    private ClusterMetadata seen;

    public BrokerConnections(
            final List<InetSocketAddress> bootstrap,
            final String clientId,
            final ReceiveBufferPool pool,
            final Duration requestTimeout,
            final SecuritySettings security) {
        this(
                bootstrap,
                clientId,
                pool,
                requestTimeout,
                requestTimeout.compareTo(DEFAULT_SETUP_TIMEOUT) < 0 ? requestTimeout : DEFAULT_SETUP_TIMEOUT,
                security,
                SocketBuffers.DEFAULT);
    }

    /**
     * @param setupTimeout how long opening a connection may take ({@code socket.connection.setup.timeout.ms})
     * @param buffers the kernel buffer sizes every connection asks for ({@code receive.buffer.bytes} ...)
     */
    public BrokerConnections(
            final List<InetSocketAddress> bootstrap,
            final String clientId,
            final ReceiveBufferPool pool,
            final Duration requestTimeout,
            final Duration setupTimeout,
            final SecuritySettings security,
            final SocketBuffers buffers) {
        if (bootstrap.isEmpty()) {
            throw new IllegalArgumentException("bootstrap.servers is empty");
        }
        this.bootstrap = List.copyOf(bootstrap);
        this.clientId = clientId;
        this.pool = pool;
        this.requestTimeout = requestTimeout;
        this.setupTimeout = setupTimeout;
        this.security = security;
        this.buffers = buffers;
    }

    /**
     * Parses Kafka's {@code bootstrap.servers} form: {@code host:port[,host:port...]} ({@code [v6addr]:port} allowed).
     */
    public static List<InetSocketAddress> parseBootstrap(final String servers) {
        if (servers == null || servers.isBlank()) {
            throw new IllegalArgumentException("bootstrap.servers must be set, e.g. bootstrap.servers=localhost:9092");
        }
        final List<InetSocketAddress> addresses = new ArrayList<>();
        for (final String raw : servers.split(",")) {
            final String server = raw.trim();
            if (server.isEmpty()) {
                continue;
            }
            final int colon = server.lastIndexOf(':');
            if (colon <= 0 || colon == server.length() - 1) {
                throw new IllegalArgumentException("bootstrap.servers entry is not host:port: entry=" + server);
            }
            String host = server.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            final int port;
            try {
                port = Integer.parseInt(server.substring(colon + 1));
            } catch (final NumberFormatException e) {
                throw new IllegalArgumentException("bootstrap.servers entry has a bad port: entry=" + server, e);
            }
            addresses.add(InetSocketAddress.createUnresolved(host, port));
        }
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException("bootstrap.servers has no host:port: value=" + servers);
        }
        return addresses;
    }

    /** A connection to some broker, for requests any broker answers (Metadata, ApiVersions, FindCoordinator ...). */
    public KafkaConnection any() {
        if (bootstrapConnection != null && !bootstrapConnection.isClosed()) {
            return bootstrapConnection;
        }
        for (final KafkaConnection connection : byNode.values()) {
            if (!connection.isClosed()) {
                return connection;
            }
        }
        NetworkException last = null;
        for (final InetSocketAddress address : bootstrap) {
            try {
                bootstrapConnection = open(resolve(address));
                return bootstrapConnection;
            } catch (final NetworkException e) {
                last = e;
            }
        }
        throw new NetworkException("no bootstrap broker reachable: bootstrap.servers=" + bootstrap, last);
    }

    private static InetSocketAddress resolve(final InetSocketAddress address) {
        return address.isUnresolved() ? new InetSocketAddress(address.getHostString(), address.getPort()) : address;
    }

    /** The connection to broker {@code nodeId} (from the latest metadata), opened if needed. */
    public KafkaConnection node(final int nodeId) {
        final KafkaConnection existing = byNode.get(nodeId);
        if (existing != null && !existing.isClosed()) {
            return existing;
        }
        if (metadata == null || metadata.node(nodeId) == null) {
            refresh(null);
        }
        final BrokerNode node = metadata.node(nodeId);
        if (node == null) {
            throw new NetworkException("unknown broker: nodeId=" + nodeId + ", known="
                    + metadata.nodes().keySet());
        }
        final KafkaConnection connection = open(node.address());
        byNode.put(nodeId, connection);
        return connection;
    }

    /**
     * The open connection to broker {@code nodeId} (from the latest metadata), or null while it is being opened on a
     * background thread, which this call starts if none is under way: for a caller that serves several brokers and
     * must not wait on one. A call after the opening failed throws its {@link NetworkException}, once.
     */
    public KafkaConnection nodeIfOpen(final int nodeId) {
        final CompletableFuture<KafkaConnection> underWay = opening.get(nodeId);
        final KafkaConnection existing = byNode.get(nodeId);
        final boolean open = existing != null && !existing.isClosed();
        if (underWay != null) {
            if (!underWay.isDone()) {
                return open ? existing : null;
            }
            opening.remove(nodeId);
            final KafkaConnection opened;
            try {
                opened = underWay.join();
            } catch (final CompletionException e) {
                if (open) {
                    return existing; // node() opened one meanwhile
                }
                if (e.getCause() instanceof RuntimeException failure) {
                    throw failure;
                }
                throw new NetworkException("cannot connect to broker " + nodeId, e.getCause());
            }
            return adopt(nodeId, opened);
        }
        if (open) {
            return existing;
        }
        final BrokerNode node = metadata == null ? null : metadata.node(nodeId);
        if (node == null) {
            return node(nodeId); // not in the metadata: refreshed, and opened or refused, as node() does
        }
        opening.put(nodeId, CompletableFuture.supplyAsync(() -> open(node.address()), opener()));
        return null;
    }

    /**
     * Takes the connections opened in the background that no {@link #nodeIfOpen} has collected yet (the leader moved
     * elsewhere meanwhile, say): kept where none is open to that broker, closed where {@link #node} opened one. A
     * failed opening stays for {@link #nodeIfOpen} to report.
     */
    private void adoptFinishedOpenings() {
        opening.entrySet().removeIf(e -> {
            final CompletableFuture<KafkaConnection> underWay = e.getValue();
            if (!underWay.isDone() || underWay.isCompletedExceptionally()) {
                return false;
            }
            adopt(e.getKey(), underWay.join());
            return true;
        });
    }

    /**
     * Makes {@code opened} broker {@code nodeId}'s connection, unless {@link #node} opened one meanwhile, which its
     * caller may be using: then {@code opened} is closed. Returns the connection kept.
     */
    private KafkaConnection adopt(final int nodeId, final KafkaConnection opened) {
        final KafkaConnection existing = byNode.get(nodeId);
        if (existing != null && !existing.isClosed()) {
            opened.close();
            return existing;
        }
        byNode.put(nodeId, opened);
        return opened;
    }

    private ExecutorService opener() {
        if (opener == null) {
            // A thread per opening under way (one per broker at most): an opening that waits on a paused broker must
            // not queue the others behind it. Idle threads end after a minute.
            opener = Executors.newCachedThreadPool(runnable -> Thread.ofPlatform()
                    .daemon()
                    .name(clientId + "-connection-opener")
                    .unstarted(runnable));
        }
        return opener;
    }

    /** Connects to {@code address}, negotiates and authenticates, within the setup timeout. */
    private KafkaConnection open(final InetSocketAddress address) {
        return KafkaConnection.open(address, clientId, pool, setupTimeout, security, buffers);
    }

    /** A connection to {@code node} (which may be a coordinator not in the metadata yet). */
    public KafkaConnection node(final BrokerNode node) {
        final KafkaConnection existing = byNode.get(node.id());
        if (existing != null && !existing.isClosed()) {
            return existing;
        }
        final KafkaConnection connection = open(node.address());
        byNode.put(node.id(), connection);
        return connection;
    }

    /**
     * Fetches metadata for {@code topics} (null: all) and remembers it. Asked of {@link #any()} first; if that broker
     * does not answer (down, restarting, or an idle connection it closed), of each other broker the client knows (the
     * bootstrap servers and the brokers of the last metadata), each on a fresh connection, as Kafka's clients go to
     * another node: one broker of a cluster being down is no reason to fail.
     *
     * @throws NetworkException or {@link TimeoutException} if no broker answers
     */
    public ClusterMetadata refresh(final Collection<String> topics) {
        KafkaConnection first = null;
        InetSocketAddress firstAddress = null;
        try {
            first = any();
            firstAddress = first.address();
            return remember(ClusterMetadata.fetch(first, topics, requestTimeout));
        } catch (final NetworkException | TimeoutException e) {
            // No bootstrap server answers, or the one asked did not: the brokers the last metadata named may.
            if (first != null) {
                forget(first);
            }
            RuntimeException last = e;
            for (final InetSocketAddress address : knownBrokers()) {
                if (address.equals(firstAddress)) {
                    continue; // asked again below, last
                }
                try {
                    return askFresh(address, topics);
                } catch (final NetworkException | TimeoutException again) {
                    last = again;
                }
            }
            if (firstAddress == null) {
                throw last;
            }
            try {
                return askFresh(firstAddress, topics);
            } catch (final NetworkException | TimeoutException again) {
                again.addSuppressed(last);
                throw again;
            }
        }
    }

    /** Metadata from {@code address} on a new connection, which becomes the one {@link #any()} returns. */
    private ClusterMetadata askFresh(final InetSocketAddress address, final Collection<String> topics) {
        final KafkaConnection connection = open(resolve(address));
        try {
            final ClusterMetadata fresh = ClusterMetadata.fetch(connection, topics, requestTimeout);
            closeBootstrap();
            bootstrapConnection = connection;
            return remember(fresh);
        } catch (final RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    /**
     * Takes {@code fresh} as the latest metadata, except for partitions it names with an older leader epoch than any
     * refresh so far did (KIP-320).
     */
    private ClusterMetadata remember(final ClusterMetadata fresh) {
        adoptFinishedOpenings();
        metadata = fresh.keepingNewerLeadersOf(seen);
        seen = seen == null ? metadata : seen.updatedWith(metadata);
        return metadata;
    }

    /** Closes {@code connection} and lets go of it, whichever role it had. */
    private void forget(final KafkaConnection connection) {
        if (connection == bootstrapConnection) {
            closeBootstrap();
        } else {
            byNode.values().remove(connection);
            connection.close();
        }
    }

    /** The bootstrap servers, then the brokers of the last metadata not among them. */
    private List<InetSocketAddress> knownBrokers() {
        final List<InetSocketAddress> addresses = new ArrayList<>();
        for (final InetSocketAddress address : bootstrap) {
            addresses.add(resolve(address));
        }
        if (metadata != null) {
            for (final BrokerNode node : metadata.nodes().values()) {
                if (!addresses.contains(node.address())) {
                    addresses.add(node.address());
                }
            }
        }
        return addresses;
    }

    /**
     * Waits until every topic in {@code topics} has metadata with a leader for every partition, refreshing with
     * backoff.
     *
     * @throws TimeoutException if that does not happen within {@code timeout}
     */
    public ClusterMetadata awaitTopics(final Collection<String> topics, final Duration timeout) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        long backoffMs = 10;
        while (true) {
            final ClusterMetadata fresh = refresh(topics);
            String missing = null;
            for (final String topic : topics) {
                final TopicMetadata t = fresh.topic(topic);
                if (t != null && t.error() == Errors.TOPIC_AUTHORIZATION_FAILED) {
                    // Not a condition that passes by waiting: Kafka's clients fail at once too.
                    throw new TopicAuthorizationException(
                            "not authorized to access topic '" + topic + "'", Set.of(topic));
                }
                if (t == null || t.error() != Errors.NONE || t.partitionCount() == 0) {
                    missing = topic + (t == null ? "" : "(" + t.error() + ")");
                    break;
                }
                for (final PartitionMetadata p : t.partitions()) {
                    if (p.leader() < 0) {
                        missing = topic + "-" + p.partition() + "(no leader)";
                        break;
                    }
                }
            }
            if (missing == null) {
                return fresh;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new TimeoutException(
                        "topic metadata not available in " + timeout.toMillis() + " ms: topic=" + missing);
            }
            try {
                Thread.sleep(backoffMs);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new org.apache.kafka.common.errors.InterruptException(e);
            }
            backoffMs = Math.min(500, backoffMs * 2);
        }
    }

    /** The latest metadata, or null before the first refresh. */
    public ClusterMetadata metadata() {
        return metadata;
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    /** Closes a failed connection so that the next use reconnects. */
    public void disconnect(final int nodeId) {
        final KafkaConnection connection = byNode.remove(nodeId);
        if (connection != null) {
            connection.close();
        }
    }

    private void closeBootstrap() {
        if (bootstrapConnection != null) {
            bootstrapConnection.close();
            bootstrapConnection = null;
        }
    }

    @Override
    public void close() {
        if (opener != null) {
            // An opening still under way is interrupted (which closes its channel); one that finishes anyway is closed.
            opener.shutdownNow();
            for (final CompletableFuture<KafkaConnection> underWay : opening.values()) {
                underWay.thenAccept(KafkaConnection::close);
            }
            opening.clear();
        }
        closeBootstrap();
        for (final KafkaConnection connection : byNode.values()) {
            connection.close();
        }
        byNode.clear();
    }
}
