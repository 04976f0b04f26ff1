package io.isthmus.broker;

import io.isthmus.broker.api.AccessControl;
import io.isthmus.broker.api.AclsHandler;
import io.isthmus.broker.api.ApiHandler;
import io.isthmus.broker.api.ApiVersionsHandler;
import io.isthmus.broker.api.BrokerNode;
import io.isthmus.broker.api.ClusterHandler;
import io.isthmus.broker.api.CoordinatorLocator;
import io.isthmus.broker.api.FetchHandler;
import io.isthmus.broker.api.GroupHandler;
import io.isthmus.broker.api.ListOffsetsHandler;
import io.isthmus.broker.api.MetadataHandler;
import io.isthmus.broker.api.MetadataView;
import io.isthmus.broker.api.OffsetForLeaderEpochHandler;
import io.isthmus.broker.api.ProduceHandler;
import io.isthmus.broker.api.ProduceVerification;
import io.isthmus.broker.api.ProducerIdHandler;
import io.isthmus.broker.api.RequestRouter;
import io.isthmus.broker.api.ScramCredentialsHandler;
import io.isthmus.broker.api.SingleBrokerMetadata;
import io.isthmus.broker.api.TopicAdminHandler;
import io.isthmus.broker.api.TransactionHandler;
import io.isthmus.broker.api.WriteTxnMarkersHandler;
import io.isthmus.broker.cluster.ClusterMembership;
import io.isthmus.broker.config.BrokerConfig;
import io.isthmus.broker.config.ClusterSettings;
import io.isthmus.broker.config.Endpoint;
import io.isthmus.broker.group.FileOffsetStore;
import io.isthmus.broker.group.GroupCoordinator;
import io.isthmus.broker.group.GroupOffsetsLog;
import io.isthmus.broker.group.OffsetStore;
import io.isthmus.broker.log.LogConfig;
import io.isthmus.broker.log.LogManager;
import io.isthmus.broker.metrics.BrokerMetricsMBean;
import io.isthmus.broker.network.ControlRequestHandler;
import io.isthmus.broker.network.KafkaServer;
import io.isthmus.broker.partition.LeaderAccess;
import io.isthmus.broker.partition.PartitionLeadership;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.producer.ProducerIdAllocator;
import io.isthmus.broker.producer.ProducerIds;
import io.isthmus.broker.rdma.RdmaService;
import io.isthmus.broker.rdma.RdmaSettings;
import io.isthmus.broker.replication.PushAcceptance;
import io.isthmus.broker.replication.PushedReplicas;
import io.isthmus.broker.security.AclAuthorizer;
import io.isthmus.broker.security.Authorizer;
import io.isthmus.broker.security.ListenerSecurity;
import io.isthmus.broker.security.ScramCredentialStore;
import io.isthmus.broker.shm.ShmService;
import io.isthmus.broker.shm.ShmSettings;
import io.isthmus.broker.topic.TopicRegistry;
import io.isthmus.broker.transaction.CoordinatorHeldOffsets;
import io.isthmus.broker.transaction.TransactionCoordinator;
import io.isthmus.broker.transaction.TransactionCoordinators;
import io.isthmus.broker.transaction.TransactionStateLog;
import io.isthmus.metadata.image.BrokerEndpoint;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One isthmus broker: its logs, topics, groups and the Kafka-protocol server, started in dependency order
 * and closed in reverse.
 *
 * <p>The first directory of {@code log.dirs} also holds the broker's own metadata: the topic registry, the
 * producer-id block, the committed offsets of consumer groups and the transaction state log.
 */
