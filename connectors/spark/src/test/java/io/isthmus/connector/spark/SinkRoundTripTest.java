package io.isthmus.connector.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code df.write.format("isthmus")} with Kafka's sink columns, read back with the source. */
class SinkRoundTripTest {
    private static SparkTestSupport isthmus;
    private static SparkSession spark;

    @BeforeAll
    static void start() throws Exception {
        isthmus = SparkTestSupport.start(Map.of());
        spark = SparkTestSupport.spark();
    }

    @AfterAll
    static void stop() throws Exception {
        isthmus.close();
    }

    private static final StructType SINK_ROWS = new StructType()
            .add("key", DataTypes.BinaryType)
            .add("value", DataTypes.BinaryType)
            .add("partition", DataTypes.IntegerType)
            .add("headers", KafkaRecordSchema.HEADERS_TYPE);

    private static byte[] utf8(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void writtenRowsReadBackIdentical() {
        final String topic = "sink-round-trip";
        isthmus.createTopic(topic, 4);
        final List<Row> rows = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            final List<Row> headers = i % 3 == 0
                    ? List.of()
                    : List.of(
                            RowFactory.create("a", utf8("x" + i)),
                            RowFactory.create("b", i % 2 == 0 ? null : utf8("y")));
            rows.add(RowFactory.create(i % 10 == 0 ? null : utf8("k" + i), utf8("v" + i), i % 4, headers));
        }
        spark.createDataFrame(rows, SINK_ROWS)
                .write()
                .format("isthmus")
                .mode("append")
                .option("isthmus.bootstrap.servers", isthmus.bootstrapServers())
                .option("topic", topic)
                .save();

        final Dataset<Row> back = spark.read()
                .format("isthmus")
                .option("isthmus.bootstrap.servers", isthmus.bootstrapServers())
                .option("subscribe", topic)
                .option("includeHeaders", "true")
                .load()
                .select("key", "value", "partition", "headers");
        assertThat(asStrings(back.collectAsList())).isEqualTo(asStrings(rows));
    }

    @Test
    void stringColumnsAndTheTopicColumnAreWritten() {
        final String topic = "sink-by-column";
        isthmus.createTopic(topic, 1);
        spark.sql("SELECT '" + topic + "' AS topic, CAST(id AS STRING) AS key, CONCAT('v', id) AS value"
                        + " FROM range(100)")
                .write()
                .format("isthmus")
                .mode("append")
                .option("kafka.bootstrap.servers", isthmus.bootstrapServers())
                .save();
        final List<Row> back = spark.read()
                .format("isthmus")
                .option("isthmus.bootstrap.servers", isthmus.bootstrapServers())
                .option("subscribe", topic)
                .load()
                .selectExpr("CAST(key AS STRING)", "CAST(value AS STRING)")
                .collectAsList();
        final Set<String> pairs = new HashSet<>();
        back.forEach(r -> pairs.add(r.getString(0) + "=" + r.getString(1)));
        assertThat(pairs).hasSize(100).contains("0=v0", "99=v99");
    }

    @Test
    void aStreamingQueryCopiesATopicThroughTheSink(@org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir)
            throws Exception {
        isthmus.createTopic("stream-copy-from", 2);
        isthmus.createTopic("stream-copy-to", 2);
        isthmus.produce("stream-copy-from", 2, 0, 2_000, 1_700_000_000_000L);
        final org.apache.spark.sql.streaming.StreamingQuery query = spark.readStream()
                .format("isthmus")
                .option("isthmus.bootstrap.servers", isthmus.bootstrapServers())
                .option("subscribe", "stream-copy-from")
                .option("startingOffsets", "earliest")
                .option("maxOffsetsPerTrigger", "500")
                .load()
                .select("key", "value", "partition")
                .writeStream()
                .format("isthmus")
                .option("isthmus.bootstrap.servers", isthmus.bootstrapServers())
                .option("topic", "stream-copy-to")
                .option("checkpointLocation", dir.toString())
                .trigger(org.apache.spark.sql.streaming.Trigger.AvailableNow())
                .start();
        query.awaitTermination();
        assertThat(query.exception().isEmpty()).isTrue();
        final Dataset<Row> copy = spark.read()
                .format("isthmus")
                .option("isthmus.bootstrap.servers", isthmus.bootstrapServers())
                .option("subscribe", "stream-copy-to")
                .load()
                .selectExpr("CAST(key AS STRING)", "CAST(value AS STRING)", "partition");
        final Set<String> rows = new HashSet<>();
        copy.collectAsList().forEach(r -> rows.add(r.getString(0) + "|" + r.getString(1) + "|" + r.getInt(2)));
        assertThat(rows).hasSize(2_000).contains("key-0|value-0|0", "key-1999|value-1999|1");
    }

    @Test
    void aWriteWithoutValueOrTopicIsRefusedNamingTheColumn() {
        assertThatThrownBy(() -> spark.sql("SELECT 'x' AS key FROM range(1)")
                        .write()
                        .format("isthmus")
                        .mode("append")
                        .option("isthmus.bootstrap.servers", isthmus.bootstrapServers())
                        .option("topic", "t")
                        .save())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'value'");
        assertThatThrownBy(() -> spark.sql("SELECT 'x' AS value FROM range(1)")
                        .write()
                        .format("isthmus")
                        .mode("append")
                        .option("isthmus.bootstrap.servers", isthmus.bootstrapServers())
                        .save())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("topic");
    }

    /** Rows as comparable text: binary columns decoded, header lists spelled out, in sorted order. */
    private static List<String> asStrings(final List<Row> rows) {
        final List<String> out = new ArrayList<>();
        for (final Row row : rows) {
            final StringBuilder s = new StringBuilder();
            s.append(row.isNullAt(0) ? "null" : new String((byte[]) row.get(0), StandardCharsets.UTF_8));
            s.append('|').append(new String((byte[]) row.get(1), StandardCharsets.UTF_8));
            s.append('|').append(row.getInt(2));
            // The rows made here hold Java lists, the rows Spark returns Scala sequences.
            final List<?> headers = row.get(3) instanceof List<?> list ? list : row.getList(3);
            for (final Object header : headers) {
                final Row h = (Row) header;
                s.append('|').append(h.getString(0)).append('=');
                s.append(h.isNullAt(1) ? "null" : new String((byte[]) h.get(1), StandardCharsets.UTF_8));
            }
            out.add(s.toString());
        }
        out.sort(null);
        return out;
    }
}
