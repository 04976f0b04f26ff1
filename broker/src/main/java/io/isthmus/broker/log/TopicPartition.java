package io.isthmus.broker.log;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A topic partition, named on disk as {@code <topic>-<partition>} like Kafka's log directories.
 *
 * @param topic legal Kafka topic name: 1-249 characters of {@code [a-zA-Z0-9._-]}, not "." or ".."
 * @param partition non-negative partition number
 */
public record TopicPartition(String topic, int partition) {
    private static final Pattern LEGAL_TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    public TopicPartition {
        if (topic == null || !LEGAL_TOPIC.matcher(topic).matches() || ".".equals(topic) || "..".equals(topic)) {
            throw new IllegalArgumentException("illegal topic name: topic=" + topic);
        }
        if (partition < 0) {
            throw new IllegalArgumentException("negative partition: topic=" + topic + " partition=" + partition);
        }
    }

    /** Directory name: {@code <topic>-<partition>}. */
    public String dirName() {
        return topic + "-" + partition;
    }

    /** The partition a directory name stands for, if it is one. */
    public static Optional<TopicPartition> fromDirName(final String name) {
        final int dash = name.lastIndexOf('-');
        if (dash <= 0 || dash == name.length() - 1) {
            return Optional.empty();
        }
        final String topic = name.substring(0, dash);
        final String number = name.substring(dash + 1);
        if (!number.chars().allMatch(Character::isDigit)
                || number.length() > 9
                || !LEGAL_TOPIC.matcher(topic).matches()) {
            return Optional.empty();
        }
        return Optional.of(new TopicPartition(topic, Integer.parseInt(number)));
    }

    @Override
    public String toString() {
        return dirName();
    }
}