public final class Broker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Broker.class);
    private static final String OFFSETS_DIR = "__consumer_offsets";

    private final BrokerConfig config;
    private final PartitionManager partitions;
    private final OffsetStore offsets;
    private final GroupCoordinator coordinator;
    /** A single broker's transaction coordinator; a cluster's coordinators close with its membership. */
    private final Optional<TransactionCoordinator> soleTransactions;

    private final ScheduledExecutorService delayedFetches;
    private final KafkaServer server;
    private final RdmaService rdma;
    private final ShmService shm;
    private final BrokerMetricsMBean metrics;
    private final BrokerNode node;
    /** Present when this broker is a node of a cluster ({@code process.roles} set). */
    private final Optional<ClusterMembership> cluster;

    private Broker(
            final BrokerConfig config,
            final PartitionManager partitions,
            final OffsetStore offsets,
            final GroupCoordinator coordinator,
            final Optional<TransactionCoordinator> soleTransactions,
            final ScheduledExecutorService delayedFetches,
            final KafkaServer server,
            final RdmaService rdma,
            final ShmService shm,
            final BrokerMetricsMBean metrics,
            final BrokerNode node,
            final Optional<ClusterMembership> cluster) {
        this.config = config;
        this.partitions = partitions;
        this.offsets = offsets;
        this.coordinator = coordinator;
        this.soleTransactions = soleTransactions;
        this.delayedFetches = delayedFetches;
        this.server = server;
        this.rdma = rdma;
        this.shm = shm;
        this.metrics = metrics;
        this.node = node;
        this.cluster = cluster;
    }

    /**
     * Formats the metadata directory of a node of a cluster for its cluster id and node id (Kafka's {@code
     * kafka-storage format}); such a broker starts only on a formatted directory. Formatting one formatted already for
     * the same cluster and node changes nothing.
     *
     * @throws org.apache.kafka.common.config.ConfigException if {@code process.roles} is not set
     * @throws IllegalStateException if the directory was formatted for another cluster or node
     */
    public static void format(final BrokerConfig config) throws IOException {
        final ClusterSettings settings = ClusterSettings.from(config)
                .orElseThrow(() -> new ConfigException(
                        BrokerConfig.PROCESS_ROLES, "", "only a node of a cluster has a metadata directory to format"));
        ClusterMembership.format(settings);
    }

    /**
     * Recovers the logs, binds every listener and starts serving. A start that fails closes whatever it had started,
     * in reverse order, the metadata voter of a cluster node included.
     */
    public static Broker start(final BrokerConfig config) throws IOException, InterruptedException {
        final Set<String> unknown = config.unknownSettings();
        if (!unknown.isEmpty()) {
            LOG.warn("settings this broker does not know, ignored (see ./isthmus broker --help-config): {}", unknown);
        }
        final Map<String, String> logSettings = new HashMap<>(config.originalsStrings());
        logSettings.put(BrokerConfig.LOG_DIRS, String.join(",", config.getList(BrokerConfig.LOG_DIRS)));
        final Path metadataDir = config.logDirs().getFirst();
        // First, before anything opens: a broker whose ACLs or cluster settings cannot be read does not start.
        final Optional<AclAuthorizer> aclAuthorizer = config.aclAuthorizer(metadataDir);
        final Optional<ClusterSettings> clusterSettings = ClusterSettings.from(config);
        final StartedSoFar started = new StartedSoFar();
        try {
            final LogManager logs = LogManager.fromConfig(logSettings, InstantSource.system());
            if (clusterSettings.isPresent()) {
                // A cluster keeps transaction states in a replicated topic, whose logs must never expire.
                logs.configureTopic(
                        TransactionStateLog.TOPIC,
                        TransactionStateLog.logConfig(config.transactionStateLogSegmentBytes()));
                // And committed offsets, in theirs, which compact themselves the same way.
                logs.configureTopic(
                        GroupOffsetsLog.TOPIC, TransactionStateLog.logConfig(config.offsetsTopicSegmentBytes()));
            }
            final PartitionManager partitions = clusterSettings.isPresent()
                    ? PartitionManager.startForCluster(logs, TopicRegistry.open(metadataDir))
                    : PartitionManager.start(logs, TopicRegistry.open(metadataDir), config.maxBrokerPartitions());
            started.add(partitions::close);
            final Optional<ClusterMembership> cluster = clusterSettings.isPresent()
                    ? Optional.of(ClusterMembership.start(clusterSettings.get(), partitions))
                    : Optional.empty();
            cluster.ifPresent(c -> started.add(c::close));
            // A single broker keeps committed offsets in files of its own; a cluster in the replicated
            // __consumer_offsets topic, whose partition leaders coordinate the groups.
            final OffsetStore offsets = cluster.map(ClusterMembership::groupOffsets)
                    .orElseGet(() -> FileOffsetStore.open(metadataDir.resolve(OFFSETS_DIR)));
            started.add(offsets::close);
            final ProducerIds producerIds =
                    cluster.map(ClusterMembership::producerIds).orElseGet(() -> ProducerIdAllocator.open(metadataDir));
            final PartitionLeadership leadership =
                    cluster.map(ClusterMembership::leadership).orElse(PartitionLeadership.SOLE_BROKER);
            final GroupCoordinator coordinator = new GroupCoordinator(
                    offsets,
                    new GroupCoordinator.GroupSettings(
                            config.groupInitialRebalanceDelayMs(),
                            config.groupMinSessionTimeoutMs(),
                            config.groupMaxSessionTimeoutMs()));
            started.add(coordinator::close);
            cluster.ifPresent(c -> c.coordinateGroupsWith(coordinator));
            final ScheduledExecutorService delayedFetches = Executors.newSingleThreadScheduledExecutor(runnable -> {
                final Thread thread = new Thread(runnable, "isthmus-delayed-fetch");
                thread.setDaemon(true);
                return thread;
            });
            started.add(delayedFetches::shutdownNow);
            final BrokerNode node = new BrokerNode(config.nodeId(), config.clusterId());

            final TransactionCoordinator.Settings transactionSettings = new TransactionCoordinator.Settings(
                    config.transactionMaxTimeoutMs(),
                    config.transactionalIdExpirationMs(),
                    config.transactionAbortTimedOutIntervalMs(),
                    config.transactionRemoveExpiredIntervalMs());
            final Optional<TransactionCoordinator> soleTransactions;
            final TransactionCoordinators transactions;
            if (cluster.isPresent()) {
                final ClusterMembership membership = cluster.get();
                soleTransactions = Optional.empty();
                transactions = membership.startTransactions(new TransactionCoordinator.Context(
                        producerIds,
                        tp -> membership
                                .image()
                                .topic(tp.topic())
                                .filter(topic -> tp.partition() >= 0
                                        && tp.partition() < topic.partitions().size())
                                .isPresent(),
                        coordinator,
                        membership::groupOffsetsPartition,
                        transactionSettings,
                        InstantSource.system()));
            } else {
                final TransactionCoordinator sole = TransactionCoordinator.start(
                        metadataDir,
                        config.transactionStateLogSegmentBytes(),
                        logs.segmentIds(),
                        producerIds,
                        partitions,
                        coordinator,
                        transactionSettings,
                        InstantSource.system());
                started.add(sole::close);
                soleTransactions = Optional.of(sole);
                transactions = TransactionCoordinators.sole(sole);
            }

            final Authorizer authorizer = aclAuthorizer.<Authorizer>map(a -> a).orElse(Authorizer.ALLOW_ALL);
            final AccessControl access = new AccessControl(authorizer);
            // In a cluster, one-sided access (RDMA, shared memory) is the partition leader's to grant and ends with its
            // leader epoch; a batch produced through shared memory or RDMA with acks=all is answered once
            // min.insync.replicas hold it, as a Produce is.
            final LeaderAccess leaders = cluster.isPresent()
                    ? new LeaderAccess(leadership, config.minInsyncReplicas())
                    : LeaderAccess.SOLE_BROKER;
            final RdmaSettings rdmaSettings = RdmaSettings.from(config);
            final RdmaService rdma = RdmaService.start(
                    rdmaSettings,
                    partitions,
                    authorizer,
                    leaders,
                    cluster.map(ClusterMembership::pushAcceptance).orElse(PushAcceptance.NONE));
            started.add(rdma::close);
            if (rdma.isRunning() && config.getBoolean(BrokerConfig.RDMA_REPLICATION_PUSH)) {
                cluster.ifPresent(c -> c.enablePushReplication(
                        rdmaSettings.device(),
                        rdmaSettings.port(),
                        rdmaSettings.gidIndex(),
                        rdmaSettings.stagingSlotBytes()));
            }
            final ShmService shm = ShmService.start(ShmSettings.from(config), partitions, authorizer, leaders);
            started.add(shm::close);
            aclAuthorizer.ifPresent(acls -> acls.onChange(() -> {
                rdma.reauthorize();
                shm.reauthorize();
            }));
            final ScramCredentialStore scramCredentials = ScramCredentialStore.open(metadataDir);
            final Map<String, ListenerSecurity> listenerSecurity = config.listenerSecurity(scramCredentials);

            final CoordinatorLocator coordinators =
                    cluster.map(ClusterMembership::coordinators).orElseGet(() -> CoordinatorLocator.thisBroker(node));
            final MetadataView metadata = cluster.map(c -> c.metadataView(config.numPartitions()))
                    .orElseGet(() -> new SingleBrokerMetadata(partitions, node, config.numPartitions()));
            final AtomicReference<RequestRouter> router = new AtomicReference<>();
            final List<ApiHandler> handlers = new ArrayList<>(List.of(
                    new ApiVersionsHandler(
                            () -> shm.advertise(rdma.advertise(router.get().apiVersions()))),
                    new MetadataHandler(metadata, config.autoCreateTopics(), access),
                    new ProduceHandler(
                            partitions,
                            access,
                            leadership,
                            config.minInsyncReplicas(),
                            cluster.map(ClusterMembership::produceVerification).orElse(ProduceVerification.NONE)),
                    new FetchHandler(
                            partitions,
                            delayedFetches,
                            access,
                            leadership,
                            cluster.map(ClusterMembership::pushedReplicas).orElse(PushedReplicas.NONE)),
                    new ListOffsetsHandler(partitions, access, leadership),
                    new OffsetForLeaderEpochHandler(partitions, access, leadership),
                    cluster.map(c -> c.topicAdminHandler(config.numPartitions(), access))
                            .orElseGet(() -> new TopicAdminHandler(
                                    partitions, offsets, config.numPartitions(), config.nodeId(), access)),
                    new ProducerIdHandler(producerIds, transactions, access),
                    new TransactionHandler(transactions, access),
                    new GroupHandler(
                            coordinator,
                            cluster.map(ClusterMembership::transactionalOffsets)
                                    .orElseGet(() -> new CoordinatorHeldOffsets(soleTransactions.orElseThrow())),
                            partitions.topics(),
                            coordinators,
                            access),
                    new ClusterHandler(
                            node, metadata, partitions.topics(), brokerSettings(config), topicSettings(logs), access),
                    new ScramCredentialsHandler(scramCredentials, access),
                    new AclsHandler(aclAuthorizer, access)));
            // Moving partitions and their leaders is a cluster's: a single broker does not answer those APIs.
            cluster.ifPresent(c -> handlers.add(c.partitionAdminHandler(access)));
            // A cluster's transaction coordinators write their markers with WriteTxnMarkers to each partition's leader.
            cluster.ifPresent(c -> handlers.add(new WriteTxnMarkersHandler(
                    partitions,
                    leadership,
                    access,
                    config.minInsyncReplicas(),
                    WriteTxnMarkersHandler.REPLICATION_TIMEOUT_MS,
                    c.produceVerification(),
                    c.coordinatedPartitions())));
            router.set(new RequestRouter(handlers));

            final KafkaServer server = KafkaServer.start(
                    config.listeners(),
                    listenerSecurity,
                    config.networkThreads(),
                    config.connectionLimits(),
                    router.get(),
                    router.get(),
                    ControlRequestHandler.either(rdma.controlHandler(), shm.controlHandler()));
            started.add(server::close);
            final List<Endpoint> advertised = config.advertisedListeners();
            node.advertise(advertised.isEmpty() ? reachable(server.boundEndpoints()) : advertised);
            // Registered only now: a broker registers the endpoints its listeners are bound to.
            cluster.ifPresent(c -> c.join(node.endpoints().stream()
                    .map(e -> new BrokerEndpoint(
                            e.listenerName(),
                            e.host(),
                            e.port(),
                            listenerSecurity.get(e.listenerName()) == null
                                    ? SecurityProtocol.PLAINTEXT.id
                                    : listenerSecurity.get(e.listenerName()).protocol().id))
                    .toList()));
            final BrokerMetricsMBean metrics = BrokerMetricsMBean.register(server.metrics(), partitions);
            LOG.info(
                    "broker {} started: listeners={}, log.dirs={}",
                    config.nodeId(),
                    node.endpoints(),
                    config.logDirs());
            return new Broker(
                    config,
                    partitions,
                    offsets,
                    coordinator,
                    soleTransactions,
                    delayedFetches,
                    server,
                    rdma,
                    shm,
                    metrics,
                    node,
                    cluster);
        } catch (final Throwable e) {
            started.closeAll(e);
            throw e;
        }
    }

    /**
     * A broker for one process's own use: loopback only, on a free port, over {@code logDir}, with
     * {@code overrides} on top (Kafka-style keys). The demo and the tests start brokers this way.
     */
    public static Broker startEmbedded(final Path logDir, final Map<String, String> overrides)
            throws IOException, InterruptedException {
        final Map<String, String> settings = new HashMap<>();
        settings.put(BrokerConfig.LISTENERS, "PLAINTEXT://127.0.0.1:0");
        settings.put(BrokerConfig.LOG_DIRS, logDir.toString());
        settings.putAll(overrides);
        return start(BrokerConfig.of(settings));
    }

    /** What a start has opened so far, closed in reverse order if the start fails. */
    private static final class StartedSoFar {
        @FunctionalInterface
        interface Closer {
            void close() throws Exception;
        }

        private final java.util.ArrayDeque<Closer> closers = new java.util.ArrayDeque<>();

        void add(final Closer closer) {
            closers.push(closer);
        }

        /** Closes everything, most recent first; each failure is added to {@code cause}, none hides it. */
        void closeAll(final Throwable cause) {
            while (!closers.isEmpty()) {
                try {
                    closers.pop().close();
                } catch (final Exception e) {
                    if (e instanceof InterruptedException) {
                        Thread.currentThread().interrupt();
                    }
                    cause.addSuppressed(e);
                }
            }
        }
    }

    /** A listener bound to the wildcard address is advertised under this host's name. */
    private static List<Endpoint> reachable(final List<Endpoint> bound) {
        final List<Endpoint> reachable = new ArrayList<>();
        for (final Endpoint endpoint : bound) {
            if (endpoint.host().equals("0.0.0.0") || endpoint.host().equals("::")) {
                reachable.add(new Endpoint(endpoint.listenerName(), localHostName(), endpoint.port()));
            } else {
                reachable.add(endpoint);
            }
        }
        return reachable;
    }

    private static String localHostName() {
        try {
            return InetAddress.getLocalHost().getCanonicalHostName();
        } catch (final UnknownHostException e) {
            return "localhost";
        }
    }

    private static Map<String, String> brokerSettings(final BrokerConfig config) {
        final Map<String, String> settings = new HashMap<>();
        config.values().forEach((key, value) -> settings.put(key, String.valueOf(value)));
        // Settings the broker does not define (log.*, listener.name.*) as given, but never a secret: a JAAS entry holds
        // PLAIN passwords, and DescribeConfigs would show it to anyone.
        config.originalsStrings().forEach((key, value) -> {
            if (!key.endsWith("sasl.jaas.config") && !key.contains("password")) {
                settings.putIfAbsent(key, value);
            }
        });
        return settings;
    }

    /** Every topic has the broker's log settings, shown under Kafka's topic-level names. */
    private static Map<String, String> topicSettings(final LogManager logs) {
        final LogConfig log = logs.config();
        return Map.of(
                "segment.bytes", Integer.toString(log.segmentBytes()),
                "segment.ms", Long.toString(log.rollMs()),
                "retention.ms", Long.toString(log.retentionMs()),
                "retention.bytes", Long.toString(log.retentionBytes()),
                "index.interval.bytes", Integer.toString(log.indexIntervalBytes()),
                "flush.messages", Long.toString(log.flushMessages()),
                "flush.ms", Long.toString(log.flushMs()),
                "cleanup.policy", "delete",
                "message.timestamp.type", "CreateTime");
    }

    /** The listeners as clients should reach them. */
    public List<Endpoint> endpoints() {
        return node.endpoints();
    }

    /** {@code host:port} of the first listener, for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        final Endpoint first = node.endpoints().getFirst();
        return first.host() + ":" + first.port();
    }

    public PartitionManager partitions() {
        return partitions;
    }

    public KafkaServer server() {
        return server;
    }

    /** The RDMA datapaths: running, or off with the reason. */
    public RdmaService rdma() {
        return rdma;
    }

    /** The shared-memory datapath: running, or off with the reason. */
    public ShmService shm() {
        return shm;
    }

    public BrokerConfig config() {
        return config;
    }

    /** This broker's place in its cluster, if it is a node of one. */
    public Optional<ClusterMembership> cluster() {
        return cluster;
    }

    /**
     * Stops accepting, then closes groups, waiting fetches and finally the logs, cleanly. A node of a cluster first
     * shuts down under control (the quorum fences it at once and moves its leaderships away, while its listeners still
     * answer), and leaves the quorum after its listeners have closed, before its logs do.
     */
    @Override
    public void close() throws InterruptedException {
        LOG.info("broker {} shutting down", config.nodeId());
        metrics.close();
        if (cluster.isPresent()) {
            cluster.get().shutDown();
        }
        try {
            server.close();
            shm.close();
            rdma.close();
            if (soleTransactions.isPresent()) {
                soleTransactions.get().close();
            }
            coordinator.close();
            delayedFetches.shutdownNow();
            delayedFetches.awaitTermination(5, TimeUnit.SECONDS);
        } finally {
            try {
                if (cluster.isPresent()) {
                    leave(cluster.get());
                }
            } finally {
                partitions.close();
                offsets.close();
            }
        }
        LOG.info("broker {} shut down cleanly", config.nodeId());
    }

    private void leave(final ClusterMembership membership) throws InterruptedException {
        try {
            membership.close();
        } catch (final IOException e) {
            LOG.warn("broker {}: closing its metadata quorum voter failed", config.nodeId(), e);
        }
    }
}
