package io.isthmus.broker.api;

import io.isthmus.broker.group.CommittedOffset;
import io.isthmus.broker.group.GroupCoordinator;
import io.isthmus.broker.group.GroupCoordinator.GroupDescription;
import io.isthmus.broker.group.GroupCoordinator.JoinRequest;
import io.isthmus.broker.group.GroupCoordinator.MemberDescription;
import io.isthmus.broker.group.JoinResult;
import io.isthmus.broker.group.TransactionalOffsets;
import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.Response;
import io.isthmus.broker.topic.TopicRegistry;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The classic consumer-group APIs, translated between Kafka's messages and the {@link GroupCoordinator}, with
 * TxnOffsetCommit (offsets committed in a transaction, held by {@link TransactionalOffsets} until it ends) and
 * FindCoordinator for both groups and transactional ids, whose coordinators the {@link CoordinatorLocator} finds.
 */
public final class GroupHandler implements ApiHandler {
    private static final byte GROUP_KEY_TYPE = CoordinatorLocator.GROUP;
    private static final byte TRANSACTION_KEY_TYPE = CoordinatorLocator.TRANSACTION;
    /** JoinGroup answers may carry a null protocol name from this version on. */
    private static final short NULLABLE_PROTOCOL_NAME_VERSION = 7;
    /** The first TxnOffsetCommit version that knows PRODUCER_FENCED (KIP-588). */
    private static final int TXN_OFFSET_COMMIT_FIRST_VERSION_WITH_PRODUCER_FENCED = 3;
    /**
     * Kafka's {@code offset.metadata.max.bytes} default: a commit's metadata string longer than this (counted in
     * characters, as Kafka does) is answered OFFSET_METADATA_TOO_LARGE.
     */
    static final int OFFSET_METADATA_MAX_BYTES = 4096;

    private final GroupCoordinator coordinator;
    private final TransactionalOffsets transactionalOffsets;
    private final TopicRegistry topics;
    private final CoordinatorLocator coordinators;
    private final AccessControl access;

    /** A single broker's handler: it coordinates every group and transactional id. */
    public GroupHandler(
            final GroupCoordinator coordinator,
            final TransactionalOffsets transactionalOffsets,
            final TopicRegistry topics,
            final BrokerNode node,
            final AccessControl access) {
        this(coordinator, transactionalOffsets, topics, CoordinatorLocator.thisBroker(node), access);
    }

    public GroupHandler(
            final GroupCoordinator coordinator,
            final TransactionalOffsets transactionalOffsets,
            final TopicRegistry topics,
            final CoordinatorLocator coordinators,
            final AccessControl access) {
        this.coordinator = coordinator;
        this.transactionalOffsets = transactionalOffsets;
        this.topics = topics;
        this.coordinators = coordinators;
        this.access = access;
    }

    @Override
    public Set<ApiKeys> apiKeys() {
        return Set.of(
                ApiKeys.FIND_COORDINATOR,
                ApiKeys.JOIN_GROUP,
                ApiKeys.SYNC_GROUP,
                ApiKeys.HEARTBEAT,
                ApiKeys.LEAVE_GROUP,
                ApiKeys.OFFSET_COMMIT,
                ApiKeys.OFFSET_FETCH,
                ApiKeys.TXN_OFFSET_COMMIT,
                ApiKeys.DESCRIBE_GROUPS,
                ApiKeys.LIST_GROUPS);
    }

