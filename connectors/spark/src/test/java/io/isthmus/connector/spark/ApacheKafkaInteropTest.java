package io.isthmus.connector.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.testing.ApacheKafkaBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two directions of compatibility: {@code format("isthmus")} reading and writing a real Apache Kafka 4.4 broker,
 * and Spark's own {@code format("kafka")} (spark-sql-kafka-0-10 4.2.0) reading from the isthmus broker.
 */
class ApacheKafkaInteropTest {
    private static final int RECORDS = 500;

    private static ApacheKafkaBroker kafka;
    private static SparkTestSupport isthmus;
    private static SparkSession spark;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() throws Exception {
        kafka = ApacheKafkaBroker.start(Files.createDirectories(dir.resolve("kafka")));
        isthmus = SparkTestSupport.start(Map.of());
        spark = SparkTestSupport.spark();
    }

    @AfterAll
    static void stop() throws Exception {
        isthmus.close();
        kafka.close();
    }

    private static Set<String> values(final Dataset<Row> df) {
        final Set<String> values = new HashSet<>();
        df.selectExpr("CAST(value AS STRING)").collectAsList().forEach(r -> values.add(r.getString(0)));
        return values;
    }

    private static Set<String> expected() {
        final Set<String> values = new HashSet<>();
        for (int i = 0; i < RECORDS; i++) {
            values.add("value-" + i);
        }
        return values;
    }

    @Test
    void theIsthmusSourceAndSinkWorkAgainstApacheKafka() throws Exception {
        final Properties admin = new Properties();
        admin.put("bootstrap.servers", kafka.bootstrapServers());
        try (Admin client = Admin.create(admin)) {
            client.createTopics(List.of(
                            new NewTopic("on-kafka", 3, (short) 1), new NewTopic("on-kafka-copy", 3, (short) 1)))
                    .all()
                    .get();
        }
        final Properties producer = new Properties();
        producer.putAll(admin);
        try (KafkaProducer<String, String> p =
                new KafkaProducer<>(producer, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                p.send(new ProducerRecord<>("on-kafka", i % 3, "key-" + i, "value-" + i));
            }
        }
        // Batch read, then written back with the sink to a second topic, then read as a stream to its end.
        final Dataset<Row> batch = spark.read()
                .format("isthmus")
                .option("kafka.bootstrap.servers", kafka.bootstrapServers())
                .option("subscribe", "on-kafka")
                .load();
        assertThat(values(batch)).isEqualTo(expected());
        batch.select("key", "value", "partition")
                .write()
                .format("isthmus")
                .mode("append")
                .option("kafka.bootstrap.servers", kafka.bootstrapServers())
                .option("topic", "on-kafka-copy")
                .save();
        final StreamingQuery query = spark.readStream()
                .format("isthmus")
                .option("kafka.bootstrap.servers", kafka.bootstrapServers())
                .option("subscribe", "on-kafka-copy")
                .option("startingOffsets", "earliest")
                .load()
                .selectExpr("CAST(value AS STRING) AS value")
                .writeStream()
                .format("memory")
                .queryName("kafka_copy")
                .trigger(Trigger.AvailableNow())
                .option("checkpointLocation", dir.resolve("kafka-copy").toString())
                .start();
        query.awaitTermination();
        assertThat(values(spark.table("kafka_copy"))).isEqualTo(expected());
    }

    @Test
    void sparksKafkaSourceReadsTheIsthmusBroker() throws Exception {
        isthmus.createTopic("for-spark-kafka", 3);
        isthmus.produce("for-spark-kafka", 3, 0, RECORDS, System.currentTimeMillis());
        final Dataset<Row> batch = spark.read()
                .format("kafka")
                .option("kafka.bootstrap.servers", isthmus.bootstrapServers())
                .option("subscribe", "for-spark-kafka")
                .load();
        assertThat(values(batch)).isEqualTo(expected());
        final StreamingQuery query = spark.readStream()
                .format("kafka")
                .option("kafka.bootstrap.servers", isthmus.bootstrapServers())
                .option("subscribe", "for-spark-kafka")
                .option("startingOffsets", "earliest")
                .option("maxOffsetsPerTrigger", "100")
                .load()
                .selectExpr("CAST(value AS STRING) AS value")
                .writeStream()
                .format("memory")
                .queryName("spark_kafka_on_isthmus")
                .trigger(Trigger.AvailableNow())
                .option("checkpointLocation", dir.resolve("spark-kafka").toString())
                .start();
        query.awaitTermination();
        assertThat(values(spark.table("spark_kafka_on_isthmus"))).isEqualTo(expected());
    }
}
