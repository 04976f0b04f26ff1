package io.isthmus.connector.spark.source;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * Partition maps as JSON in the shapes Spark's Kafka source reads and writes, so checkpoints and options look the same:
 * offsets (or timestamps) {@code {"topicA":{"0":23,"1":-1}}} and assignments {@code {"topicA":[0,1]}}. Written in topic
 * then partition order, so one map always writes the same text.
 */
public final class OffsetsJson {
    /** Orders partitions by topic, then number: the order offsets are written and ranges are planned in. */
    public static final Comparator<TopicPartition> PARTITION_ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private OffsetsJson() {}

    /** A new map in {@link #PARTITION_ORDER}. */
    public static <V> TreeMap<TopicPartition, V> sortedMap() {
        return new TreeMap<>(PARTITION_ORDER);
    }

    /** {@code {"topic":{"partition":value}}}, topics and partitions in order. */
    public static String write(final Map<TopicPartition, Long> values) {
        final ObjectNode root = MAPPER.createObjectNode();
        final TreeMap<TopicPartition, Long> sorted = sortedMap();
        sorted.putAll(values);
        sorted.forEach((partition, value) -> {
            ObjectNode topic = (ObjectNode) root.get(partition.topic());
            if (topic == null) {
                topic = root.putObject(partition.topic());
            }
            topic.put(Integer.toString(partition.partition()), value);
        });
        try {
            return MAPPER.writeValueAsString(root);
        } catch (final JsonProcessingException e) {
            throw new IllegalStateException("writing offsets JSON failed: " + values, e);
        }
    }

    /**
     * Reads {@code {"topic":{"partition":value}}}.
     *
     * @param what names the text in an error (an option's name, or "checkpointed offsets")
     * @throws IllegalArgumentException naming {@code what} for text of another shape
     */
    public static TreeMap<TopicPartition, Long> readOffsets(final String json, final String what) {
        final JsonNode root = parse(json, what, "{\"topicA\":{\"0\":23,\"1\":-1},\"topicB\":{\"0\":-2}}");
        final TreeMap<TopicPartition, Long> result = sortedMap();
        for (final Iterator<Map.Entry<String, JsonNode>> topics = root.fields(); topics.hasNext(); ) {
            final Map.Entry<String, JsonNode> topic = topics.next();
            if (!topic.getValue().isObject()) {
                throw malformed(what, json, "topic '" + topic.getKey() + "' must map partitions to numbers");
            }
            for (final Iterator<Map.Entry<String, JsonNode>> partitions =
                            topic.getValue().fields();
                    partitions.hasNext(); ) {
                final Map.Entry<String, JsonNode> partition = partitions.next();
                if (!partition.getValue().isIntegralNumber()) {
                    throw malformed(
                            what,
                            json,
                            "partition " + partition.getKey() + " of '" + topic.getKey() + "' is no number");
                }
                result.put(
                        new TopicPartition(topic.getKey(), partitionNumber(partition.getKey(), what, json)),
                        partition.getValue().asLong());
            }
        }
        return result;
    }

    /** Reads an assignment, {@code {"topic":[0,1]}}. */
    public static Set<TopicPartition> readPartitions(final String json, final String what) {
        final JsonNode root = parse(json, what, "{\"topicA\":[0,1],\"topicB\":[2,4]}");
        final Set<TopicPartition> result = new TreeSet<>(PARTITION_ORDER);
        for (final Iterator<Map.Entry<String, JsonNode>> topics = root.fields(); topics.hasNext(); ) {
            final Map.Entry<String, JsonNode> topic = topics.next();
            if (!topic.getValue().isArray()) {
                throw malformed(what, json, "topic '" + topic.getKey() + "' must list partition numbers");
            }
            for (final JsonNode partition : topic.getValue()) {
                if (!partition.isIntegralNumber() || partition.asInt() < 0) {
                    throw malformed(what, json, "'" + partition + "' is no partition number");
                }
                result.add(new TopicPartition(topic.getKey(), partition.asInt()));
            }
        }
        return result;
    }

    private static JsonNode parse(final String json, final String what, final String example) {
        final JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (final JsonProcessingException e) {
            throw new IllegalArgumentException(
                    what + ": malformed JSON '" + json + "' (" + e.getOriginalMessage() + "); expected e.g. " + example,
                    e);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException(
                    what + ": expected a JSON object such as " + example + ", got '" + json + "'");
        }
        return root;
    }

    private static int partitionNumber(final String text, final String what, final String json) {
        try {
            final int partition = Integer.parseInt(text);
            if (partition >= 0) {
                return partition;
            }
        } catch (final NumberFormatException e) {
            // reported below with the whole text
        }
        throw malformed(what, json, "'" + text + "' is no partition number");
    }

    private static IllegalArgumentException malformed(final String what, final String json, final String detail) {
        return new IllegalArgumentException(what + ": malformed JSON '" + json + "': " + detail);
    }
}