    @Override
    public CompletableFuture<Response> handle(final RequestContext context, final AbstractRequest request) {
        final String group = singleGroupOf(request);
        final Errors coordination = group == null ? Errors.NONE : coordinators.coordination(GROUP_KEY_TYPE, group);
        if (coordination != Errors.NONE) {
            return done(request.getErrorResponse(0, coordination.exception()).data());
        }
        return switch (request) {
            case FindCoordinatorRequest find -> done(findCoordinator(context, find));
            case JoinGroupRequest join ->
                mayRead(context, join.data().groupId())
                        ? join(context, join)
                        : done(joinResponse(
                                JoinResult.error(
                                        Errors.GROUP_AUTHORIZATION_FAILED,
                                        join.data().memberId()),
                                context.apiVersion()));
            case SyncGroupRequest sync ->
                mayRead(context, sync.data().groupId())
                        ? sync(sync)
                        : done(new SyncGroupResponseData()
                                .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())
                                .setAssignment(new byte[0]));
            case HeartbeatRequest heartbeat ->
                done(new HeartbeatResponseData()
                        .setErrorCode(
                                mayRead(context, heartbeat.data().groupId())
                                        ? coordinator
                                                .heartbeat(
                                                        heartbeat.data().groupId(),
                                                        heartbeat.data().generationId(),
                                                        heartbeat.data().memberId())
                                                .code()
                                        : Errors.GROUP_AUTHORIZATION_FAILED.code()));
            case LeaveGroupRequest leave ->
                done(
                        mayRead(context, leave.data().groupId())
                                ? leave(leave)
                                : new LeaveGroupResponseData().setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()));
            case OffsetCommitRequest commit -> commit(context, commit).thenApply(Response::of);
            case OffsetFetchRequest fetch -> done(fetchOffsets(context, fetch));
            case TxnOffsetCommitRequest commit ->
                transactionalCommit(context, commit).thenApply(Response::of);
            case DescribeGroupsRequest describe -> done(describe(context, describe));
            case ListGroupsRequest list -> done(list(context));
            default -> throw new IllegalArgumentException("not a group request: " + request.apiKey());
        };
    }

    private FindCoordinatorResponseData findCoordinator(
            final RequestContext context, final FindCoordinatorRequest find) {
        final FindCoordinatorResponseData response = new FindCoordinatorResponseData();
        final byte keyType = find.data().keyType();
        if (context.apiVersion() < 4) {
            final CoordinatorLocator.Located found =
                    locate(context, keyType, find.data().key());
            response.setErrorCode(found.error().code())
                    .setNodeId(found.nodeId())
                    .setHost(found.host())
                    .setPort(found.port());
            // Version 0 has no error message field; otherwise the field keeps its default unless there is a message.
            if (found.message() != null && context.apiVersion() > 0) {
                response.setErrorMessage(found.message());
            }
            return response;
        }
        for (final String key : find.data().coordinatorKeys()) {
            final CoordinatorLocator.Located found = locate(context, keyType, key);
            final FindCoordinatorResponseData.Coordinator coordinator = new FindCoordinatorResponseData.Coordinator()
                    .setKey(key)
                    .setErrorCode(found.error().code())
                    .setNodeId(found.nodeId())
                    .setHost(found.host())
                    .setPort(found.port());
            if (found.message() != null) {
                coordinator.setErrorMessage(found.message());
            }
            response.coordinators().add(coordinator);
        }
        return response;
    }

    private CoordinatorLocator.Located locate(final RequestContext context, final byte keyType, final String key) {
        if (keyType != GROUP_KEY_TYPE && keyType != TRANSACTION_KEY_TYPE) {
            // Share groups (KIP-932) are not served.
            return CoordinatorLocator.Located.none(Errors.COORDINATOR_NOT_AVAILABLE, null);
        }
        final Errors refused = coordinatorRefusal(context, keyType, key);
        return refused != Errors.NONE
                ? CoordinatorLocator.Located.none(refused, null)
                : coordinators.locate(keyType, key, context.listenerName());
    }

    /**
     * The one group a request is about, or null for none or several (a batched OffsetFetch, DescribeGroups and
     * ListGroups are answered by whatever this broker coordinates).
     */
    private static String singleGroupOf(final AbstractRequest request) {
        return switch (request) {
            case JoinGroupRequest r -> r.data().groupId();
            case SyncGroupRequest r -> r.data().groupId();
            case HeartbeatRequest r -> r.data().groupId();
            case LeaveGroupRequest r -> r.data().groupId();
            case OffsetCommitRequest r -> r.data().groupId();
            case TxnOffsetCommitRequest r -> r.data().groupId();
            case OffsetFetchRequest r ->
                r.data().groups().isEmpty()
                        ? r.data().groupId()
                        : r.data().groups().size() == 1
                                ? r.data().groups().getFirst().groupId()
                                : null;
            default -> null;
        };
    }

    /** Kafka's rule: finding a coordinator needs DESCRIBE on the group or the transactional id. */
    private Errors coordinatorRefusal(final RequestContext context, final byte keyType, final String key) {
        if (keyType == GROUP_KEY_TYPE) {
            return access.allows(context, AclOperation.DESCRIBE, ResourceType.GROUP, key)
                    ? Errors.NONE
                    : Errors.GROUP_AUTHORIZATION_FAILED;
        }
        return access.allows(context, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, key)
                ? Errors.NONE
                : Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    }

    /** Joining, syncing, heartbeating, leaving and committing need READ on the group. */
    private boolean mayRead(final RequestContext context, final String groupId) {
        return access.allows(context, AclOperation.READ, ResourceType.GROUP, groupId);
    }

    private boolean mayReadTopic(final RequestContext context, final String topic) {
        return access.allows(context, AclOperation.READ, ResourceType.TOPIC, topic);
    }

    private boolean mayDescribeTopic(final RequestContext context, final String topic) {
        return access.allows(context, AclOperation.DESCRIBE, ResourceType.TOPIC, topic);
    }

    private CompletableFuture<Response> join(final RequestContext context, final JoinGroupRequest join) {
        final var data = join.data();
        final Map<String, byte[]> protocols = new LinkedHashMap<>();
        data.protocols().forEach(protocol -> protocols.put(protocol.name(), protocol.metadata()));
        final String clientHost = context.clientAddress() instanceof InetSocketAddress address
                ? "/" + address.getAddress().getHostAddress()
                : String.valueOf(context.clientAddress());
        final JoinRequest request = new JoinRequest(
                data.groupId(),
                data.memberId(),
                data.groupInstanceId(),
                context.clientId(),
                clientHost,
                data.sessionTimeoutMs(),
                context.apiVersion() == 0 ? data.sessionTimeoutMs() : data.rebalanceTimeoutMs(),
                data.protocolType(),
                protocols,
                context.apiVersion() >= 4);
        final short version = context.apiVersion();
        return coordinator.join(request).thenApply(result -> Response.of(joinResponse(result, version)));
    }

    /**
     * The JoinGroup answer. A failed join has no protocol: versions before 7 cannot carry a null protocol name and get
     * an empty one, as Kafka sends them, and the strings that are never null on the wire are empty when unknown.
     */
    private static JoinGroupResponseData joinResponse(final JoinResult result, final short version) {
        final String protocolName =
                result.protocolName() == null && version < NULLABLE_PROTOCOL_NAME_VERSION ? "" : result.protocolName();
        final JoinGroupResponseData response = new JoinGroupResponseData()
                .setErrorCode(result.error().code())
                .setGenerationId(result.generationId())
                .setProtocolType(result.protocolType())
                .setProtocolName(protocolName)
                .setLeader(result.leaderId() == null ? "" : result.leaderId())
                .setMemberId(result.memberId() == null ? "" : result.memberId());
        for (final JoinResult.Member member : result.members()) {
            response.members()
                    .add(new JoinGroupResponseData.JoinGroupResponseMember()
                            .setMemberId(member.memberId())
                            .setGroupInstanceId(member.groupInstanceId())
                            .setMetadata(member.metadata()));
        }
        return response;
    }

    private CompletableFuture<Response> sync(final SyncGroupRequest sync) {
        final var data = sync.data();
        final Map<String, byte[]> assignments = new HashMap<>();
        data.assignments().forEach(a -> assignments.put(a.memberId(), a.assignment()));
        return coordinator
                .sync(data.groupId(), data.generationId(), data.memberId(), assignments)
                .thenApply(result -> Response.of(new SyncGroupResponseData()
                        .setErrorCode(result.error().code())
                        .setProtocolType(result.protocolType())
                        .setProtocolName(result.protocolName())
                        .setAssignment(result.assignment())));
    }

    private LeaveGroupResponseData leave(final LeaveGroupRequest leave) {
        final List<LeaveGroupRequestData.MemberIdentity> identities = leave.members();
        final List<String> memberIds = new ArrayList<>();
        identities.forEach(identity -> memberIds.add(identity.memberId()));
        final List<Errors> outcomes = coordinator.leave(leave.data().groupId(), memberIds);
        final LeaveGroupResponseData response = new LeaveGroupResponseData();
        if (leave.version() < 3) {
            return response.setErrorCode(outcomes.getFirst().code());
        }
        for (int i = 0; i < identities.size(); i++) {
            response.members()
                    .add(new LeaveGroupResponseData.MemberResponse()
                            .setMemberId(identities.get(i).memberId())
                            .setGroupInstanceId(identities.get(i).groupInstanceId())
                            .setErrorCode(outcomes.get(i).code()));
        }
        return response;
    }

    /**
     * OffsetCommit: answered once the offsets are durable (in a cluster, held by the in-sync replicas of the group's
     * {@code __consumer_offsets} partition), off this network thread meanwhile.
     */
    private CompletableFuture<OffsetCommitResponseData> commit(
            final RequestContext context, final OffsetCommitRequest commit) {
        final OffsetCommitRequestData data = commit.data();
        final boolean groupAllowed = mayRead(context, data.groupId());
        final long now = System.currentTimeMillis();
        final Map<TopicPartition, CommittedOffset> offsets = new LinkedHashMap<>();
        final OffsetCommitResponseData response = new OffsetCommitResponseData();
        final List<OffsetCommitResponseData.OffsetCommitResponsePartition> accepted = new ArrayList<>();
        for (final OffsetCommitRequestData.OffsetCommitRequestTopic topic : data.topics()) {
            final Optional<TopicRegistry.TopicInfo> known = resolve(topic.name(), topic.topicId());
            final OffsetCommitResponseData.OffsetCommitResponseTopic topicResponse =
                    new OffsetCommitResponseData.OffsetCommitResponseTopic()
                            .setName(topic.name())
                            .setTopicId(topic.topicId());
            response.topics().add(topicResponse);
            for (final OffsetCommitRequestData.OffsetCommitRequestPartition partition : topic.partitions()) {
                final OffsetCommitResponseData.OffsetCommitResponsePartition partitionResponse =
                        new OffsetCommitResponseData.OffsetCommitResponsePartition()
                                .setPartitionIndex(partition.partitionIndex());
                topicResponse.partitions().add(partitionResponse);
                if (!groupAllowed) {
                    partitionResponse.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code());
                    continue;
                }
                if (known.isPresent() && !mayReadTopic(context, known.get().name())) {
                    partitionResponse.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                    continue;
                }
                if (known.isEmpty() || partition.partitionIndex() >= known.get().partitions()) {
                    partitionResponse.setErrorCode((Uuid.ZERO_UUID.equals(topic.topicId())
                                    ? Errors.UNKNOWN_TOPIC_OR_PARTITION
                                    : Errors.UNKNOWN_TOPIC_ID)
                            .code());
                    continue;
                }
                if (partition.committedMetadata() != null
                        && partition.committedMetadata().length() > OFFSET_METADATA_MAX_BYTES) {
                    partitionResponse.setErrorCode(Errors.OFFSET_METADATA_TOO_LARGE.code());
                    continue;
                }
                offsets.put(
                        new TopicPartition(known.get().name(), partition.partitionIndex()),
                        new CommittedOffset(
                                partition.committedOffset(),
                                partition.committedLeaderEpoch(),
                                partition.committedMetadata() == null ? "" : partition.committedMetadata(),
                                now));
                accepted.add(partitionResponse);
            }
        }
        if (offsets.isEmpty()) {
            return CompletableFuture.completedFuture(response);
        }
        return coordinator
                .commitOffsets(data.groupId(), data.generationIdOrMemberEpoch(), data.memberId(), offsets)
                .thenApply(outcome -> {
                    accepted.forEach(p -> p.setErrorCode(outcome.code()));
                    return response;
                });
    }

    /**
     * TxnOffsetCommit: the committing member is checked as for OffsetCommit, then the offsets join the producer's
     * transaction; the group sees them only if it commits.
     */
    private CompletableFuture<TxnOffsetCommitResponseData> transactionalCommit(
            final RequestContext context, final TxnOffsetCommitRequest commit) {
        final TxnOffsetCommitRequestData data = commit.data();
        // Kafka's order: WRITE on the transactional id, READ on the group, READ on each topic.
        final Errors refused =
                !access.allows(context, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, data.transactionalId())
                        ? Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
                        : !mayRead(context, data.groupId()) ? Errors.GROUP_AUTHORIZATION_FAILED : null;
        final long now = System.currentTimeMillis();
        final Map<TopicPartition, CommittedOffset> offsets = new LinkedHashMap<>();
        final TxnOffsetCommitResponseData response = new TxnOffsetCommitResponseData();
        final List<TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition> accepted = new ArrayList<>();
        for (final TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic topic : data.topics()) {
            final Optional<TopicRegistry.TopicInfo> known = resolve(topic.name(), topic.topicId());
            final TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic topicResponse =
                    new TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic()
                            .setName(topic.name())
                            .setTopicId(topic.topicId());
            response.topics().add(topicResponse);
            for (final TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition partition : topic.partitions()) {
                final TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition partitionResponse =
                        new TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition()
                                .setPartitionIndex(partition.partitionIndex());
                topicResponse.partitions().add(partitionResponse);
                if (refused != null) {
                    partitionResponse.setErrorCode(refused.code());
                    continue;
                }
                if (known.isPresent() && !mayReadTopic(context, known.get().name())) {
                    partitionResponse.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                    continue;
                }
                if (known.isEmpty() || partition.partitionIndex() >= known.get().partitions()) {
                    partitionResponse.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                    continue;
                }
                offsets.put(
                        new TopicPartition(known.get().name(), partition.partitionIndex()),
                        new CommittedOffset(
                                partition.committedOffset(),
                                partition.committedLeaderEpoch(),
                                partition.committedMetadata() == null ? "" : partition.committedMetadata(),
                                now));
                accepted.add(partitionResponse);
            }
        }
        if (offsets.isEmpty()) {
            return CompletableFuture.completedFuture(response);
        }
        final Errors committer = coordinator.checkTransactionalCommitter(
                data.groupId(), data.generationIdOrMemberEpoch(), data.memberId());
        final CompletableFuture<Errors> outcome = committer != Errors.NONE
                ? CompletableFuture.completedFuture(committer)
                : transactionalOffsets.stage(
                        data.transactionalId(), data.producerId(), data.producerEpoch(), data.groupId(), offsets);
        return outcome.thenApply(error -> {
            final Errors answer = TransactionHandler.fencedFor(
                    error, commit.version(), TXN_OFFSET_COMMIT_FIRST_VERSION_WITH_PRODUCER_FENCED);
            accepted.forEach(p -> p.setErrorCode(answer.code()));
            return response;
        });
    }

    private OffsetFetchResponseData fetchOffsets(final RequestContext context, final OffsetFetchRequest fetch) {
        final OffsetFetchRequestData data = fetch.data();
        final OffsetFetchResponseData response = new OffsetFetchResponseData();
        if (context.apiVersion() >= 8) {
            for (final OffsetFetchRequestData.OffsetFetchRequestGroup group : data.groups()) {
                final OffsetFetchResponseData.OffsetFetchResponseGroup groupResponse =
                        new OffsetFetchResponseData.OffsetFetchResponseGroup().setGroupId(group.groupId());
                if (!access.allows(context, AclOperation.DESCRIBE, ResourceType.GROUP, group.groupId())) {
                    response.groups().add(groupResponse.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()));
                    continue;
                }
                final Errors coordinated = coordinators.coordination(GROUP_KEY_TYPE, group.groupId());
                final Set<TopicPartition> unstable;
                final Map<TopicPartition, CommittedOffset> committed;
                try {
                    if (coordinated != Errors.NONE) {
                        throw coordinated.exception();
                    }
                    unstable = unstableFor(data.requireStable(), group.groupId());
                    committed = coordinator.committedOffsets(group.groupId());
                } catch (final ApiException notHere) {
                    // A batch may name groups coordinated elsewhere: each of those is answered on its own.
                    response.groups()
                            .add(groupResponse.setErrorCode(
                                    Errors.forException(notHere).code()));
                    continue;
                }
                if (group.topics() == null) {
                    forEachCommittedTopic(committed, (name, partitions) -> {
                        if (mayDescribeTopic(context, name)) {
                            groupResponse.topics().add(groupTopic(name, topicId(name), partitions, committed));
                        }
                    });
                    markUnstable(unstable, groupResponse.topics());
                } else {
                    for (final OffsetFetchRequestData.OffsetFetchRequestTopics topic : group.topics()) {
                        final Optional<TopicRegistry.TopicInfo> known = resolve(topic.name(), topic.topicId());
                        final String name =
                                known.map(TopicRegistry.TopicInfo::name).orElse(topic.name());
                        final OffsetFetchResponseData.OffsetFetchResponseTopics answer =
                                groupTopic(name, topic.topicId(), topic.partitionIndexes(), committed);
                        if (known.isEmpty() && !Uuid.ZERO_UUID.equals(topic.topicId())) {
                            answer.partitions().forEach(p -> p.setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()));
                        } else if (!mayDescribeTopic(context, name)) {
                            answer.partitions().forEach(p -> p.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                                    .setCommittedOffset(-1)
                                    .setCommittedLeaderEpoch(-1)
                                    .setMetadata(""));
                        }
                        groupResponse.topics().add(answer);
                    }
                    markUnstable(unstable, groupResponse.topics());
                }
                response.groups().add(groupResponse);
            }
            return response;
        }
        if (!access.allows(context, AclOperation.DESCRIBE, ResourceType.GROUP, data.groupId())) {
            // Versions before 2 have no top-level error: each requested partition carries it.
            if (data.topics() != null) {
                for (final OffsetFetchRequestData.OffsetFetchRequestTopic topic : data.topics()) {
                    final OffsetFetchResponseData.OffsetFetchResponseTopic answer =
                            legacyTopic(topic.name(), topic.partitionIndexes(), Map.of());
                    answer.partitions().forEach(p -> p.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()));
                    response.topics().add(answer);
                }
            }
            return context.apiVersion() >= 2
                    ? response.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())
                    : response;
        }
        final Set<TopicPartition> unstable = unstableFor(data.requireStable(), data.groupId());
        final Map<TopicPartition, CommittedOffset> committed;
        try {
            committed = coordinator.committedOffsets(data.groupId());
        } catch (final ApiException notHere) {
            // Leadership of the group's offsets moved since the request was let in.
            return (OffsetFetchResponseData) fetch.getErrorResponse(notHere).data();
        }
        if (data.topics() == null) {
            forEachCommittedTopic(committed, (name, partitions) -> {
                if (mayDescribeTopic(context, name)) {
                    response.topics().add(legacyTopic(name, partitions, committed));
                }
            });
        } else {
            for (final OffsetFetchRequestData.OffsetFetchRequestTopic topic : data.topics()) {
                final boolean described = mayDescribeTopic(context, topic.name());
                final OffsetFetchResponseData.OffsetFetchResponseTopic answer =
                        legacyTopic(topic.name(), topic.partitionIndexes(), described ? committed : Map.of());
                if (!described) {
                    answer.partitions().forEach(p -> p.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
                }
                response.topics().add(answer);
            }
        }
        if (!unstable.isEmpty()) {
            for (final OffsetFetchResponseData.OffsetFetchResponseTopic topic : response.topics()) {
                for (final OffsetFetchResponseData.OffsetFetchResponsePartition partition : topic.partitions()) {
                    if (unstable.contains(new TopicPartition(topic.name(), partition.partitionIndex()))) {
                        partition
                                .setErrorCode(Errors.UNSTABLE_OFFSET_COMMIT.code())
                                .setCommittedOffset(-1);
                    }
                }
            }
        }
        return response;
    }

    /**
     * With {@code require_stable} (a read_committed consumer, KIP-447), the partitions whose offset a transaction not
     * ended yet may still change; taken before the committed offsets are read (see {@link
     * TransactionalOffsets#pending}).
     */
    private Set<TopicPartition> unstableFor(final boolean requireStable, final String groupId) {
        return requireStable ? transactionalOffsets.pending(groupId) : Set.of();
    }

    /** Answers the {@code unstable} partitions UNSTABLE_OFFSET_COMMIT, and the consumer asks again. */
    private static void markUnstable(
            final Set<TopicPartition> unstable,
            final List<OffsetFetchResponseData.OffsetFetchResponseTopics> answered) {
        for (final OffsetFetchResponseData.OffsetFetchResponseTopics topic : answered) {
            for (final OffsetFetchResponseData.OffsetFetchResponsePartitions partition : topic.partitions()) {
                if (partition.errorCode() == Errors.NONE.code()
                        && unstable.contains(new TopicPartition(topic.name(), partition.partitionIndex()))) {
                    partition.setErrorCode(Errors.UNSTABLE_OFFSET_COMMIT.code()).setCommittedOffset(-1);
                }
            }
        }
    }

    private static void forEachCommittedTopic(
            final Map<TopicPartition, CommittedOffset> committed,
            final java.util.function.BiConsumer<String, List<Integer>> action) {
        final Map<String, List<Integer>> byTopic = new LinkedHashMap<>();
        committed.keySet().forEach(tp -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>())
                .add(tp.partition()));
        byTopic.forEach(action);
    }

    private static OffsetFetchResponseData.OffsetFetchResponseTopics groupTopic(
            final String name,
            final Uuid topicId,
            final List<Integer> partitions,
            final Map<TopicPartition, CommittedOffset> committed) {
        final OffsetFetchResponseData.OffsetFetchResponseTopics topic =
                new OffsetFetchResponseData.OffsetFetchResponseTopics()
                        .setName(name)
                        .setTopicId(topicId);
        for (final int partition : partitions) {
            final CommittedOffset offset = committed.get(new TopicPartition(name, partition));
            topic.partitions()
                    .add(new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                            .setPartitionIndex(partition)
                            .setCommittedOffset(offset == null ? -1 : offset.offset())
                            .setCommittedLeaderEpoch(offset == null ? -1 : offset.leaderEpoch())
                            .setMetadata(offset == null ? "" : offset.metadata()));
        }
        return topic;
    }

    private static OffsetFetchResponseData.OffsetFetchResponseTopic legacyTopic(
            final String name, final List<Integer> partitions, final Map<TopicPartition, CommittedOffset> committed) {
        final OffsetFetchResponseData.OffsetFetchResponseTopic topic =
                new OffsetFetchResponseData.OffsetFetchResponseTopic().setName(name);
        for (final int partition : partitions) {
            final CommittedOffset offset = committed.get(new TopicPartition(name, partition));
            topic.partitions()
                    .add(new OffsetFetchResponseData.OffsetFetchResponsePartition()
                            .setPartitionIndex(partition)
                            .setCommittedOffset(offset == null ? -1 : offset.offset())
                            .setCommittedLeaderEpoch(offset == null ? -1 : offset.leaderEpoch())
                            .setMetadata(offset == null ? "" : offset.metadata()));
        }
        return topic;
    }

    private DescribeGroupsResponseData describe(final RequestContext context, final DescribeGroupsRequest describe) {
        final DescribeGroupsResponseData response = new DescribeGroupsResponseData();
        for (final String groupId : describe.data().groups()) {
            if (!access.allows(context, AclOperation.DESCRIBE, ResourceType.GROUP, groupId)) {
                response.groups()
                        .add(new DescribeGroupsResponseData.DescribedGroup()
                                .setGroupId(groupId)
                                .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())
                                .setGroupState("")
                                .setProtocolType("")
                                .setProtocolData(""));
                continue;
            }
            final Errors coordinated = coordinators.coordination(GROUP_KEY_TYPE, groupId);
            if (coordinated != Errors.NONE) {
                // A batch may name groups coordinated elsewhere: each of those is answered on its own.
                response.groups()
                        .add(new DescribeGroupsResponseData.DescribedGroup()
                                .setGroupId(groupId)
                                .setErrorCode(coordinated.code())
                                .setGroupState("")
                                .setProtocolType("")
                                .setProtocolData(""));
                continue;
            }
            final GroupDescription group = coordinator.describe(groupId);
            final DescribeGroupsResponseData.DescribedGroup described = new DescribeGroupsResponseData.DescribedGroup()
                    .setGroupId(groupId)
                    .setGroupState(stateName(group))
                    .setProtocolType(group.protocolType())
                    .setProtocolData(group.protocolName());
            if (describe.data().includeAuthorizedOperations()) {
                described.setAuthorizedOperations(access.authorizedOperations(context, ResourceType.GROUP, groupId));
            }
            for (final MemberDescription member : group.members()) {
                described
                        .members()
                        .add(new DescribeGroupsResponseData.DescribedGroupMember()
                                .setMemberId(member.memberId())
                                .setGroupInstanceId(member.groupInstanceId())
                                .setClientId(member.clientId())
                                .setClientHost(member.clientHost())
                                .setMemberMetadata(member.metadata())
                                .setMemberAssignment(member.assignment()));
            }
            response.groups().add(described);
        }
        return response;
    }

    /** As Kafka: every group for DESCRIBE on the cluster, else those the principal may describe. */
    private ListGroupsResponseData list(final RequestContext context) {
        final ListGroupsResponseData response = new ListGroupsResponseData();
        final boolean all = access.allowsOnCluster(context, AclOperation.DESCRIBE);
        for (final GroupDescription group : coordinator.listGroups()) {
            if (!all && !access.allows(context, AclOperation.DESCRIBE, ResourceType.GROUP, group.groupId())) {
                continue;
            }
            if (coordinators.coordination(GROUP_KEY_TYPE, group.groupId()) != Errors.NONE) {
                // Each broker lists the groups it coordinates; a client asks them all (Kafka's ListGroups).
                continue;
            }
            response.groups()
                    .add(new ListGroupsResponseData.ListedGroup()
                            .setGroupId(group.groupId())
                            .setProtocolType(group.protocolType())
                            .setGroupState(stateName(group))
                            .setGroupType("classic"));
        }
        return response;
    }

    /** Kafka's names for the classic group states. */
    private static String stateName(final GroupDescription group) {
        return switch (group.state()) {
            case EMPTY -> "Empty";
            case PREPARING_REBALANCE -> "PreparingRebalance";
            case COMPLETING_REBALANCE -> "CompletingRebalance";
            case STABLE -> "Stable";
        };
    }

    private Optional<TopicRegistry.TopicInfo> resolve(final String name, final Uuid topicId) {
        if (topicId != null && !Uuid.ZERO_UUID.equals(topicId)) {
            return topics.byId(topicId);
        }
        return topics.byName(name);
    }

    private Uuid topicId(final String name) {
        return topics.byName(name).map(TopicRegistry.TopicInfo::id).orElse(Uuid.ZERO_UUID);
    }

    private static CompletableFuture<Response> done(final org.apache.kafka.common.protocol.ApiMessage body) {
        return CompletableFuture.completedFuture(Response.of(body));
    }
}
