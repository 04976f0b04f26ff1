package io.isthmus.connector.spark.sink;

import io.isthmus.connector.spark.KafkaRecordSchema;
import java.io.Serializable;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Where Kafka's sink columns are in the rows a query writes, checked once on the driver with messages naming the
 * column: {@code value} (binary or string, required), {@code key} (binary or string), {@code topic} (string, required
 * without the {@code topic} option), {@code partition} (int), {@code headers} (array of struct key string, value
 * binary). Other columns are ignored, as Spark's Kafka sink ignores them. Ordinals are -1 for an absent column.
 */
public record SinkColumns(
        int topic, int key, boolean keyIsString, int value, boolean valueIsString, int partition, int headers)
        implements Serializable {

    public static SinkColumns of(final StructType schema, final String topicOption) {
        final int topic = find(schema, "topic");
        if (topic < 0 && topicOption == null) {
            throw new IllegalArgumentException("topic option required when no 'topic' attribute is present; use the"
                    + " 'topic' option to set a topic");
        }
        if (topic >= 0 && !(type(schema, topic) instanceof StringType)) {
            throw new IllegalArgumentException("topic attribute type must be a string, got " + type(schema, topic));
        }
        final int key = find(schema, "key");
        if (key >= 0 && !binaryOrString(type(schema, key))) {
            throw new IllegalArgumentException(
                    "key attribute type must be a string or binary, got " + type(schema, key));
        }
        final int value = find(schema, "value");
        if (value < 0) {
            throw new IllegalArgumentException("required attribute 'value' not found in " + schema.simpleString());
        }
        if (!binaryOrString(type(schema, value))) {
            throw new IllegalArgumentException(
                    "value attribute type must be a string or binary, got " + type(schema, value));
        }
        final int partition = find(schema, "partition");
        if (partition >= 0 && !(type(schema, partition) instanceof IntegerType)) {
            throw new IllegalArgumentException(
                    "partition attribute type must be an int, got " + type(schema, partition));
        }
        final int headers = find(schema, "headers");
        if (headers >= 0 && !type(schema, headers).sameType(KafkaRecordSchema.HEADERS_TYPE)) {
            throw new IllegalArgumentException(
                    "headers attribute type must be " + KafkaRecordSchema.HEADERS_TYPE.simpleString() + ", got "
                            + type(schema, headers).simpleString());
        }
        return new SinkColumns(
                topic,
                key,
                key >= 0 && type(schema, key) instanceof StringType,
                value,
                type(schema, value) instanceof StringType,
                partition,
                headers);
    }

    private static int find(final StructType schema, final String name) {
        final StructField[] fields = schema.fields();
        for (int i = 0; i < fields.length; i++) {
            if (fields[i].name().equalsIgnoreCase(name)) {
                return i;
            }
        }
        return -1;
    }

    private static DataType type(final StructType schema, final int ordinal) {
        return schema.fields()[ordinal].dataType();
    }

    private static boolean binaryOrString(final DataType type) {
        return type instanceof BinaryType || type instanceof StringType;
    }
}
