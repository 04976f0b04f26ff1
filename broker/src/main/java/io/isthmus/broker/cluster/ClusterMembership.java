package io.isthmus.broker.cluster;

import io.isthmus.broker.api.AccessControl;
import io.isthmus.broker.api.ApiHandler;
import io.isthmus.broker.api.CoordinatorLocator;
import io.isthmus.broker.api.MetadataView;
import io.isthmus.broker.api.ProduceVerification;
import io.isthmus.broker.api.WriteTxnMarkersHandler;
import io.isthmus.broker.config.ClusterSettings;
import io.isthmus.broker.group.GroupCoordinator;
import io.isthmus.broker.group.GroupOffsetsLog;
import io.isthmus.broker.group.OffsetStore;
import io.isthmus.broker.group.TransactionalOffsets;
import io.isthmus.broker.partition.PartitionLeadership;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.producer.ProducerIds;
import io.isthmus.broker.replication.PushAcceptance;
import io.isthmus.broker.replication.PushedReplicas;
import io.isthmus.broker.replication.ReplicaFetchers;
import io.isthmus.broker.replication.ReplicaPushers;
import io.isthmus.broker.replication.ReplicationSettings;
import io.isthmus.broker.transaction.TransactionCoordinator;
import io.isthmus.broker.transaction.TransactionCoordinators;
import io.isthmus.metadata.broker.BrokerIdentity;
import io.isthmus.metadata.broker.BrokerLifecycle;
import io.isthmus.metadata.image.BrokerEndpoint;
import io.isthmus.metadata.image.ClusterImage;
import io.isthmus.metadata.quorum.MetadataNode;
import io.isthmus.metadata.quorum.QuorumClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This broker as a node of a cluster: its part in the metadata quorum ({@link MetadataNode}: a voter, or a broker-only
 * observer), its registration and heartbeats ({@link BrokerLifecycle}), and the partitions it holds, kept in line with
 * the metadata ({@link PartitionHosting}).
 *
 * <p>Started in two steps, because a broker registers the endpoints its listeners are bound to: {@link #start} runs
 * the metadata node and the hosting before the listeners open, {@link #join} registers once they have. Closed in
 * reverse: a controlled shutdown first (the quorum moves this broker's leaderships away at once), then the hosting,
 * then the metadata node.
 */
public final class ClusterMembership implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterMembership.class);
    private static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(5);
    private static final int REPLICA_REQUEST_TIMEOUT_MS = 30_000;
    /** A WriteTxnMarkers leader waits up to 10 s for its replicas; the coordinator waits a little longer. */
    private static final Duration MARKER_TIMEOUT = Duration.ofSeconds(15);

    private final ClusterSettings settings;
    private final MetadataNode metadata;
    private final PartitionHosting hosting;
    private final ReplicaFetchers fetchers;
    private final ReplicaPushers pushers;
    private final PartitionManager partitions;
    private final QuorumProducerIds producerIds = new QuorumProducerIds(this);
    private volatile BrokerLifecycle lifecycle;
    private final GroupOffsetPartitions groupOffsets;
    private volatile TransactionStatePartitions transactions;
    private volatile TransactionVerification verification;
    private volatile BrokerChannels channels;
    private boolean closed;

    private ClusterMembership(
            final ClusterSettings settings, final MetadataNode metadata, final PartitionManager partitions) {
        this.settings = settings;
        this.metadata = metadata;
        this.partitions = partitions;
        this.groupOffsets = new GroupOffsetPartitions(this, partitions, settings.groupOffsets());
        this.fetchers = new ReplicaFetchers(settings.nodeId(), this::replicationAddress, replicationSettings(settings));
        this.pushers = new ReplicaPushers(settings.nodeId(), this::replicationAddress);
        // The broker's own registration is the first log entry known to be newer than this process: its partitions
        // follow the metadata only once the voter has applied that far.
        this.hosting = new PartitionHosting(
                settings.nodeId(),
                partitions,
                groupOffsets,
                this::brokerEpoch,
                fetchers,
                pushers,
                new QuorumIsrChanges(this),
                settings.replicaLagTimeMax().toMillis());
        hosting.afterEachImage(groupOffsets::onPartitionsApplied);
    }

    private static ReplicationSettings replicationSettings(final ClusterSettings settings) {
        return new ReplicationSettings(
                (int) settings.replicaFetchWaitMax().toMillis(),
                settings.replicaFetchMaxBytes(),
                REPLICA_REQUEST_TIMEOUT_MS,
                settings.replicaLagTimeMax().toMillis());
    }

    /** Where a follower reaches broker {@code id}: its first PLAINTEXT listener (replication does not authenticate). */
    private Optional<InetSocketAddress> replicationAddress(final int id) {
        return image().broker(id).flatMap(broker -> broker.endpoints().stream()
                .filter(e -> e.securityProtocol() == SecurityProtocol.PLAINTEXT.id)
                .findFirst()
                .map(e -> new InetSocketAddress(e.host(), e.port())));
    }

    /**
     * Formats this node's metadata directory for its cluster and node id (Kafka's {@code kafka-storage format}); a node
     * starts only on a formatted directory. Formatting again for the same cluster and node changes nothing.
     *
     * @throws IllegalStateException if the directory was formatted for another cluster or node
     */
    public static void format(final ClusterSettings settings) throws IOException {
        MetadataNode.format(settings.quorum());
    }

    /**
     * Starts this node's part in the metadata quorum (a voter, or an observer for {@code process.roles=broker}) and
     * begins applying the cluster's metadata to {@code partitions}.
     *
     * @throws IllegalStateException if the metadata directory is not formatted (see {@link #format}), or if this node
     *     never started in a cluster but its log directories hold topics: those are a single broker's, whose ids the
     *     cluster does not know, and following the cluster's metadata would delete them
     */
    public static ClusterMembership start(final ClusterSettings settings, final PartitionManager partitions)
            throws IOException {
        if (!MetadataNode.startedBefore(settings.quorum())
                && !partitions.topics().topics().isEmpty()) {
            throw new IllegalStateException(
                    "log.dirs hold " + partitions.topics().topics().size() + " topics of a"
                            + " single broker; a node joining a cluster for the first time starts on empty log directories"
                            + " (it would delete these, which the cluster does not know)");
        }
        final MetadataNode metadata = MetadataNode.start(settings.quorum());
        final ClusterMembership membership = new ClusterMembership(settings, metadata, partitions);
        metadata.addListener(membership.hosting::offer);
        return membership;
    }

    /** Registers this broker with the endpoints its listeners are bound to, and heartbeats from now on. */
    public synchronized void join(final List<BrokerEndpoint> endpoints) {
        if (lifecycle != null) {
            throw new IllegalStateException("broker " + settings.nodeId() + " has joined its cluster already");
        }
        final BrokerLifecycle joining = new BrokerLifecycle(
                metadata.controller(),
                new BrokerIdentity(settings.nodeId(), settings.clusterId(), endpoints, null),
                settings.heartbeatInterval(),
                settings.sessionTimeout(),
                hosting::appliedIndex,
                System::nanoTime);
        lifecycle = joining;
        joining.start();
    }

    public int nodeId() {
        return settings.nodeId();
    }

    public ClusterSettings settings() {
        return settings;
    }

    /** The newest metadata this node has. */
    public ClusterImage image() {
        return metadata.image();
    }

    /** The voter that leads the quorum, as this node knows it: Kafka's "controller". */
    public OptionalInt controllerId() {
        return metadata.leaderId();
    }

    /** Who leads each partition: the metadata's leader, while this broker's session is alive. */
    public PartitionLeadership leadership() {
        return new ImageLeadership(this);
    }

    /** Producer ids from blocks the quorum hands out, unique across the cluster. */
    public ProducerIds producerIds() {
        return producerIds;
    }

    /** Metadata answers from the quorum's image; auto-created topics get {@code defaultPartitions}. */
    public MetadataView metadataView(final int defaultPartitions) {
        return new ImageMetadata(this, defaultPartitions, settings.defaultReplicationFactor());
    }

    /**
     * Starts coordinating the transactions of the {@code __transaction_state} partitions this broker leads, as their
     * leadership comes and goes; once, before {@link #join}. The coordinators are closed with this membership.
     */
    public synchronized TransactionCoordinators startTransactions(final TransactionCoordinator.Context context) {
        if (transactions != null) {
            throw new IllegalStateException("broker " + settings.nodeId() + " coordinates transactions already");
        }
        channels = new BrokerChannels("broker-" + settings.nodeId() + "-transactions", this::replicationAddress);
        final TransactionStatePartitions started = new TransactionStatePartitions(
                this,
                partitions,
                context,
                settings.transactionState(),
                new ClusterMarkerWriter(this::image, channels, MARKER_TIMEOUT));
        transactions = started;
        verification = new TransactionVerification(settings.nodeId(), started::coordinatorId, channels);
        partitions.verifyTransactionsWith(verification);
        groupOffsets.verifyTransactionsWith(verification);
        final TransactionVerification verifying = verification;
        hosting.afterEachImage(image -> verifying.retainLedBy(image, settings.nodeId()));
        hosting.afterEachImage(started::onPartitionsApplied);
        return started;
    }

    /**
     * What this broker, as a partition leader, asks a transaction's coordinator before the transaction's batches
     * enter a partition (once {@link #startTransactions} ran; nothing before).
     */
    public ProduceVerification produceVerification() {
        final TransactionVerification started = verification;
        return started == null ? ProduceVerification.NONE : started;
    }

    /** Whether a leader may push its batches into a replica here over RDMA: while this broker follows it, in line. */
    public PushAcceptance pushAcceptance() {
        return fetchers;
    }

    /** Which followers take which partitions led here by RDMA push now (their fetches then carry no records). */
    public PushedReplicas pushedReplicas() {
        return pushers;
    }

    /**
     * Pushes the partitions this broker leads to their followers over RDMA from now on (see {@link ReplicaPushers});
     * called once the broker's RDMA datapath runs, before the broker joins its cluster.
     */
    public void enablePushReplication(final String device, final int port, final int gidIndex, final int frameBytes) {
        // A follower that does not answer is given up well before replica.lag.time.max.ms would drop it from the ISR:
        // its fetches then carry the records again.
        final long timeoutMs = Math.min(
                REPLICA_REQUEST_TIMEOUT_MS, settings.replicaLagTimeMax().toMillis() / 2);
        pushers.enable(device, port, gidIndex, Math.max(1, timeoutMs), frameBytes);
    }

    /**
     * The committed offsets of consumer groups, in the replicated {@code __consumer_offsets} topic: this broker holds
     * those of the partitions it leads. The caller closes it, after this membership.
     */
    public OffsetStore groupOffsets() {
        return groupOffsets;
    }

    /**
     * Where offsets committed in transactions wait for their transaction to end: in the groups' {@code
     * __consumer_offsets} partitions, written by their coordinators (this broker for those it leads).
     */
    public TransactionalOffsets transactionalOffsets() {
        return groupOffsets;
    }

    /** The {@code __consumer_offsets} partition of a group, which joins a transaction that commits its offsets. */
    public Optional<TopicPartition> groupOffsetsPartition(final String groupId) {
        return Optional.of(groupOffsets.partitionOf(groupId));
    }

    /**
     * The partitions whose markers their coordinator must see as it writes them: those of {@code __consumer_offsets},
     * whose group coordinator applies or drops the offsets a transaction committed there.
     */
    public WriteTxnMarkersHandler.CoordinatedPartitions coordinatedPartitions() {
        return (partition, marker, producerId, producerEpoch, commit) ->
                partition.topic().equals(GroupOffsetsLog.TOPIC)
                        ? Optional.of(groupOffsets.writeMarker(
                                partition.partition(), marker, producerId, producerEpoch, commit))
                        : Optional.empty();
    }

    /**
     * Makes {@code coordinator} this broker's group coordinator: it answers only for the groups of the {@code
     * __consumer_offsets} partitions this broker leads, and forgets those of a partition whose leadership moves away,
     * so their members find the new coordinator; it writes each group's settled membership to the group's partition,
     * and restores the groups of a partition this broker is elected to lead from what is written there.
     */
    public void coordinateGroupsWith(final GroupCoordinator coordinator) {
        coordinator.coordinateOnly(groupId -> groupOffsets.coordination(groupId) == Errors.NONE);
        groupOffsets.forgetGroupsWith(coordinator::forgetGroups);
        coordinator.persistMembershipWith(groupOffsets::storeMembership);
        groupOffsets.restoreGroupsWith(coordinator::restore);
    }

    /**
     * The coordinators of consumer groups and of transactional ids: the leaders of their partitions of {@code
     * __consumer_offsets} and of {@code __transaction_state} (once {@link #startTransactions} ran).
     */
    public CoordinatorLocator coordinators() {
        return new ClusterCoordinators(groupOffsets, () -> Optional.ofNullable(transactions));
    }

    /** CreateTopics, CreatePartitions and DeleteTopics, forwarded to the quorum. */
    public ApiHandler topicAdminHandler(final int defaultPartitions, final AccessControl access) {
        return new ClusterTopicAdminHandler(this, defaultPartitions, access);
    }

    /** AlterPartitionReassignments, ListPartitionReassignments and ElectLeaders, forwarded to the quorum. */
    public ApiHandler partitionAdminHandler(final AccessControl access) {
        return new ClusterPartitionAdminHandler(this, access);
    }

    /** The way to the quorum's leader, for the controller requests brokers forward to it. */
    public QuorumClient controller() {
        return metadata.controller();
    }

    /**
     * Whether this broker may lead now: registered, unfenced at its last heartbeat, and that heartbeat younger than
     * its session. False before {@link #join}.
     */
    public boolean isActive() {
        final BrokerLifecycle current = lifecycle;
        return current != null && current.isActive();
    }

    /** This registration's broker epoch, or -1 before the quorum answered it. */
    public long brokerEpoch() {
        final BrokerLifecycle current = lifecycle;
        return current == null ? -1 : current.brokerEpoch();
    }

    /** Waits until this broker is active: registered, caught up with the metadata, unfenced. */
    public void awaitActive(final Duration timeout) throws InterruptedException, TimeoutException {
        final BrokerLifecycle current = lifecycle;
        if (current == null) {
            throw new IllegalStateException("broker " + settings.nodeId() + " has not joined its cluster");
        }
        current.awaitActive(timeout);
    }

    /**
     * Controlled shutdown: stops heartbeating and asks the quorum to fence this broker now, so its leaderships move
     * before it goes rather than a session later. The voter keeps running until {@link #close}.
     */
    public void shutDown() throws InterruptedException {
        final BrokerLifecycle current = lifecycle;
        if (current != null) {
            current.shutDown(SHUTDOWN_WAIT);
        }
    }

    /**
     * Shuts down under control if that has not happened, then stops applying metadata and closes the metadata node.
     * Closes once; a second call (a failed start closing what it started) does nothing. The metadata node is closed
     * even if the steps before it are interrupted.
     */
    @Override
    public synchronized void close() throws IOException, InterruptedException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            shutDown();
            hosting.close();
            final TransactionStatePartitions started = transactions;
            if (started != null) {
                started.close();
                verification.close();
                channels.close();
            }
        } finally {
            metadata.close();
            LOG.info("broker {} left its cluster", settings.nodeId());
        }
    }
}
