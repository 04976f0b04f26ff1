package io.isthmus.client.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * ListOffsets: the earliest or latest offset of partitions, or the first offset at or after a timestamp, asked of
 * each partition's leader.
 */
public final class OffsetLookup {
    /** Kafka's special timestamp for the log start offset. */
    public static final long EARLIEST = -2L;
    /** Kafka's special timestamp for the log end offset (high watermark). */
    public static final long LATEST = -1L;

    private OffsetLookup() {}

    /**
     * @param timestamps per partition: {@link #EARLIEST}, {@link #LATEST} or a timestamp in ms
     * @return per partition, the offset and timestamp found; null when no record is at or after the timestamp
     */
    public static Map<TopicPartition, OffsetAndTime> lookup(
            final BrokerConnections connections,
            final Map<TopicPartition, Long> timestamps,
            final byte isolationLevel) {
        // Leadership can lag metadata right after a topic is created or moved: retriable errors are retried with
        // fresh metadata until the request timeout.
        final long deadline = System.nanoTime() + connections.requestTimeout().toNanos();
        long backoffMs = 20;
        while (true) {
            try {
                return lookupOnce(connections, timestamps, isolationLevel);
            } catch (final org.apache.kafka.common.errors.RetriableException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
                try {
                    Thread.sleep(backoffMs);
                } catch (final InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new org.apache.kafka.common.errors.InterruptException(interrupted);
                }
                backoffMs = Math.min(500, backoffMs * 2);
            }
        }
    }

    private static Map<TopicPartition, OffsetAndTime> lookupOnce(
            final BrokerConnections connections,
            final Map<TopicPartition, Long> timestamps,
            final byte isolationLevel) {
        final List<String> topicNames = timestamps.keySet().stream()
                .map(TopicPartition::topic)
                .distinct()
                .toList();
        final ClusterMetadata metadata = connections.awaitTopics(topicNames, connections.requestTimeout());
        final Map<Integer, Map<String, List<ListOffsetsRequestData.ListOffsetsPartition>>> byLeader = new HashMap<>();
        for (final Map.Entry<TopicPartition, Long> e : timestamps.entrySet()) {
            final TopicPartition tp = e.getKey();
            final TopicMetadata topic = metadata.topic(tp.topic());
            final int leader = topic.leader(tp.partition());
            if (leader < 0) {
                throw Errors.UNKNOWN_TOPIC_OR_PARTITION.exception(
                        "no leader for partition: topic=" + tp.topic() + ", partition=" + tp.partition());
            }
            byLeader.computeIfAbsent(leader, l -> new HashMap<>())
                    .computeIfAbsent(tp.topic(), t -> new ArrayList<>())
                    .add(new ListOffsetsRequestData.ListOffsetsPartition()
                            .setPartitionIndex(tp.partition())
                            .setTimestamp(e.getValue())
                            .setCurrentLeaderEpoch(-1));
        }
        final Map<TopicPartition, OffsetAndTime> result = new HashMap<>();
        for (final var leader : byLeader.entrySet()) {
            final ListOffsetsRequestData request =
                    new ListOffsetsRequestData().setReplicaId(-1).setIsolationLevel(isolationLevel);
            for (final var topic : leader.getValue().entrySet()) {
                request.topics()
                        .add(new ListOffsetsRequestData.ListOffsetsTopic()
                                .setName(topic.getKey())
                                .setPartitions(topic.getValue()));
            }
            final ListOffsetsResponseData response = (ListOffsetsResponseData) connections
                    .node(leader.getKey())
                    .request(ApiKeys.LIST_OFFSETS, request, connections.requestTimeout());
            for (final ListOffsetsResponseData.ListOffsetsTopicResponse topic : response.topics()) {
                for (final ListOffsetsResponseData.ListOffsetsPartitionResponse p : topic.partitions()) {
                    final Errors error = Errors.forCode(p.errorCode());
                    if (error != Errors.NONE) {
                        throw error.exception("ListOffsets failed: topic=" + topic.name() + ", partition="
                                + p.partitionIndex() + ", error=" + error);
                    }
                    final TopicPartition tp = new TopicPartition(topic.name(), p.partitionIndex());
                    result.put(tp, p.offset() < 0 ? null : new OffsetAndTime(p.offset(), p.timestamp()));
                }
            }
        }
        return result;
    }
}
