package io.isthmus.metadata.controller;

import io.isthmus.metadata.image.BrokerRegistration;
import io.isthmus.metadata.image.PartitionState;
import io.isthmus.metadata.image.TopicImage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.function.Supplier;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignableTopicResponse;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.ElectLeadersResponseData.PartitionResult;
import org.apache.kafka.common.message.ElectLeadersResponseData.ReplicaElectionResult;
import org.apache.kafka.common.protocol.Errors;

/** Changes to one partition's ISR, replicas or leader, asked for by its leader or by an administrator. */
final class PartitionCommands {
    private final ClusterState state;

    PartitionCommands(ClusterState state) {
        this.state = state;
    }

    /** A partition leader's new ISR; completes a reassignment whose target it brings in sync. */
    AlterPartitionResponseData alterPartition(AlterPartitionRequestData request) {
        AlterPartitionResponseData answer = new AlterPartitionResponseData();
        BrokerRegistration requester = state.brokers.get(request.brokerId());
        if (requester == null || requester.epoch() != request.brokerEpoch()) {
            return answer.setErrorCode(Errors.STALE_BROKER_EPOCH.code());
        }
        for (AlterPartitionRequestData.TopicData t : request.topics()) {
            AlterPartitionResponseData.TopicData topicAnswer =
                    new AlterPartitionResponseData.TopicData().setTopicId(t.topicId());
            answer.topics().add(topicAnswer);
            TopicImage topic = state.topicById(t.topicId());
            for (AlterPartitionRequestData.PartitionData p : t.partitions()) {
                AlterPartitionResponseData.PartitionData partitionAnswer =
                        new AlterPartitionResponseData.PartitionData().setPartitionIndex(p.partitionIndex());
                topicAnswer.partitions().add(partitionAnswer);
                if (topic == null) {
                    partitionAnswer.setErrorCode(Errors.UNKNOWN_TOPIC_ID.code());
                    continue;
                }
                if (p.partitionIndex() < 0
                        || p.partitionIndex() >= topic.partitions().size()) {
                    partitionAnswer.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                    continue;
                }
                PartitionState now = state.topics.get(topic.name()).partition(p.partitionIndex());
                Errors error = alterPartitionError(request.brokerId(), now, p);
                if (error == Errors.NONE) {
                    now = PartitionReassignment.maybeComplete(now.withIsr(requestedIsr(p)), state::isUnfenced);
                    state.replacePartition(topic, p.partitionIndex(), now);
                }
                partitionAnswer
                        .setErrorCode(error.code())
                        .setLeaderId(now.leader())
                        .setLeaderEpoch(now.leaderEpoch())
                        .setIsr(now.isr())
                        .setPartitionEpoch(now.partitionEpoch());
            }
        }
        return answer;
    }

    /** Kafka's checks on an ISR change, in Kafka's order. */
    private Errors alterPartitionError(int requester, PartitionState now, AlterPartitionRequestData.PartitionData p) {
        if (now.leader() != requester) {
            return Errors.NOT_LEADER_OR_FOLLOWER;
        }
        if (p.leaderEpoch() != now.leaderEpoch()) {
            return Errors.FENCED_LEADER_EPOCH;
        }
        if (p.partitionEpoch() != now.partitionEpoch()) {
            return Errors.INVALID_UPDATE_VERSION;
        }
        List<Integer> isr = requestedIsr(p);
        if (!isr.contains(requester) || new HashSet<>(isr).size() != isr.size()) {
            return Errors.INVALID_REQUEST;
        }
        for (AlterPartitionRequestData.BrokerState member : p.newIsrWithEpochs()) {
            int id = member.brokerId();
            boolean joining = !now.isr().contains(id);
            boolean eligible = now.replicas().contains(id)
                    && state.isUnfenced(id)
                    && (!joining
                            || member.brokerEpoch() < 0
                            || state.brokers.get(id).epoch() == member.brokerEpoch());
            if (!eligible) {
                return Errors.INELIGIBLE_REPLICA;
            }
        }
        for (int id : p.newIsr()) {
            if (!now.replicas().contains(id) || !state.isUnfenced(id)) {
                return Errors.INELIGIBLE_REPLICA;
            }
        }
        return Errors.NONE;
    }

    private static List<Integer> requestedIsr(AlterPartitionRequestData.PartitionData p) {
        if (!p.newIsrWithEpochs().isEmpty()) {
            return p.newIsrWithEpochs().stream()
                    .map(AlterPartitionRequestData.BrokerState::brokerId)
                    .toList();
        }
        return List.copyOf(p.newIsr());
    }

    /** Starts, replaces or (with null replicas) cancels partition reassignments (KIP-455). */
    AlterPartitionReassignmentsResponseData alterPartitionReassignments(
            AlterPartitionReassignmentsRequestData request) {
        AlterPartitionReassignmentsResponseData answer = new AlterPartitionReassignmentsResponseData()
                .setAllowReplicationFactorChange(request.allowReplicationFactorChange());
        for (ReassignableTopic t : request.topics()) {
            ReassignableTopicResponse topicAnswer = new ReassignableTopicResponse().setName(t.name());
            answer.responses().add(topicAnswer);
            for (ReassignablePartition p : t.partitions()) {
                ReassignablePartitionResponse partitionAnswer =
                        new ReassignablePartitionResponse().setPartitionIndex(p.partitionIndex());
                topicAnswer.partitions().add(partitionAnswer);
                try {
                    reassign(t.name(), p, request.allowReplicationFactorChange());
                } catch (MetadataRequestException e) {
                    partitionAnswer.setErrorCode(e.error.code()).setErrorMessage(e.getMessage());
                }
            }
        }
        return answer;
    }

