package io.isthmus.broker.cluster;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

import io.isthmus.broker.api.AccessControl;
import io.isthmus.broker.api.ApiHandler;
import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.Response;
import io.isthmus.metadata.image.ClusterImage;
import io.isthmus.metadata.image.PartitionState;
import io.isthmus.metadata.image.TopicImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignableTopicResponse;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData.OngoingPartitionReassignment;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData.OngoingTopicReassignment;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.ElectLeadersRequest;
import org.apache.kafka.common.requests.ListPartitionReassignmentsRequest;

/**
 * AlterPartitionReassignments, ListPartitionReassignments and ElectLeaders on a broker of a cluster: what {@code
 * kafka-reassign-partitions.sh}, {@code kafka-leader-election.sh} and {@code Admin} send to move partitions and their
 * leaders. Moves and elections are forwarded to the metadata quorum, which carries them out as Kafka's controller does
 * (KIP-455: the target replicas join, catch up and enter the ISR before the replicas that leave are dropped); the
 * reassignments in progress are answered from this broker's image. Each needs the cluster permission Kafka asks for:
 * ALTER to move or elect, DESCRIBE to list.
 */
final class ClusterPartitionAdminHandler implements ApiHandler {
    private final ClusterMembership membership;
    private final AccessControl access;

    ClusterPartitionAdminHandler(final ClusterMembership membership, final AccessControl access) {
        this.membership = membership;
        this.access = access;
    }

    @Override
    public Set<ApiKeys> apiKeys() {
        return Set.of(
                ApiKeys.ALTER_PARTITION_REASSIGNMENTS, ApiKeys.LIST_PARTITION_REASSIGNMENTS, ApiKeys.ELECT_LEADERS);
    }

    @Override
    public CompletableFuture<Response> handle(final RequestContext context, final AbstractRequest request) {
        return switch (request) {
            case AlterPartitionReassignmentsRequest alter ->
                reassign(context, alter.data()).thenApply(Response::of);
            case ListPartitionReassignmentsRequest list ->
                CompletableFuture.completedFuture(Response.of(list(context, list.data())));
            case ElectLeadersRequest elect -> elect(context, elect.data()).thenApply(Response::of);
            default -> throw new IllegalArgumentException("not a partition request: " + request.apiKey());
        };
    }

    private CompletableFuture<AlterPartitionReassignmentsResponseData> reassign(
            final RequestContext context, final AlterPartitionReassignmentsRequestData data) {
        if (!access.allowsOnCluster(context, AclOperation.ALTER)) {
            return CompletableFuture.completedFuture(reassignRefused(data, Errors.CLUSTER_AUTHORIZATION_FAILED, null));
        }
        return membership
                .controller()
                .alterPartitionReassignments(data)
                .orTimeout(QuorumForwarding.timeoutOf(data.timeoutMs()), MILLISECONDS)
                .handle((answer, failure) -> answer != null
                        ? answer
                        : reassignRefused(data, QuorumForwarding.errorOf(failure), QuorumForwarding.reason(failure)));
    }

    /** Every partition of the request answered {@code error}, and the request as a whole too, as Kafka does. */
    private static AlterPartitionReassignmentsResponseData reassignRefused(
            final AlterPartitionReassignmentsRequestData data, final Errors error, final String message) {
        final AlterPartitionReassignmentsResponseData response = new AlterPartitionReassignmentsResponseData()
                .setErrorCode(error.code())
                .setErrorMessage(message == null ? error.message() : message);
        for (final AlterPartitionReassignmentsRequestData.ReassignableTopic topic : data.topics()) {
            final ReassignableTopicResponse answer = new ReassignableTopicResponse().setName(topic.name());
            for (final AlterPartitionReassignmentsRequestData.ReassignablePartition partition : topic.partitions()) {
                answer.partitions()
                        .add(new ReassignablePartitionResponse()
                                .setPartitionIndex(partition.partitionIndex())
                                .setErrorCode(error.code())
                                .setErrorMessage(message == null ? error.message() : message));
            }
            response.responses().add(answer);
        }
        return response;
    }

