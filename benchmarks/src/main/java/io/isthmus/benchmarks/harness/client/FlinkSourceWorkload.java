package io.isthmus.benchmarks.harness.client;

import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.connector.flink.source.IsthmusSource;
import io.isthmus.connector.flink.source.reader.deserializer.IsthmusRecordDeserializationSchema;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The same Flink job, source → map → discarding sink, on a local Flink in this JVM with one slot per partition, reading
 * the preloaded topic once (bounded at its end): with {@link IsthmusSource} and its zero-copy deserializer for the
 * isthmus client, with Flink's own {@link KafkaSource} (flink-connector-kafka) for kafka-clients. Both deserializers
 * produce the value's first 8 bytes as a {@code Long}: the isthmus one reads them in place, Kafka's from the {@code
 * byte[]} kafka-clients made. The map counts records; the clock runs from the warmup's last record (the first tenth)
 * to the last one, so job start-up and split assignment do not count.
 */
public final class FlinkSourceWorkload implements Workload {
    private static final ValueLayout.OfLong BIG_ENDIAN_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Records a map subtask counts before it adds them to the shared count, so the count costs nothing per record. */
    private static final int COUNT_STRIDE = 1_024;

    /** Shared with the job's subtasks (a local Flink runs in this JVM). */
    private static final AtomicLong COUNTED = new AtomicLong();

    private static volatile WorkloadContext context;
    private static volatile long warmup;
    private static volatile long startNanos;
    private static volatile long endNanos;
    private static volatile long measuredFrom;

    @Override
    public Map<String, Object> run(final WorkloadContext workloadContext) throws Exception {
        context = workloadContext;
        warmup = Math.max(COUNT_STRIDE, workloadContext.records() / 10);
        COUNTED.set(0);
        startNanos = 0;
        endNanos = 0;
        final int parallelism = workloadContext.settings().partitions();
        final StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism);
        env.fromSource(source(workloadContext), WatermarkStrategy.noWatermarks(), "source")
                .map(new CountingMap())
                .sinkTo(new DiscardingSink<>());
        env.execute("bench flink-source");
        final long counted = COUNTED.get();
        if (counted != workloadContext.records() || endNanos == 0) {
            throw new IllegalStateException(
                    "the job read " + counted + " records, expected " + workloadContext.records());
        }
        final Map<String, Object> result = new LinkedHashMap<>();
        Throughput.put(result, counted - measuredFrom, workloadContext.recordBytes(), endNanos - startNanos);
        result.put("parallelism", parallelism);
        return result;
    }

    private static Source<Long, ?, ?> source(final WorkloadContext context) {
        final ClientSettings settings = context.settings();
        return switch (context.library()) {
            case ISTHMUS, ISTHMUS_SHM ->
                IsthmusSource.<Long>builder()
                        .setBootstrapServers(settings.bootstrap())
                        .setTopics(settings.topic())
                        .setProperty("transport", context.library() == ClientLibrary.ISTHMUS_SHM ? "shm" : "tcp")
                        .setProperty("max.partition.fetch.bytes", Integer.toString(4 << 20))
                        .setStartingOffsets(
                                io.isthmus.connector.flink.source.enumerator.initializer.OffsetsInitializer.earliest())
                        .setBounded(
                                io.isthmus.connector.flink.source.enumerator.initializer.OffsetsInitializer.latest())
                        .setDeserializer(new InPlaceLongs())
                        .build();
            case KAFKA_CLIENTS ->
                KafkaSource.<Long>builder()
                        .setBootstrapServers(settings.bootstrap())
                        .setTopics(settings.topic())
                        .setStartingOffsets(OffsetsInitializer.earliest())
                        .setBounded(OffsetsInitializer.latest())
                        .setDeserializer(new ArrayLongs())
                        .build();
        };
    }

    /** The value's first 8 bytes, read in place from the fetched bytes. */
    static final class InPlaceLongs implements IsthmusRecordDeserializationSchema<Long> {
        @Override
        public void deserialize(final ConsumedRecord record, final Collector<Long> out) {
            out.collect(record.segment().get(BIG_ENDIAN_LONG, record.valueOffset()));
        }

        @Override
        public TypeInformation<Long> getProducedType() {
            return Types.LONG;
        }
    }

    /** The value's first 8 bytes, from the {@code byte[]} kafka-clients made. */
    static final class ArrayLongs implements KafkaRecordDeserializationSchema<Long> {
        @Override
        public void deserialize(final ConsumerRecord<byte[], byte[]> record, final Collector<Long> out) {
            out.collect(ByteBuffer.wrap(record.value()).getLong());
        }

        @Override
        public TypeInformation<Long> getProducedType() {
            return Types.LONG;
        }
    }

    /** Passes records on and counts them; marks the measured phase's start and end. */
    static final class CountingMap extends RichMapFunction<Long, Long> {
        private transient long local;

        @Override
        public Long map(final Long value) {
            if (++local == COUNT_STRIDE) {
                add(local);
                local = 0;
            }
            return value;
        }

        @Override
        public void close() {
            add(local);
            local = 0;
        }

        private static void add(final long records) {
            final long before = COUNTED.getAndAdd(records);
            final long after = before + records;
            if (before < warmup && after >= warmup) {
                measuredFrom = after;
                startNanos = System.nanoTime();
                context.beginPhase();
            }
            if (after == context.records()) {
                endNanos = System.nanoTime();
                context.endPhase();
            }
        }
    }
}
