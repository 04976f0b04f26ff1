package io.isthmus.connector.flink.table;

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.table.api.ValidationException;
import org.apache.kafka.common.TopicPartition;

/** Parses the Kafka SQL connector's specific-offsets syntax: {@code partition:0,offset:42;partition:1,offset:300}. */
final class SpecificOffsets {
    private SpecificOffsets() {}

    /** The offsets per partition of {@code topic}; {@code option} names the option in errors. */
    static Map<TopicPartition, Long> parse(final String text, final String topic, final String option) {
        final Map<TopicPartition, Long> offsets = new HashMap<>();
        for (final String entry : text.split(";")) {
            final String trimmed = entry.trim();
            if (trimmed.isEmpty()) {
                continue;
            }
            final String[] parts = trimmed.split(",");
            if (parts.length != 2
                    || !parts[0].trim().startsWith("partition:")
                    || !parts[1].trim().startsWith("offset:")) {
                throw invalid(text, option, "'" + trimmed + "' is not 'partition:<n>,offset:<n>'");
            }
            try {
                final int partition = Integer.parseInt(parts[0].trim().substring("partition:".length()));
                final long offset = Long.parseLong(parts[1].trim().substring("offset:".length()));
                if (partition < 0 || offset < 0) {
                    throw invalid(text, option, "'" + trimmed + "' has a negative number");
                }
                offsets.put(new TopicPartition(topic, partition), offset);
            } catch (final NumberFormatException e) {
                throw invalid(text, option, "'" + trimmed + "' has a number that is not one");
            }
        }
        if (offsets.isEmpty()) {
            throw invalid(text, option, "no offsets");
        }
        return offsets;
    }

    private static ValidationException invalid(final String text, final String option, final String why) {
        return new ValidationException("invalid '" + option + "' = '" + text + "': " + why
                + " (expected e.g. 'partition:0,offset:42;partition:1,offset:300')");
    }
}
