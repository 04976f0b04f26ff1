package io.isthmus.client.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.client.testing.KafkaTopics;
import io.isthmus.testing.ApacheKafkaBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The isthmus consumer with {@code isolation.level=read_committed} reading what kafka-clients' transactional producers
 * wrote to a real Apache Kafka 4.4 broker: transactions of two producers overlapping in one partition, committed and
 * aborted in turn, with a non-transactional record between them. The consumer must hand out exactly the committed and
 * non-transactional records in offset order, whether a fetch brings the whole log or a batch at a time (then each
 * fetch's aborted-transaction list names transactions that began before the fetch offset); {@code read_uncommitted}
 * still hands out every record.
 */
class ReadCommittedKafkaTest {
    private static final String RC = "read_committed";
    private static final String RU = "read_uncommitted";

    @TempDir
    static Path dir;

    private static ApacheKafkaBroker kafka;

    @BeforeAll
    static void startKafka() throws Exception {
        kafka = ApacheKafkaBroker.start(dir);
    }

    @AfterAll
    static void stopKafka() {
        kafka.close();
    }

    private static KafkaProducer<byte[], byte[]> producer(final String transactionalId, final String compression) {
        final Map<String, Object> settings = new HashMap<>();
        settings.put("bootstrap.servers", kafka.bootstrapServers());
        settings.put("compression.type", compression);
        settings.put("linger.ms", 0);
        if (transactionalId != null) {
            settings.put("transactional.id", transactionalId);
        }
        return new KafkaProducer<>(settings, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** The log as written, in offset order. */
    private static final class Log {
        final List<String> all = new ArrayList<>();

        /** Writes {@code values} as one batch (sent, then flushed) of {@code producer}. */
        void write(final Producer<byte[], byte[]> producer, final String topic, final String... values) {
            for (final String value : values) {
                producer.send(new ProducerRecord<>(topic, 0, null, value.getBytes(StandardCharsets.UTF_8)));
                all.add(value);
            }
            producer.flush();
        }
    }

    @ParameterizedTest(name = "compression={0}, max.partition.fetch.bytes={1}")
    @CsvSource({"none, 1048576", "lz4, 1048576", "none, 1", "zstd, 1"})
    void shouldNotHandOutRecordsOfAbortedTransactions(final String compression, final int fetchBytes) {
        final String topic = "kafka-txn-" + compression + "-" + fetchBytes;
        KafkaTopics.create(kafka.bootstrapServers(), topic, 1);
        final Log log = new Log();
        try (KafkaProducer<byte[], byte[]> a = producer("a-" + topic, compression);
                KafkaProducer<byte[], byte[]> b = producer("b-" + topic, compression);
                KafkaProducer<byte[], byte[]> plain = producer(null, compression)) {
            a.initTransactions();
            b.initTransactions();

            // a commits, b aborts, with b's transaction open on both sides of a's commit marker.
            a.beginTransaction();
            b.beginTransaction();
            log.write(a, topic, "a1-0", "a1-1", "a1-2");
            log.write(b, topic, "b1-0", "b1-1");
            log.write(plain, topic, "plain-0");
            log.write(a, topic, "a1-3");
            log.write(b, topic, "b1-2", "b1-3", "b1-4");
            a.commitTransaction();
            log.write(b, topic, "b1-5");
            b.abortTransaction();

            // b's next transaction commits: its batches after its ABORT marker count again.
            b.beginTransaction();
            log.write(b, topic, "b2-0", "b2-1");
            b.commitTransaction();

            // a aborts one and commits the next.
            a.beginTransaction();
            log.write(a, topic, "a2-0", "a2-1");
            a.abortTransaction();
            a.beginTransaction();
            log.write(a, topic, "a3-0");
            a.commitTransaction();
        }
        final List<String> committed = List.of("a1-0", "a1-1", "a1-2", "plain-0", "a1-3", "b2-0", "b2-1", "a3-0");
        final Map<String, Integer> settings = Map.of("max.partition.fetch.bytes", fetchBytes);
        for (final boolean byRecord : new boolean[] {false, true}) {
            assertThat(KafkaTopics.read(kafka.bootstrapServers(), topic, 1, RC, byRecord, settings)
                            .get(0))
                    .as("read_committed, %s", byRecord ? "record by record" : "whole fetches")
                    .isEqualTo(committed);
            assertThat(KafkaTopics.read(kafka.bootstrapServers(), topic, 1, RU, byRecord, settings)
                            .get(0))
                    .as("read_uncommitted, %s", byRecord ? "record by record" : "whole fetches")
                    .isEqualTo(log.all);
        }
    }
}