    /**
     * The reassignments in progress, from this broker's image: of every topic when the request names none (null), as
     * Kafka reads it, otherwise of the partitions it names that are being moved (others, and unknown ones, are left
     * out, as Kafka leaves them out).
     */
    private ListPartitionReassignmentsResponseData list(
            final RequestContext context, final ListPartitionReassignmentsRequestData data) {
        if (!access.allowsOnCluster(context, AclOperation.DESCRIBE)) {
            return new ListPartitionReassignmentsResponseData()
                    .setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code())
                    .setErrorMessage(Errors.CLUSTER_AUTHORIZATION_FAILED.message());
        }
        final ClusterImage image = membership.image();
        final ListPartitionReassignmentsResponseData response = new ListPartitionReassignmentsResponseData();
        if (data.topics() == null) {
            for (final TopicImage topic : image.topics().values()) {
                final List<Integer> all = new ArrayList<>();
                for (int p = 0; p < topic.partitions().size(); p++) {
                    all.add(p);
                }
                addOngoing(response, topic, all);
            }
        } else {
            for (final ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics named : data.topics()) {
                image.topic(named.name()).ifPresent(topic -> addOngoing(response, topic, named.partitionIndexes()));
            }
        }
        return response;
    }

    private static void addOngoing(
            final ListPartitionReassignmentsResponseData response,
            final TopicImage topic,
            final List<Integer> indexes) {
        final OngoingTopicReassignment ongoing = new OngoingTopicReassignment().setName(topic.name());
        for (final int index : indexes) {
            if (index < 0 || index >= topic.partitions().size()) {
                continue;
            }
            final PartitionState partition = topic.partition(index);
            if (partition.isReassigning()) {
                ongoing.partitions()
                        .add(new OngoingPartitionReassignment()
                                .setPartitionIndex(index)
                                .setReplicas(partition.replicas())
                                .setAddingReplicas(partition.addingReplicas())
                                .setRemovingReplicas(partition.removingReplicas()));
            }
        }
        if (!ongoing.partitions().isEmpty()) {
            response.topics().add(ongoing);
        }
    }

    private CompletableFuture<ElectLeadersResponseData> elect(
            final RequestContext context, final ElectLeadersRequestData data) {
        final short version = context.apiVersion();
        if (!access.allowsOnCluster(context, AclOperation.ALTER)) {
            return CompletableFuture.completedFuture(
                    electRefused(data, version, Errors.CLUSTER_AUTHORIZATION_FAILED, null));
        }
        return membership
                .controller()
                .electLeaders(data)
                .orTimeout(QuorumForwarding.timeoutOf(data.timeoutMs()), MILLISECONDS)
                .handle((answer, failure) -> answer != null
                        ? answer
                        : electRefused(
                                data, version, QuorumForwarding.errorOf(failure), QuorumForwarding.reason(failure)));
    }

    /**
     * Every named partition answered {@code error}, as Kafka does; the request as a whole too from version 1, which
     * has the field (version 0 cannot carry it, and a request for all partitions then gets no result).
     */
    private static ElectLeadersResponseData electRefused(
            final ElectLeadersRequestData data, final short version, final Errors error, final String message) {
        final ElectLeadersResponseData response = new ElectLeadersResponseData();
        if (version >= 1) {
            response.setErrorCode(error.code());
        }
        if (data.topicPartitions() != null) {
            for (final ElectLeadersRequestData.TopicPartitions topic : data.topicPartitions()) {
                final ElectLeadersResponseData.ReplicaElectionResult result =
                        new ElectLeadersResponseData.ReplicaElectionResult().setTopic(topic.topic());
                for (final int partition : topic.partitions()) {
                    result.partitionResult()
                            .add(new ElectLeadersResponseData.PartitionResult()
                                    .setPartitionId(partition)
                                    .setErrorCode(error.code())
                                    .setErrorMessage(message == null ? error.message() : message));
                }
                response.replicaElectionResults().add(result);
            }
        }
        return response;
    }
}
