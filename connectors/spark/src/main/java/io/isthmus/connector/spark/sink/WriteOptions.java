package io.isthmus.connector.spark.sink;

import io.isthmus.connector.spark.IsthmusOptions;
import java.io.Serializable;
import java.util.Map;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The write options of a query, checked on the driver.
 *
 * @param producerSettings the isthmus producer's settings, {@code isthmus.}/{@code kafka.} taken off
 * @param topic the {@code topic} option: every row goes there, whatever its {@code topic} column says (Spark's Kafka
 *     sink's rule); null to take each row's column
 */
public record WriteOptions(Map<String, String> producerSettings, String topic) implements Serializable {
    /** Settings the sink owns, with the reason (Spark's Kafka sink refuses the same). */
    private static final Map<String, String> REFUSED = Map.of(
            "key.serializer", "keys are written as the binary (or string) 'key' column holds them",
            "value.serializer", "values are written as the binary (or string) 'value' column holds them",
            "interceptor.classes", "rows are written as records directly, no producer interceptor sees them");

    public static WriteOptions parse(final CaseInsensitiveStringMap options) {
        final String topic = options.get(IsthmusOptions.TOPIC);
        if (topic != null && topic.isBlank()) {
            throw new IllegalArgumentException("option '" + IsthmusOptions.TOPIC + "' is empty");
        }
        return new WriteOptions(
                Map.copyOf(IsthmusOptions.clientSettings(options, false, REFUSED)),
                topic == null ? null : topic.trim());
    }
}
