package io.isthmus.metadata.controller;

import io.isthmus.metadata.image.PartitionState;
import io.isthmus.metadata.image.TopicImage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableReplicaAssignment;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.protocol.Errors;

/** Creating topics, adding partitions to them, deleting them. */
final class TopicCommands {
    /**
     * The most partitions one command may create, Kafka's bound on the records of one controller operation: every
     * voter holds every partition in memory, so one request must not be able to exhaust them all at once.
     */
    static final int MAX_PARTITIONS_PER_COMMAND = 10_000;

    private final String clusterId;
    private final ClusterState state;

    TopicCommands(String clusterId, ClusterState state) {
        this.clusterId = clusterId;
        this.state = state;
    }

    CreateTopicsResponseData createTopics(long index, CreateTopicsRequestData request) {
        CreateTopicsResponseData answer = new CreateTopicsResponseData();
        int partitionsLeft = MAX_PARTITIONS_PER_COMMAND;
        for (CreatableTopic t : request.topics()) {
            CreatableTopicResult result = new CreatableTopicResult().setName(t.name());
            answer.topics().add(result);
            List<List<Integer>> placement;
            try {
                checkPartitionBudget(
                        t.name(),
                        t.assignments().isEmpty()
                                ? t.numPartitions()
                                : t.assignments().size(),
                        partitionsLeft);
                placement = placementOf(index, t);
            } catch (MetadataRequestException e) {
                result.setErrorCode(e.error.code()).setErrorMessage(e.getMessage());
                continue;
            }
            partitionsLeft -= placement.size();
            TopicImage topic = new TopicImage(t.name(), topicId(index, t.name()), newPartitions(placement));
            result.setTopicId(topic.id()).setNumPartitions(placement.size()).setReplicationFactor((short)
                    placement.getFirst().size());
            if (!request.validateOnly()) {
                state.topics.put(t.name(), topic);
            }
        }
        return answer;
    }

    private static void checkPartitionBudget(String topic, int partitions, int left) {
        if (partitions > left) {
            throw new MetadataRequestException(
                    Errors.INVALID_PARTITIONS,
                    "topic " + topic + " would take "
                            + partitions + " partitions where this request has " + left + " left of the "
                            + MAX_PARTITIONS_PER_COMMAND + " one command may create");
        }
    }

    /** Partitions on {@code placement}, each led by its first unfenced replica with every unfenced one in sync. */
    private List<PartitionState> newPartitions(List<List<Integer>> placement) {
        List<PartitionState> partitions = new ArrayList<>(placement.size());
        for (List<Integer> replicas : placement) {
            List<Integer> isr = replicas.stream().filter(state::isUnfenced).toList();
            partitions.add(new PartitionState(replicas, isr, isr.getFirst(), 0, 0));
        }
        return partitions;
    }

    private List<List<Integer>> placementOf(long index, CreatableTopic t) {
        try {
            Topic.validate(t.name());
        } catch (InvalidTopicException e) {
            throw new MetadataRequestException(Errors.INVALID_TOPIC_EXCEPTION, e.getMessage());
        }
        if (state.topics.containsKey(t.name())) {
            throw new MetadataRequestException(Errors.TOPIC_ALREADY_EXISTS, "topic " + t.name() + " already exists");
        }
        if (!t.assignments().isEmpty()) {
            return explicitPlacement(t);
        }
        if (t.numPartitions() < 1) {
            throw new MetadataRequestException(
                    Errors.INVALID_PARTITIONS,
                    "topic " + t.name() + " asks for " + t.numPartitions()
                            + " partitions; the quorum needs the count settled before it is logged");
        }
        return place(t.name(), t.numPartitions(), t.replicationFactor(), index);
    }

    private List<List<Integer>> place(String topic, int partitions, int replicationFactor, long seed) {
        List<Integer> candidates = state.unfencedBrokers();
        if (replicationFactor < 1 || replicationFactor > candidates.size()) {
            throw new MetadataRequestException(
                    Errors.INVALID_REPLICATION_FACTOR,
                    "topic " + topic
                            + " asks for replication factor " + replicationFactor + " but " + candidates.size()
                            + " brokers are unfenced " + candidates);
        }
        return ReplicaPlacement.place(candidates, partitions, replicationFactor, seed);
    }

    private List<List<Integer>> explicitPlacement(CreatableTopic t) {
        if (t.numPartitions() != -1 || t.replicationFactor() != -1) {
            throw new MetadataRequestException(
                    Errors.INVALID_REQUEST,
                    "topic " + t.name()
                            + " gives replica assignments, so its partition count and replication factor must be -1");
        }
        List<List<Integer>> placement = new ArrayList<>();
        for (int p = 0; p < t.assignments().size(); p++) {
            CreatableReplicaAssignment a = t.assignments().find(p);
            if (a == null) {
                throw new MetadataRequestException(
                        Errors.INVALID_REPLICA_ASSIGNMENT,
                        "topic " + t.name() + " assigns " + t.assignments().size() + " partitions but not partition "
                                + p);
            }
            state.checkReplicas(
                    "partition " + p + " of topic " + t.name(),
                    a.brokerIds(),
                    placement.isEmpty() ? -1 : placement.getFirst().size());
            placement.add(List.copyOf(a.brokerIds()));
        }
        return placement;
    }