    private void reassign(String topicName, ReassignablePartition p, boolean allowReplicationFactorChange) {
        TopicImage topic = state.topics.get(topicName);
        if (topic == null
                || p.partitionIndex() < 0
                || p.partitionIndex() >= topic.partitions().size()) {
            throw new MetadataRequestException(
                    Errors.UNKNOWN_TOPIC_OR_PARTITION,
                    "partition " + p.partitionIndex() + " of topic " + topicName + " does not exist");
        }
        String where = "partition " + p.partitionIndex() + " of topic " + topicName;
        PartitionState now = topic.partition(p.partitionIndex());
        PartitionState next;
        if (p.replicas() == null) {
            if (!now.isReassigning()) {
                throw new MetadataRequestException(
                        Errors.NO_REASSIGNMENT_IN_PROGRESS, where + " is not being reassigned");
            }
            next = movedOrRefused(where, () -> PartitionReassignment.cancel(now, state::isUnfenced));
        } else {
            state.checkReplicas(where, p.replicas(), -1);
            if (!allowReplicationFactorChange
                    && p.replicas().size() != now.targetReplicas().size()) {
                throw new MetadataRequestException(
                        Errors.INVALID_REPLICATION_FACTOR,
                        where + " has "
                                + now.targetReplicas().size() + " replicas; moving it to " + p.replicas()
                                + " would change that, which the request does not allow");
            }
            next = movedOrRefused(where, () -> PartitionReassignment.start(now, p.replicas(), state::isUnfenced));
        }
        state.replacePartition(topic, p.partitionIndex(), next);
    }

    /** A move (or its cancellation) that would leave no in-sync replica is refused, as Kafka refuses it. */
    private static PartitionState movedOrRefused(String where, Supplier<PartitionState> move) {
        try {
            return move.get();
        } catch (IllegalArgumentException e) {
            throw new MetadataRequestException(Errors.INVALID_REPLICA_ASSIGNMENT, where + ": " + e.getMessage());
        }
    }

    /**
     * Moves leadership back to each partition's preferred replica (the first), if it is in sync and unfenced. An
     * unclean election is refused: isthmus never elects an out-of-sync replica.
     */
    ElectLeadersResponseData electLeaders(ElectLeadersRequestData request) {
        ElectLeadersResponseData answer = new ElectLeadersResponseData();
        boolean preferred = request.electionType() == ElectionType.PREFERRED.value;
        for (ElectLeadersRequestData.TopicPartitions tp : partitionsOf(request)) {
            ReplicaElectionResult topicResult = new ReplicaElectionResult().setTopic(tp.topic());
            answer.replicaElectionResults().add(topicResult);
            for (int index : tp.partitions()) {
                PartitionResult result = new PartitionResult().setPartitionId(index);
                topicResult.partitionResult().add(result);
                try {
                    if (!preferred) {
                        throw new MetadataRequestException(
                                Errors.INVALID_REQUEST,
                                "election type "
                                        + request.electionType() + " refused: isthmus elects only from the ISR"
                                        + " (unclean.leader.election.enable=false)");
                    }
                    electPreferred(tp.topic(), index);
                } catch (MetadataRequestException e) {
                    result.setErrorCode(e.error.code()).setErrorMessage(e.getMessage());
                }
            }
        }
        return answer;
    }

    /** The partitions the request names; all of them when it names none (null), as Kafka reads it. */
    private List<ElectLeadersRequestData.TopicPartitions> partitionsOf(ElectLeadersRequestData request) {
        if (request.topicPartitions() != null) {
            return new ArrayList<>(request.topicPartitions());
        }
        List<ElectLeadersRequestData.TopicPartitions> all = new ArrayList<>();
        for (TopicImage t : state.topics.values()) {
            List<Integer> indexes = new ArrayList<>();
            for (int i = 0; i < t.partitions().size(); i++) {
                indexes.add(i);
            }
            all.add(new ElectLeadersRequestData.TopicPartitions()
                    .setTopic(t.name())
                    .setPartitions(indexes));
        }
        return all;
    }

    private void electPreferred(String topicName, int index) {
        TopicImage topic = state.topics.get(topicName);
        if (topic == null || index < 0 || index >= topic.partitions().size()) {
            throw new MetadataRequestException(
                    Errors.UNKNOWN_TOPIC_OR_PARTITION,
                    "partition " + index + " of topic " + topicName + " does not exist");
        }
        PartitionState p = topic.partition(index);
        int preferredReplica = p.replicas().getFirst();
        if (p.leader() == preferredReplica) {
            throw new MetadataRequestException(
                    Errors.ELECTION_NOT_NEEDED,
                    "broker " + preferredReplica + " already leads partition " + index + " of topic " + topicName);
        }
        if (!p.isr().contains(preferredReplica) || !state.isUnfenced(preferredReplica)) {
            throw new MetadataRequestException(
                    Errors.PREFERRED_LEADER_NOT_AVAILABLE,
                    "preferred replica "
                            + preferredReplica + " of partition " + index + " of topic " + topicName + " is "
                            + (state.isUnfenced(preferredReplica) ? "not in ISR " + p.isr() : "fenced"));
        }
        state.replacePartition(topic, index, p.withLeader(preferredReplica, p.isr()));
    }
}
