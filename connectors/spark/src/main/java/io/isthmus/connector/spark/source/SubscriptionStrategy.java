package io.isthmus.connector.spark.source;

import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.admin.TopicDescription;
import io.isthmus.connector.spark.IsthmusOptions;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Which partitions a query reads, from exactly one of the options {@code assign}, {@code subscribe} and {@code
 * subscribePattern}. Asked again at every trigger, so partitions added to a topic, and topics matching a pattern, join
 * the query while it runs.
 */
public sealed interface SubscriptionStrategy extends Serializable {
    /** The partitions to read now. */
    Set<TopicPartition> partitions(IsthmusAdmin admin);

    /** The option this came from and its value, for messages. */
    String describe();

    /** Parses the one subscription option there must be. */
    static SubscriptionStrategy parse(final String assign, final String subscribe, final String pattern) {
        final int given = (assign != null ? 1 : 0) + (subscribe != null ? 1 : 0) + (pattern != null ? 1 : 0);
        if (given == 0) {
            throw new IllegalArgumentException("one of the options '" + IsthmusOptions.ASSIGN + "', '"
                    + IsthmusOptions.SUBSCRIBE + "' or '" + IsthmusOptions.SUBSCRIBE_PATTERN
                    + "' must be specified: which partitions to read");
        }
        if (given > 1) {
            throw new IllegalArgumentException("only one of the options '" + IsthmusOptions.ASSIGN + "', '"
                    + IsthmusOptions.SUBSCRIBE + "' and '" + IsthmusOptions.SUBSCRIBE_PATTERN + "' may be specified");
        }
        if (assign != null) {
            final Set<TopicPartition> partitions = OffsetsJson.readPartitions(assign, "option 'assign'");
            if (partitions.isEmpty()) {
                throw new IllegalArgumentException("option 'assign' names no partition: " + assign);
            }
            return new Assign(partitions);
        }
        if (subscribe != null) {
            final List<String> topics = new ArrayList<>();
            for (final String topic : subscribe.split(",")) {
                if (!topic.isBlank()) {
                    topics.add(topic.trim());
                }
            }
            if (topics.isEmpty()) {
                throw new IllegalArgumentException("option 'subscribe' names no topic: '" + subscribe + "'");
            }
            return new Subscribe(List.copyOf(topics));
        }
        if (pattern.isBlank()) {
            throw new IllegalArgumentException("option 'subscribePattern' is empty");
        }
        try {
            Pattern.compile(pattern);
        } catch (final RuntimeException e) {
            throw new IllegalArgumentException("option 'subscribePattern' is no regular expression: " + pattern, e);
        }
        return new SubscribePattern(pattern);
    }

    /** {@code assign}: these partitions, each of which must exist. */
    record Assign(Set<TopicPartition> assigned) implements SubscriptionStrategy {
        @Override
        public Set<TopicPartition> partitions(final IsthmusAdmin admin) {
            final Set<String> topics = new TreeSet<>();
            assigned.forEach(p -> topics.add(p.topic()));
            final Set<TopicPartition> existing = existing(admin, topics, this);
            for (final TopicPartition partition : assigned) {
                if (!existing.contains(partition)) {
                    throw new IllegalArgumentException(
                            "option 'assign' names partition " + partition + ", which does not exist");
                }
            }
            return assigned;
        }

        @Override
        public String describe() {
            return "assign=" + assigned;
        }
    }

    /** {@code subscribe}: every partition of these topics, each of which must exist. */
    record Subscribe(List<String> topics) implements SubscriptionStrategy {
        @Override
        public Set<TopicPartition> partitions(final IsthmusAdmin admin) {
            return existing(admin, topics, this);
        }

        @Override
        public String describe() {
            return "subscribe=" + String.join(",", topics);
        }
    }

    /** {@code subscribePattern}: every partition of every topic (not internal) whose whole name matches. */
    record SubscribePattern(String regex) implements SubscriptionStrategy {
        @Override
        public Set<TopicPartition> partitions(final IsthmusAdmin admin) {
            final Pattern pattern = Pattern.compile(regex);
            final List<String> matching = new ArrayList<>();
            for (final String topic : admin.listTopics()) {
                if (pattern.matcher(topic).matches()) {
                    matching.add(topic);
                }
            }
            return matching.isEmpty() ? Set.of() : existing(admin, matching, this);
        }

        @Override
        public String describe() {
            return "subscribePattern=" + regex;
        }
    }

    private static Set<TopicPartition> existing(
            final IsthmusAdmin admin, final java.util.Collection<String> topics, final SubscriptionStrategy by) {
        final Map<String, TopicDescription> described;
        try {
            described = admin.describeTopics(topics);
        } catch (final UnknownTopicOrPartitionException e) {
            throw new IllegalArgumentException(
                    "option " + by.describe() + ": a topic does not exist (" + e.getMessage() + ")", e);
        }
        final Set<TopicPartition> partitions = new TreeSet<>(OffsetsJson.PARTITION_ORDER);
        described.forEach((name, topic) -> {
            for (int p = 0; p < topic.partitionCount(); p++) {
                partitions.add(new TopicPartition(name, p));
            }
        });
        return partitions;
    }
}
