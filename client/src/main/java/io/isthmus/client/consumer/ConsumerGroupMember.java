package io.isthmus.client.consumer;

import io.isthmus.client.cluster.BrokerConnections;
import io.isthmus.client.cluster.ClusterMetadata;
import io.isthmus.client.cluster.CoordinatorClient;
import io.isthmus.client.cluster.TopicMetadata;
import io.isthmus.client.group.GroupOffsets;
import io.isthmus.client.network.ReceiveBufferPool;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Membership in a consumer group with Kafka's classic protocol: FindCoordinator, JoinGroup (protocol type "consumer",
 * the "range" protocol with subscriptions in Kafka's ConsumerProtocol format, so kafka-clients consumers can share the
 * group), SyncGroup (the leader computes the range assignment), Heartbeat on a background thread, OffsetCommit and
 * OffsetFetch, LeaveGroup on close.
 *
 * <p>All coordinator requests go through one connection under this object's lock, from the consumer's thread and the
 * heartbeat thread alike.
 */
final class ConsumerGroupMember implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerGroupMember.class);
    private static final String PROTOCOL_TYPE = ConsumerProtocol.PROTOCOL_TYPE;

    private final ConsumerConfig config;
    private final String groupId;
    private final ReceiveBufferPool pool = new ReceiveBufferPool(64 * 1024);
    private final BrokerConnections connections;
    private final ScheduledExecutorService heartbeats;
    private final ExecutorService commits;
    private final CoordinatorClient coordinator;
    private final GroupOffsets offsets;
    private String memberId = "";
    private int generationId = -1;
    /**
     * While this member leads the group: the partition count of every topic the members subscribe to (0: no such
     * topic) that its assignment was computed from; null otherwise. Consumer thread only.
     */
    private Map<String, Integer> assignedCounts;

    private long nextCountCheckNanos;
    private volatile boolean rejoinNeeded = true;
    private volatile boolean active;
    private volatile boolean closed;

    ConsumerGroupMember(final ConsumerConfig config, final List<InetSocketAddress> bootstrap) {
        this.config = config;
        this.groupId = config.groupId();
        this.connections = new BrokerConnections(
                bootstrap,
                config.clientId() + "-coordinator",
                pool,
                config.requestTimeout(),
                config.connectionSetupTimeout(),
                config.security(),
                config.socketBuffers());
        this.coordinator = CoordinatorClient.forGroup(connections, groupId, config.requestTimeout());
        this.offsets = new GroupOffsets(coordinator, connections);
        this.heartbeats = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform()
                .name("isthmus-heartbeat-" + config.clientId())
                .daemon(true)
                .unstarted(r));
        this.commits = heartbeats;
        heartbeats.scheduleWithFixedDelay(
                this::heartbeat, config.heartbeatIntervalMs(), config.heartbeatIntervalMs(), TimeUnit.MILLISECONDS);
    }

    /**
     * The group, generation and member id as this member last joined (generation -1 and "" outside the group), for a
     * transactional producer's offsets: the coordinator refuses them from a member of an older generation.
     */
    ConsumerGroupMetadata groupMetadata() {
        return new ConsumerGroupMetadata(groupId, generationId, memberId, Optional.empty());
    }

    boolean needsRejoin() {
        return rejoinNeeded;
    }

    void requestRejoin() {
        rejoinNeeded = true;
    }

    boolean isActive() {
        return active;
    }

    // ------------------------------------------------------------------ coordinator

    private ApiMessage coordinatorRequest(final ApiKeys apiKey, final ApiMessage body) {
        return coordinator.request(apiKey, body);
    }

    private void resetCoordinator() {
        coordinator.reset();
    }

    private static void pause(final long millis) {
        try {
            Thread.sleep(millis);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptException(e);
        }
    }

    // ------------------------------------------------------------------ join and sync

    /** Joins (or rejoins) the group and returns this member's partitions. Consumer thread. */
    List<TopicPartition> join(final Set<String> topics, final BrokerConnections metadataConnections) {
        final long deadline = System.nanoTime() + Math.max(config.maxPollIntervalMs(), 60_000) * 1_000_000L;
        final List<String> sortedTopics = new ArrayList<>(topics);
        sortedTopics.sort(null);
        final ByteBuffer subscription =
                ConsumerProtocol.serializeSubscription(new ConsumerPartitionAssignor.Subscription(sortedTopics));
        final byte[] metadata = new byte[subscription.remaining()];
        subscription.get(metadata);
        while (true) {
            if (System.nanoTime() - deadline > 0) {
                throw new TimeoutException("could not join group: group=" + groupId + ", memberId=" + memberId);
            }
            active = false;
            assignedCounts = null;
            final JoinGroupResponseData joined;
            try {
                joined = (JoinGroupResponseData) coordinatorRequest(
                        ApiKeys.JOIN_GROUP,
                        new JoinGroupRequestData()
                                .setGroupId(groupId)
                                .setSessionTimeoutMs(config.sessionTimeoutMs())
                                .setRebalanceTimeoutMs(config.maxPollIntervalMs())
                                .setMemberId(memberId)
                                .setGroupInstanceId(null)
                                .setProtocolType(PROTOCOL_TYPE)
                                .setProtocols(new JoinGroupRequestData.JoinGroupRequestProtocolCollection(
                                        List.of(new JoinGroupRequestData.JoinGroupRequestProtocol()
                                                        .setName(RangeAssignor.NAME)
                                                        .setMetadata(metadata))
                                                .iterator()))
                                .setReason("isthmus consumer joining"));
            } catch (final org.apache.kafka.common.errors.NetworkException | TimeoutException e) {
                LOG.debug("JoinGroup failed, retrying: group={}", groupId, e);
                pause(100);
                continue;
            }
            final Errors error = Errors.forCode(joined.errorCode());
            if (error == Errors.MEMBER_ID_REQUIRED) {
                memberId = joined.memberId();
                continue;
            }
            if (error == Errors.UNKNOWN_MEMBER_ID || error == Errors.ILLEGAL_GENERATION) {
                memberId = "";
                continue;
            }
            if (error == Errors.NOT_COORDINATOR || error == Errors.COORDINATOR_NOT_AVAILABLE) {
                resetCoordinator();
                pause(100);
                continue;
            }
            if (error == Errors.REBALANCE_IN_PROGRESS || error == Errors.COORDINATOR_LOAD_IN_PROGRESS) {
                pause(50);
                continue;
            }
            if (error != Errors.NONE) {
                throw error.exception(
                        "JoinGroup failed: group=" + groupId + ", memberId=" + memberId + ", error=" + error);
            }
            memberId = joined.memberId();
            generationId = joined.generationId();
            final List<SyncGroupRequestData.SyncGroupRequestAssignment> assignments = new ArrayList<>();
            if (memberId.equals(joined.leader()) && !joined.skipAssignment()) {
                assignments.addAll(leaderAssignment(joined, metadataConnections));
            }
            final SyncGroupResponseData synced;
            try {
                synced = (SyncGroupResponseData) coordinatorRequest(
                        ApiKeys.SYNC_GROUP,
                        new SyncGroupRequestData()
                                .setGroupId(groupId)
                                .setGenerationId(generationId)
                                .setMemberId(memberId)
                                .setGroupInstanceId(null)
                                .setProtocolType(PROTOCOL_TYPE)
                                .setProtocolName(RangeAssignor.NAME)
                                .setAssignments(assignments));
            } catch (final org.apache.kafka.common.errors.NetworkException | TimeoutException e) {
                LOG.debug("SyncGroup failed, rejoining: group={}", groupId, e);
                continue;
            }
            final Errors syncError = Errors.forCode(synced.errorCode());
            if (syncError == Errors.REBALANCE_IN_PROGRESS) {
                continue;
            }
            if (syncError == Errors.UNKNOWN_MEMBER_ID || syncError == Errors.ILLEGAL_GENERATION) {
                memberId = "";
                continue;
            }
            if (syncError == Errors.NOT_COORDINATOR || syncError == Errors.COORDINATOR_NOT_AVAILABLE) {
                resetCoordinator();
                continue;
            }
            if (syncError != Errors.NONE) {
                throw syncError.exception(
                        "SyncGroup failed: group=" + groupId + ", memberId=" + memberId + ", error=" + syncError);
            }
            final List<TopicPartition> partitions = new ArrayList<>();
            if (synced.assignment() != null && synced.assignment().length > 0) {
                final ConsumerPartitionAssignor.Assignment assignment =
                        ConsumerProtocol.deserializeAssignment(ByteBuffer.wrap(synced.assignment()));
                partitions.addAll(assignment.partitions());
            }
            rejoinNeeded = false;
            active = true;
            LOG.debug(
                    "joined group: group={}, memberId={}, generation={}, partitions={}",
                    groupId,
                    memberId,
                    generationId,
                    partitions);
            return partitions;
        }
    }

    private List<SyncGroupRequestData.SyncGroupRequestAssignment> leaderAssignment(
            final JoinGroupResponseData joined, final BrokerConnections metadataConnections) {
        final Map<String, List<String>> subscriptions = new HashMap<>();
        final java.util.Set<String> allTopics = new java.util.TreeSet<>();
        for (final JoinGroupResponseData.JoinGroupResponseMember member : joined.members()) {
            final ConsumerPartitionAssignor.Subscription s =
                    ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(member.metadata()));
            subscriptions.put(member.memberId(), s.topics());
            allTopics.addAll(s.topics());
        }
        final Map<String, Integer> counts = partitionCounts(allTopics, metadataConnections);
        assignedCounts = counts;
        nextCountCheckNanos = System.nanoTime() + config.metadataMaxAgeMs() * 1_000_000L;
        final List<SyncGroupRequestData.SyncGroupRequestAssignment> result = new ArrayList<>();
        for (final Map.Entry<String, List<TopicPartition>> e :
                RangeAssignor.assign(subscriptions, counts).entrySet()) {
            final ByteBuffer bytes =
                    ConsumerProtocol.serializeAssignment(new ConsumerPartitionAssignor.Assignment(e.getValue()));
            final byte[] array = new byte[bytes.remaining()];
            bytes.get(array);
            result.add(new SyncGroupRequestData.SyncGroupRequestAssignment()
                    .setMemberId(e.getKey())
                    .setAssignment(array));
        }
        return result;
    }

    /** The partition count of each of {@code topics} from fresh metadata; 0 for a topic the cluster does not have. */
    private static Map<String, Integer> partitionCounts(
            final Set<String> topics, final BrokerConnections metadataConnections) {
        final ClusterMetadata metadata = metadataConnections.refresh(topics);
        final Map<String, Integer> counts = new HashMap<>();
        for (final String topic : topics) {
            final TopicMetadata t = metadata.topic(topic);
            counts.put(topic, t != null && t.error() == Errors.NONE ? t.partitionCount() : 0);
        }
        return counts;
    }

    /**
     * While this member leads the group, every {@code metadata.max.age.ms}: asks for rejoining if a subscribed topic's
     * partition count is no longer the one the assignment was computed from (partitions were added, or the topic was
     * created or deleted), as Kafka's leader does, so that new partitions get an owner. Consumer thread.
     */
    void checkPartitionCounts(final BrokerConnections metadataConnections) {
        final Map<String, Integer> assigned = assignedCounts;
        if (assigned == null || rejoinNeeded || System.nanoTime() - nextCountCheckNanos < 0) {
            return;
        }
        nextCountCheckNanos = System.nanoTime() + config.metadataMaxAgeMs() * 1_000_000L;
        final Map<String, Integer> current;
        try {
            current = partitionCounts(assigned.keySet(), metadataConnections);
        } catch (final RuntimeException e) {
            // The fetch path notices an unreachable broker on its own; this check simply runs again next time.
            LOG.debug("partition count check failed: group={}, memberId={}", groupId, memberId, e);
            return;
        }
        if (!current.equals(assigned)) {
            LOG.info(
                    "rejoining group to assign changed topics: group={}, memberId={}, partitions assigned from={}, now={}",
                    groupId,
                    memberId,
                    assigned,
                    current);
            rejoinNeeded = true;
        }
    }

    // ------------------------------------------------------------------ heartbeat

    private void heartbeat() {
        if (closed || !active) {
            return;
        }
        try {
            final HeartbeatResponseData response = (HeartbeatResponseData) coordinatorRequest(
                    ApiKeys.HEARTBEAT,
                    new HeartbeatRequestData()
                            .setGroupId(groupId)
                            .setGenerationId(generationId)
                            .setMemberId(memberId));
            final Errors error = Errors.forCode(response.errorCode());
            switch (error) {
                case NONE -> {}
                case REBALANCE_IN_PROGRESS -> rejoinNeeded = true;
                case UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, FENCED_INSTANCE_ID -> {
                    memberId = error == Errors.UNKNOWN_MEMBER_ID ? "" : memberId;
                    rejoinNeeded = true;
                    active = false;
                }
                case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> resetCoordinator();
                default -> LOG.warn("heartbeat error: group={}, memberId={}, error={}", groupId, memberId, error);
            }
        } catch (final RuntimeException e) {
            LOG.debug("heartbeat failed: group={}", groupId, e);
        }
    }

    // ------------------------------------------------------------------ offsets

    void commit(final Map<TopicPartition, Long> offsets, final Map<String, Uuid> knownTopicIds) {
        try {
            this.offsets.commit(offsets, knownTopicIds, active ? generationId : -1, active ? memberId : "");
        } catch (final RebalanceInProgressException | UnknownMemberIdException | IllegalGenerationException e) {
            rejoinNeeded = true;
            throw e;
        }
    }

    void commitAsync(
            final Map<TopicPartition, Long> offsets,
            final Map<String, Uuid> topicIds,
            final OffsetCommitCallback callback) {
        commits.execute(() -> {
            Exception failure = null;
            try {
                commit(offsets, topicIds);
            } catch (final RuntimeException e) {
                failure = e;
                LOG.debug("async commit failed: group={}", groupId, e);
            }
            if (callback != null) {
                callback.onComplete(offsets, failure);
            }
        });
    }

    /** Committed offsets of these partitions; partitions without one are absent. */
    Map<TopicPartition, Long> fetchCommitted(
            final Set<TopicPartition> partitions, final Map<String, Uuid> knownTopicIds) {
        return offsets.fetch(partitions, knownTopicIds, true);
    }

    // ------------------------------------------------------------------ leave

    void leave(final String reason) {
        if (memberId.isEmpty()) {
            return;
        }
        try {
            coordinatorRequest(
                    ApiKeys.LEAVE_GROUP,
                    new LeaveGroupRequestData()
                            .setGroupId(groupId)
                            .setMembers(List.of(new LeaveGroupRequestData.MemberIdentity()
                                    .setMemberId(memberId)
                                    .setGroupInstanceId(null)
                                    .setReason(reason))));
        } catch (final RuntimeException e) {
            LOG.debug("LeaveGroup failed: group={}, memberId={}", groupId, memberId, e);
        }
        memberId = "";
        generationId = -1;
        active = false;
        rejoinNeeded = true;
    }

    void close(final Duration timeout) {
        closed = true;
        heartbeats.shutdown();
        try {
            heartbeats.awaitTermination(Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        leave("consumer closing");
        close();
    }

    @Override
    public synchronized void close() {
        closed = true;
        heartbeats.shutdownNow();
        resetCoordinator();
        connections.close();
        pool.close();
    }
}
