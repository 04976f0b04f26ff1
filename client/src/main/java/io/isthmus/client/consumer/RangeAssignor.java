package io.isthmus.client.consumer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * Kafka's "range" assignment: per topic, the members subscribed to it in member-id order each get a contiguous range
 * of partitions, the first {@code partitions % members} members one more than the rest.
 */
public final class RangeAssignor {
    /** The protocol name in JoinGroup, shared with Kafka's own RangeAssignor. */
    public static final String NAME = "range";

    private RangeAssignor() {}

    /**
     * @param subscriptions member id to subscribed topics
     * @param partitionCounts topic to partition count (topics missing here are skipped)
     * @return member id to assigned partitions (every member present, possibly with none)
     */
    public static Map<String, List<TopicPartition>> assign(
            final Map<String, List<String>> subscriptions, final Map<String, Integer> partitionCounts) {
        final Map<String, List<String>> membersByTopic = new TreeMap<>();
        for (final Map.Entry<String, List<String>> e : subscriptions.entrySet()) {
            for (final String topic : e.getValue()) {
                membersByTopic.computeIfAbsent(topic, t -> new ArrayList<>()).add(e.getKey());
            }
        }
        final Map<String, List<TopicPartition>> assignment = new HashMap<>();
        for (final String member : subscriptions.keySet()) {
            assignment.put(member, new ArrayList<>());
        }
        for (final Map.Entry<String, List<String>> e : membersByTopic.entrySet()) {
            final Integer count = partitionCounts.get(e.getKey());
            if (count == null) {
                continue;
            }
            final List<String> members = e.getValue();
            members.sort(null);
            final int perMember = count / members.size();
            final int extra = count % members.size();
            for (int i = 0; i < members.size(); i++) {
                final int start = perMember * i + Math.min(i, extra);
                final int length = perMember + (i < extra ? 1 : 0);
                for (int p = start; p < start + length; p++) {
                    assignment.get(members.get(i)).add(new TopicPartition(e.getKey(), p));
                }
            }
        }
        return assignment;
    }
}
