package io.isthmus.connector.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code spark.read.format("isthmus")}: the row schema, starting and ending options, minPartitions, headers. */
class BatchReadTest {
    private static final String TOPIC = "batch-read";
    private static final int PARTITIONS = 3;
    private static final int RECORDS = 300;
    private static final long BASE_TIME = 1_700_000_000_000L;

    private static SparkTestSupport isthmus;
    private static SparkSession spark;

    @BeforeAll
    static void start() throws Exception {
        isthmus = SparkTestSupport.start(Map.of());
        spark = SparkTestSupport.spark();
        isthmus.createTopic(TOPIC, PARTITIONS);
        isthmus.produce(TOPIC, PARTITIONS, 0, RECORDS, BASE_TIME);
    }

    @AfterAll
    static void stop() throws Exception {
        isthmus.close();
    }

    private static DataFrameReader read() {
        return spark.read()
                .format("isthmus")
                .option("isthmus.bootstrap.servers", isthmus.bootstrapServers())
                .option("subscribe", TOPIC);
    }

    private static int index(final Row row) {
        return Integer.parseInt(new String((byte[]) row.getAs("value"), StandardCharsets.UTF_8).substring(6));
    }

    @Test
    void everyRecordArrivesInKafkasRowSchema() {
        final Dataset<Row> df = read().load();
        assertThat(df.schema()).isEqualTo(KafkaRecordSchema.schema(false));
        final List<Row> rows = df.collectAsList();
        assertThat(rows).hasSize(RECORDS);
        final Set<Integer> seen = new HashSet<>();
        for (final Row row : rows) {
            final int i = index(row);
            assertThat(seen.add(i)).isTrue();
            assertThat(new String((byte[]) row.getAs("key"), StandardCharsets.UTF_8))
                    .isEqualTo("key-" + i);
            assertThat((String) row.getAs("topic")).isEqualTo(TOPIC);
            assertThat((int) row.getAs("partition")).isEqualTo(i % PARTITIONS);
            assertThat((long) row.getAs("offset")).isEqualTo(i / PARTITIONS);
            assertThat(((java.sql.Timestamp) row.getAs("timestamp")).getTime()).isEqualTo(BASE_TIME + i);
            assertThat((int) row.getAs("timestampType")).isEqualTo(0);
        }
    }

    @Test
    void startingAndEndingOffsetsJsonBoundTheRead() {
        final long count = read().option("startingOffsets", "{\"" + TOPIC + "\":{\"0\":10,\"1\":-2,\"2\":-2}}")
                .option("endingOffsets", "{\"" + TOPIC + "\":{\"0\":20,\"1\":5,\"2\":-1}}")
                .load()
                .count();
        assertThat(count).isEqualTo(10 + 5 + RECORDS / PARTITIONS);
    }

    @Test
    void timestampsBoundTheRead() {
        // Record i has timestamp BASE_TIME + i: the first 150 are before the end, the last 100 after the start.
        assertThat(read().option("endingTimestamp", Long.toString(BASE_TIME + 150))
                        .load()
                        .count())
                .isEqualTo(150);
        assertThat(read().option("startingTimestamp", Long.toString(BASE_TIME + 200))
                        .load()
                        .count())
                .isEqualTo(100);
        final String byPartition =
                "{\"" + TOPIC + "\":{\"0\":" + (BASE_TIME + 30) + ",\"1\":" + BASE_TIME + ",\"2\":" + BASE_TIME + "}}";
        // Partition 0 holds i = 0, 3, 6, ...: those from i = 30 on are its last 90 records.
        assertThat(read().option("startingOffsetsByTimestamp", byPartition)
                        .load()
                        .count())
                .isEqualTo(90 + 2 * RECORDS / PARTITIONS);
    }

    @Test
    void minPartitionsSplitsPartitionsIntoMoreTasks() {
        final Dataset<Row> df = read().option("minPartitions", "12").load();
        assertThat(df.javaRDD().getNumPartitions()).isGreaterThanOrEqualTo(12);
        assertThat(df.select("partition", "offset").distinct().count()).isEqualTo(RECORDS);
    }

    @Test
    void includeHeadersAddsTheHeadersColumn() {
        final Dataset<Row> df = read().option("includeHeaders", "true").load();
        assertThat(df.schema()).isEqualTo(KafkaRecordSchema.schema(true));
        for (final Row row : df.collectAsList()) {
            final List<Row> headers = row.getList(row.fieldIndex("headers"));
            assertThat(headers).hasSize(1);
            assertThat(headers.get(0).getString(0)).isEqualTo("h");
            assertThat(new String((byte[]) headers.get(0).get(1), StandardCharsets.UTF_8))
                    .isEqualTo(Integer.toString(index(row)));
        }
    }

    @Test
    void kafkaPrefixedOptionsCarryOver() {
        final long count = spark.read()
                .format("isthmus")
                .option("kafka.bootstrap.servers", isthmus.bootstrapServers())
                .option("kafka.max.poll.records", "100") // a Kafka setting without meaning here: dropped, warned
                .option("subscribe", TOPIC)
                .load()
                .count();
        assertThat(count).isEqualTo(RECORDS);
        assertThatThrownBy(() ->
                        read().option("kafka.value.deserializer", "x").load().count())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("kafka.value.deserializer");
    }

    @Test
    void latestIsNoStartOfABatchRead() {
        assertThatThrownBy(
                        () -> read().option("startingOffsets", "latest").load().count())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("startingOffsets");
        assertThatThrownBy(
                        () -> read().option("endingOffsets", "earliest").load().count())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("endingOffsets");
    }
}
