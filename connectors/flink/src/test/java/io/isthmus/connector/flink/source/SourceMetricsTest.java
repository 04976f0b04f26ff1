package io.isthmus.connector.flink.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.connector.flink.testing.FlinkTestJobs;
import io.isthmus.connector.flink.testing.IsthmusBrokerExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The source's metrics as a metric reporter sees them, in a running job. */
class SourceMetricsTest {
    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(2)
            .setConfiguration(REPORTER.addToConfiguration(new Configuration()))
            .build());

    @RegisterExtension
    static final IsthmusBrokerExtension BROKER = new IsthmusBrokerExtension();

    /** The source operator's metrics are named {@code ...Source: <name>.<subtask>.<metric>}. */
    private static final String SOURCE = "Source: metered source.0.";

    private static Object value(final Map<String, Metric> metrics, final String name) {
        final List<Metric> found = metrics.entrySet().stream()
                .filter(e -> e.getKey().endsWith(SOURCE + name))
                .map(Map.Entry::getValue)
                .toList();
        assertThat(found).as("the source's metric %s", name).hasSize(1);
        final Metric metric = found.get(0);
        return metric instanceof Gauge<?> gauge ? gauge.getValue() : ((Counter) metric).getCount();
    }

    @Test
    void shouldReportBytesPendingRecordsFetchLagAndOffsetsPerPartition() throws Exception {
        final String topic = "metered";
        final String group = "metered-group";
        BROKER.createTopic(topic, 2);
        final long aMinuteAgo = System.currentTimeMillis() - 60_000;
        BROKER.write(topic, 0, "m0", 0, 500, aMinuteAgo);
        BROKER.write(topic, 1, "m1", 0, 300, aMinuteAgo);
        final StreamExecutionEnvironment env = FlinkTestJobs.failFast(1);
        env.enableCheckpointing(100);
        env.fromSource(
                        IsthmusSource.<String>builder()
                                .setBootstrapServers(BROKER.bootstrapServers())
                                .setTopics(topic)
                                .setGroupId(group)
                                .setValueOnlyDeserializer(new SimpleStringSchema())
                                .build(),
                        WatermarkStrategy.noWatermarks(),
                        "metered source")
                .sinkTo(new DiscardingSink<>());
        final JobClient job = env.executeAsync("metrics");
        final JobID jobId = job.getJobID();
        try {
            final TopicPartition p0 = new TopicPartition(topic, 0);
            final TopicPartition p1 = new TopicPartition(topic, 1);
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            Map<String, Metric> metrics = Map.of();
            while (System.nanoTime() - deadline < 0) {
                metrics = REPORTER.getMetricsByIdentifiers(jobId);
                if (BROKER.admin()
                                .listConsumerGroupOffsets(group, List.of(p0, p1))
                                .equals(Map.of(p0, 500L, p1, 300L))
                        && metrics.keySet().stream().anyMatch(k -> k.endsWith("committedOffset"))
                        && Long.valueOf(300L).equals(committedOf(metrics, 1))) {
                    break;
                }
                Thread.sleep(100);
            }
            assertThat((Long) value(metrics, "numRecordsIn")).isEqualTo(800L);
            assertThat((Long) value(metrics, "numBytesIn"))
                    .as("record batches fetched")
                    .isGreaterThan(800L * 10);
            assertThat(value(metrics, "pendingRecords")).as("caught up").isEqualTo(0L);
            assertThat((Long) value(metrics, "currentFetchEventTimeLag"))
                    .as("records stamped a minute before they were fetched")
                    .isBetween(59_000L, 600_000L);
            assertThat(value(metrics, "isthmus.topic.metered.partition.0.currentOffset"))
                    .isEqualTo(499L);
            assertThat(value(metrics, "isthmus.topic.metered.partition.1.currentOffset"))
                    .isEqualTo(299L);
            assertThat(committedOf(metrics, 0)).isEqualTo(500L);
            assertThat(committedOf(metrics, 1)).isEqualTo(300L);
            assertThat((Long) value(metrics, "isthmus.commitsSucceeded")).isPositive();
            assertThat(value(metrics, "isthmus.commitsFailed")).isEqualTo(0L);
        } finally {
            job.cancel().get();
        }
    }

    private static Long committedOf(final Map<String, Metric> metrics, final int partition) {
        return metrics.entrySet().stream()
                .filter(e -> e.getKey()
                        .endsWith(SOURCE + "isthmus.topic.metered.partition." + partition + ".committedOffset"))
                .map(e -> (Long) ((Gauge<?>) e.getValue()).getValue())
                .findFirst()
                .orElse(null);
    }
}
