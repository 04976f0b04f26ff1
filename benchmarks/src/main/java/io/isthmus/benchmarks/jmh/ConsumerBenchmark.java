package io.isthmus.benchmarks.jmh;

import io.isthmus.broker.Broker;
import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerRecordHandler;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.client.producer.IsthmusProducer;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Consume throughput of the isthmus consumer and of kafka-clients' {@link KafkaConsumer} against the same broker: an
 * isthmus broker started in the benchmark's JVM ({@link Broker#startEmbedded}) on tmpfs, whose one-partition topic is
 * preloaded once per trial with {@link #preloadRecords()} records of {@code recordBytes} bytes. Each invocation
 * consumes {@value #RECORDS_PER_INVOCATION} records; at the end of the preloaded range the consumer seeks back to
 * offset 0 and reads it again, so a trial runs for any time over the same data. Score is records per second (one
 * operation is one record); bytes per second is the score times {@code recordBytes} (value bytes).
 *
 * <p>Both consumers use {@code assign}, CRC checks on, {@code fetch.max.wait.ms=0} (a fetch that reaches the end of the
 * range while the consumer is about to seek back returns at once instead of long-polling), and look at each value the
 * same way: its size and first eight bytes. The isthmus consumer runs its allocation-free {@code poll(handler, limit,
 * timeout)} with a 4 MiB partition fetch size (its recommended settings, as in the harness); kafka-clients runs {@code
 * poll(Duration)} with {@code byte[]} values and its defaults. Invocations carry over what one poll delivered past
 * the invocation's count, so on average each consumes exactly its share.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx2g"})
public class ConsumerBenchmark {
    static final int RECORDS_PER_INVOCATION = 10_000;
    static final String TOPIC = "consumer-bench";
    static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final ValueLayout.OfLong BIG_ENDIAN_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** The embedded broker and its preloaded topic, shared by the consumer states of one trial. */
    @State(Scope.Benchmark)
    public static class PreloadedBroker {
        @Param({"100", "1024"})
        public int recordBytes;

        Path dir;
        Broker broker;
        int records;

        @Setup(Level.Trial)
        public void start() throws IOException, InterruptedException {
            records = preloadRecords(recordBytes);
            dir = BenchmarkBatches.scratchDirectory("isthmus-consumer-bench");
            broker = Broker.startEmbedded(dir, Map.of());
            try (IsthmusAdmin admin = new IsthmusAdmin(broker.bootstrapServers())) {
                admin.createTopic(TOPIC, 1, (short) 1);
            }
            final Map<String, Object> settings = new HashMap<>();
            settings.put("bootstrap.servers", broker.bootstrapServers());
            settings.put("linger.ms", "2");
            settings.put("batch.size", Integer.toString(256 * 1024));
            settings.put("buffer.memory", Long.toString(64L << 20));
            settings.put("transport", "tcp");
            final byte[] value = new byte[recordBytes];
            for (int i = 0; i < value.length; i++) {
                value[i] = (byte) (i * 31 + 7);
            }
            try (IsthmusProducer producer = new IsthmusProducer(settings)) {
                for (int i = 0; i < records; i++) {
                    producer.send(TOPIC, 0, IsthmusProducer.NOW, null, value, null, null);
                }
                producer.flush();
            }
        }

        @TearDown(Level.Trial)
        public void stop() throws IOException, InterruptedException {
            broker.close();
            BenchmarkBatches.deleteTree(dir);
        }
    }

    /** Records preloaded: a multiple of the invocation's count, about 45 MB of 100 B records or 105 MB of 1 KiB. */
    static int preloadRecords(final int recordBytes) {
        return recordBytes <= 100 ? 40 * RECORDS_PER_INVOCATION : 10 * RECORDS_PER_INVOCATION;
    }

    /** The isthmus zero-copy consumer; the handler reads each value's size and first long in place. */
    @State(Scope.Thread)
    public static class Isthmus implements ConsumerRecordHandler {
        IsthmusConsumer consumer;
        int range;
        long inPass;
        long credit;
        long sum;

        @Setup(Level.Trial)
        public void open(final PreloadedBroker preloaded) {
            final Map<String, Object> settings = new HashMap<>();
            settings.put("bootstrap.servers", preloaded.broker.bootstrapServers());
            settings.put("fetch.max.wait.ms", "0");
            settings.put("max.partition.fetch.bytes", Integer.toString(4 * 1024 * 1024));
            settings.put("transport", "tcp");
            consumer = new IsthmusConsumer(settings);
            consumer.assign(List.of(PARTITION));
            consumer.seek(PARTITION, 0);
            range = preloaded.records;
        }

        @Override
        public void onRecord(final ConsumedRecord record) {
            final int size = record.valueSize();
            sum += size + (size >= Long.BYTES ? record.segment().get(BIG_ENDIAN_LONG, record.valueOffset()) : 0L);
        }

        @TearDown(Level.Trial)
        public void close() {
            consumer.close();
        }
    }

    /** kafka-clients' consumer with {@code byte[]} values, as an application uses it. */
    @State(Scope.Thread)
    public static class Kafka {
        KafkaConsumer<byte[], byte[]> consumer;
        int range;
        long inPass;
        long credit;

        @Setup(Level.Trial)
        public void open(final PreloadedBroker preloaded) {
            final Properties props = new Properties();
            props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, preloaded.broker.bootstrapServers());
            props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 0);
            props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
            props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
            consumer = new KafkaConsumer<>(props);
            consumer.assign(List.of(PARTITION));
            consumer.seek(PARTITION, 0);
            range = preloaded.records;
        }

        @TearDown(Level.Trial)
        public void close() {
            consumer.close();
        }
    }

    @Benchmark
    @OperationsPerInvocation(RECORDS_PER_INVOCATION)
    public long isthmus(final Isthmus state) {
        state.credit += RECORDS_PER_INVOCATION;
        while (state.credit > 0) {
            if (state.inPass == state.range) {
                state.consumer.seek(PARTITION, 0);
                state.inPass = 0;
            }
            final int limit = (int) Math.min(state.credit, state.range - state.inPass);
            final int handled = state.consumer.poll(state, limit, POLL);
            state.inPass += handled;
            state.credit -= handled;
        }
        return state.sum;
    }

    @Benchmark
    @OperationsPerInvocation(RECORDS_PER_INVOCATION)
    public long kafkaConsumer(final Kafka state) {
        long sum = 0;
        state.credit += RECORDS_PER_INVOCATION;
        while (state.credit > 0) {
            if (state.inPass == state.range) {
                state.consumer.seek(PARTITION, 0);
                state.inPass = 0;
            }
            final ConsumerRecords<byte[], byte[]> records = state.consumer.poll(POLL);
            for (final ConsumerRecord<byte[], byte[]> record : records) {
                final byte[] value = record.value();
                sum += value.length + (value.length >= Long.BYTES ? firstLong(value) : 0L);
            }
            state.inPass += records.count();
            state.credit -= records.count();
        }
        return sum;
    }

    private static long firstLong(final byte[] value) {
        long result = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            result = (result << 8) | (value[i] & 0xFF);
        }
        return result;
    }
}