    /** A random-looking topic id that every voter derives alike: a name-based UUID of the cluster, index and name. */
    private Uuid topicId(long index, String name) {
        UUID u = UUID.nameUUIDFromBytes((clusterId + '/' + index + '/' + name).getBytes(StandardCharsets.UTF_8));
        Uuid id = new Uuid(u.getMostSignificantBits(), u.getLeastSignificantBits());
        if (Uuid.RESERVED.contains(id)) {
            throw new IllegalStateException("topic id " + id + " for " + name + " is reserved");
        }
        return id;
    }

    /**
     * Adds partitions to topics, placed like a new topic's (or where the request assigns them), with the replication
     * factor of the topic's first partition.
     */
    CreatePartitionsResponseData createPartitions(long index, CreatePartitionsRequestData request) {
        CreatePartitionsResponseData answer = new CreatePartitionsResponseData();
        int partitionsLeft = MAX_PARTITIONS_PER_COMMAND;
        for (CreatePartitionsTopic t : request.topics()) {
            CreatePartitionsTopicResult result = new CreatePartitionsTopicResult().setName(t.name());
            answer.results().add(result);
            try {
                TopicImage grown = grow(index, t, partitionsLeft);
                partitionsLeft -= grown.partitions().size()
                        - state.topics.get(t.name()).partitions().size();
                if (!request.validateOnly()) {
                    state.topics.put(t.name(), grown);
                }
            } catch (MetadataRequestException e) {
                result.setErrorCode(e.error.code()).setErrorMessage(e.getMessage());
            }
        }
        return answer;
    }

    private TopicImage grow(long index, CreatePartitionsTopic t, int partitionsLeft) {
        TopicImage topic = state.topics.get(t.name());
        if (topic == null) {
            throw new MetadataRequestException(
                    Errors.UNKNOWN_TOPIC_OR_PARTITION, "topic " + t.name() + " does not exist");
        }
        int current = topic.partitions().size();
        if (t.count() <= current) {
            throw new MetadataRequestException(
                    Errors.INVALID_PARTITIONS,
                    t.count() == current
                            ? "topic " + t.name() + " already has " + current + " partitions"
                            : "topic " + t.name() + " has " + current + " partitions, more than the " + t.count()
                                    + " asked for; partitions are never removed");
        }
        int added = t.count() - current;
        checkPartitionBudget(t.name(), added, partitionsLeft);
        int replicationFactor = topic.partition(0).targetReplicas().size();
        List<List<Integer>> placement;
        if (t.assignments() == null || t.assignments().isEmpty()) {
            placement = place(t.name(), added, replicationFactor, index);
        } else {
            if (t.assignments().size() != added) {
                throw new MetadataRequestException(
                        Errors.INVALID_REPLICA_ASSIGNMENT,
                        "topic " + t.name() + " grows by " + added + " partitions but the request assigns "
                                + t.assignments().size());
            }
            placement = new ArrayList<>();
            for (int i = 0; i < added; i++) {
                List<Integer> replicas = t.assignments().get(i).brokerIds();
                state.checkReplicas(
                        "partition " + (current + i) + " of topic " + t.name(), replicas, replicationFactor);
                placement.add(List.copyOf(replicas));
            }
        }
        List<PartitionState> partitions = new ArrayList<>(topic.partitions());
        partitions.addAll(newPartitions(placement));
        return new TopicImage(topic.name(), topic.id(), partitions);
    }

    DeleteTopicsResponseData deleteTopics(DeleteTopicsRequestData request) {
        DeleteTopicsResponseData answer = new DeleteTopicsResponseData();
        List<DeleteTopicsRequestData.DeleteTopicState> targets = new ArrayList<>(request.topics());
        for (String name : request.topicNames()) {
            targets.add(new DeleteTopicsRequestData.DeleteTopicState().setName(name));
        }
        for (DeleteTopicsRequestData.DeleteTopicState target : targets) {
            TopicImage topic =
                    target.name() != null ? state.topics.get(target.name()) : state.topicById(target.topicId());
            // The answers are keyed by name: fill a result in before adding it.
            DeletableTopicResult result =
                    new DeletableTopicResult().setName(target.name()).setTopicId(target.topicId());
            if (topic == null) {
                result.setErrorCode(
                        (target.name() != null ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.UNKNOWN_TOPIC_ID).code());
            } else {
                state.topics.remove(topic.name());
                result.setName(topic.name()).setTopicId(topic.id());
            }
            answer.responses().add(result);
        }
        return answer;
    }
}
