package io.isthmus.connector.flink.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.connector.flink.sink.IsthmusRecordSerializationSchema;
import io.isthmus.connector.flink.sink.IsthmusSink;
import io.isthmus.connector.flink.source.enumerator.initializer.OffsetsInitializer;
import io.isthmus.connector.flink.testing.FlinkTestJobs;
import io.isthmus.connector.flink.testing.IsthmusBrokerExtension;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Bad input fails the job with a clear cause, never a hang: an unreachable broker, a corrupt batch on disk. */
class BadInputJobTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkTestJobs.miniCluster();

    @RegisterExtension
    static final IsthmusBrokerExtension BROKER = new IsthmusBrokerExtension();

    private static List<String> run(final IsthmusSource<String> source) throws Exception {
        final List<String> values = new ArrayList<>();
        try (CloseableIterator<String> it = FlinkTestJobs.failFast(1)
                .fromSource(source, WatermarkStrategy.noWatermarks(), "isthmus")
                .executeAndCollect()) {
            it.forEachRemaining(values::add);
        }
        return values;
    }

    @Test
    void shouldFailTheJobWhenTheBrokerCannotBeReached() {
        final IsthmusSource<String> source = IsthmusSource.<String>builder()
                .setBootstrapServers("127.0.0.1:1")
                .setTopics("anything")
                .setBounded(OffsetsInitializer.latest())
                .setValueOnlyDeserializer(new SimpleStringSchema())
                .build();
        assertThatThrownBy(() -> run(source))
                .hasStackTraceContaining("partition discovery failed")
                .hasStackTraceContaining("127.0.0.1:1");
    }

    @Test
    void shouldFailTheSinkWhenTheBrokerCannotBeReached() {
        final StreamExecutionEnvironment env = FlinkTestJobs.failFast(1);
        env.fromData(List.of("a", "b"))
                .sinkTo(IsthmusSink.<String>builder()
                        .setBootstrapServers("127.0.0.1:1")
                        .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                        .setProperty("max.block.ms", "2000")
                        .setRecordSerializer(IsthmusRecordSerializationSchema.<String>builder()
                                .setTopic("anything")
                                .setValueSerializationSchema(new SimpleStringSchema())
                                .build())
                        .build());
        assertThatThrownBy(() -> env.execute("unreachable sink")).hasStackTraceContaining("127.0.0.1:1");
    }

    /**
     * A batch damaged on the broker's disk after it was acknowledged: the consumer's CRC check refuses it and the job
     * fails naming the partition and the batch, instead of handing out damaged records.
     */
    @Test
    void shouldFailTheJobOnACorruptBatchNamingItsPartitionAndOffset() throws Exception {
        BROKER.createTopic("damaged", 1);
        BROKER.write("damaged", 0, "d", 0, 100, 0);
        final Path partitionDir = BROKER.logDir().resolve("damaged-0");
        final Path segment;
        try (Stream<Path> files = Files.list(partitionDir)) {
            segment = files.filter(p -> p.getFileName().toString().endsWith(".log"))
                    .findFirst()
                    .orElseThrow();
        }
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            // Past the 61-byte header of the first batch: a byte of its first record, covered by the CRC.
            final ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, 70);
            one.flip();
            final byte flipped = (byte) ~one.get(0);
            channel.write(ByteBuffer.wrap(new byte[] {flipped}), 70);
        }
        final IsthmusSource<String> source = IsthmusSource.<String>builder()
                .setBootstrapServers(BROKER.bootstrapServers())
                .setTopics("damaged")
                .setProperty("transport", "tcp")
                .setBounded(OffsetsInitializer.latest())
                .setValueOnlyDeserializer(new SimpleStringSchema())
                .build();
        assertThatThrownBy(() -> run(source))
                .hasStackTraceContaining("CRC mismatch")
                .hasStackTraceContaining("topic=damaged, partition=0, baseOffset=0");
        assertThat(Files.exists(segment)).isTrue();
    }

    /** An operator chained after the source fails with its own error, not as a deserialization failure of the record. */
    @Test
    void shouldReportAFailingChainedOperatorAsItself() throws Exception {
        BROKER.createTopic("downstream", 1);
        BROKER.write("downstream", 0, "x", 0, 10, 0);
        final IsthmusSource<String> source = IsthmusSource.<String>builder()
                .setBootstrapServers(BROKER.bootstrapServers())
                .setTopics("downstream")
                .setBounded(OffsetsInitializer.latest())
                .setValueOnlyDeserializer(new SimpleStringSchema())
                .build();
        final StreamExecutionEnvironment env = FlinkTestJobs.failFast(1);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "isthmus")
                .map(value -> {
                    if (value.equals("x-3")) {
                        throw new IllegalStateException("the operator rejects " + value);
                    }
                    return value;
                })
                .sinkTo(new org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink<>());
        final Throwable failure = org.assertj.core.api.Assertions.catchThrowable(() -> env.execute("downstream"));
        final java.io.StringWriter trace = new java.io.StringWriter();
        failure.printStackTrace(new java.io.PrintWriter(trace));
        assertThat(trace.toString()).contains("the operator rejects x-3").doesNotContain("failed to deserialize");
    }
}
