package io.isthmus.connector.flink.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.connector.flink.source.enumerator.initializer.OffsetsInitializer;
import io.isthmus.connector.flink.source.reader.deserializer.IsthmusRecordDeserializationSchema;
import io.isthmus.connector.flink.testing.FlinkTestJobs;
import io.isthmus.connector.flink.testing.IsthmusBrokerExtension;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.LongValue;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The zero-copy proof: a job whose deserializer parses a field straight from each record's bytes, in the buffer the
 * fetch brought, allocates under one heap byte per record on the reader's two threads (the split fetcher thread that
 * polls and the task thread that deserializes and emits), in steady state. Measured with HotSpot's per-thread
 * allocation counters, as the client's own proof is.
 */
class ZeroCopySourceAllocationTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkTestJobs.miniCluster();

    @RegisterExtension
    static final IsthmusBrokerExtension BROKER = new IsthmusBrokerExtension();

    private static final int RECORDS = 1_000_000;
    private static final long MEASURE_FROM = RECORDS / 4;
    private static final ValueLayout.OfLong BIG_ENDIAN_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Samples of the two threads' allocation counters, taken from inside the job (same JVM: a MiniCluster). */
    static final class Samples {
        static volatile long taskThread;
        static volatile long fetcherThread;
        static volatile long taskBefore;
        static volatile long fetcherBefore;
        static volatile long taskAfter;
        static volatile long fetcherAfter;
        static volatile long measuredRecords;
        static volatile long sum;
    }

    /** Reads the value's first 8 bytes in place into one reused {@link LongValue}; allocates nothing per record. */
    static final class InPlaceLongs implements IsthmusRecordDeserializationSchema<LongValue> {
        private transient LongValue reuse;
        private transient long seen;
        private transient long sum;

        @Override
        public void deserialize(final ConsumedRecord record, final Collector<LongValue> out) {
            if (reuse == null) {
                reuse = new LongValue();
            }
            final long value = record.segment().get(BIG_ENDIAN_LONG, record.valueOffset());
            sum += value;
            seen++;
            if (seen == MEASURE_FROM) {
                sampleBefore();
            } else if (seen == RECORDS) {
                sampleAfter(seen - MEASURE_FROM, sum);
            }
            reuse.setValue(value);
            out.collect(reuse);
        }

        @Override
        public TypeInformation<LongValue> getProducedType() {
            return TypeInformation.of(LongValue.class);
        }
    }

    private static com.sun.management.ThreadMXBean threads() {
        return (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    }

    private static void sampleBefore() {
        Samples.taskThread = Thread.currentThread().threadId();
        for (final Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("Source Data Fetcher")) {
                Samples.fetcherThread = t.threadId();
            }
        }
        Samples.taskBefore = threads().getThreadAllocatedBytes(Samples.taskThread);
        Samples.fetcherBefore = threads().getThreadAllocatedBytes(Samples.fetcherThread);
    }

    private static void sampleAfter(final long measured, final long sum) {
        Samples.taskAfter = threads().getThreadAllocatedBytes(Samples.taskThread);
        Samples.fetcherAfter = threads().getThreadAllocatedBytes(Samples.fetcherThread);
        Samples.measuredRecords = measured;
        Samples.sum = sum;
    }

    @Test
    void shouldAllocateUnderOneBytePerRecordOnTheReaderThreads() throws Exception {
        final String topic = "zero-copy";
        BROKER.createTopic(topic, 1);
        final List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = BROKER.producer()) {
            for (long i = 0; i < RECORDS; i++) {
                final byte[] value = java.nio.ByteBuffer.allocate(16).putLong(i).array();
                acks.add(producer.send(new ProducerRecord<>(topic, 0, null, value)));
            }
            producer.flush();
        }
        for (final Future<RecordMetadata> ack : acks) {
            ack.get();
        }
        acks.clear();
        final StreamExecutionEnvironment env = FlinkTestJobs.failFast(1);
        env.getConfig().enableObjectReuse();
        env.fromSource(
                        IsthmusSource.<LongValue>builder()
                                .setBootstrapServers(BROKER.bootstrapServers())
                                .setTopics(topic)
                                .setProperty("transport", "tcp")
                                .setProperty("max.partition.fetch.bytes", Integer.toString(4 << 20))
                                .setBounded(OffsetsInitializer.latest())
                                .setDeserializer(new InPlaceLongs())
                                .build(),
                        WatermarkStrategy.noWatermarks(),
                        "isthmus")
                // Flink's SinkWriterOperator allocates an Object[] per element itself; a filter that keeps nothing
                // ends the chain without it, so what is measured is the source's path.
                .filter(value -> value.getValue() < 0)
                .sinkTo(new DiscardingSink<>());
        env.execute("zero-copy");

        assertThat(Samples.sum).as("every value read in place").isEqualTo((long) RECORDS * (RECORDS - 1) / 2);
        assertThat(Samples.fetcherThread)
                .as("the split fetcher thread was found")
                .isNotZero();
        final double task = (double) (Samples.taskAfter - Samples.taskBefore) / Samples.measuredRecords;
        final double fetcher = (double) (Samples.fetcherAfter - Samples.fetcherBefore) / Samples.measuredRecords;
        System.out.printf(
                "zero-copy source: %.3f heap bytes/record on the task thread, %.3f on the fetcher thread, over %d records%n",
                task, fetcher, Samples.measuredRecords);
        assertThat(task).as("heap bytes per record on the task thread").isLessThan(1.0);
        assertThat(fetcher)
                .as("heap bytes per record on the split fetcher thread")
                .isLessThan(1.0);
    }
}
