package io.isthmus.connector.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.connector.flink.source.IsthmusSource;
import io.isthmus.connector.flink.source.enumerator.initializer.OffsetsInitializer;
import io.isthmus.connector.flink.testing.EmbeddedIsthmusCluster;
import io.isthmus.connector.flink.testing.FlinkTestJobs;
import io.isthmus.connector.flink.testing.InjectedFailures;
import io.isthmus.connector.flink.testing.LongTopics;
import java.util.BitSet;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The exactly-once sink on a replicated cluster of three brokers: a job copies longs from one topic to another through
 * a task failure (its restart aborts what the failed run wrote after its last checkpoint) and through one broker
 * leaving mid-job (its leaderships move, the transactions it coordinated with them: the sink's producers and
 * committer find the new coordinators and leaders). A read_committed consumer of the output reads every input record
 * exactly once.
 */
class ExactlyOnceOnAClusterTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkTestJobs.miniCluster();

    private static final int RECORDS = 60_000;
    private static final int PARTITIONS = 3;
    private static final int LEAVING = 2;

    private static EmbeddedIsthmusCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = EmbeddedIsthmusCluster.start(3);
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void everyRecordOnceThroughATaskFailureAndABrokerLeavingMidJob() throws Exception {
        final String bootstrap = cluster.bootstrapServers();
        try (IsthmusAdmin admin = new IsthmusAdmin(bootstrap)) {
            admin.createTopic("ledger-in", PARTITIONS, (short) 3);
            admin.createTopic("ledger-out", PARTITIONS, (short) 3);
        }
        LongTopics.write(bootstrap, "ledger-in", PARTITIONS, RECORDS);

        InjectedFailures.reset();
        final StreamExecutionEnvironment env = FlinkTestJobs.restarting(2, 100);
        env.fromSource(
                        IsthmusSource.<Long>builder()
                                .setBootstrapServers(bootstrap)
                                .setTopics("ledger-in")
                                .setProperty("transport", "tcp")
                                .setBounded(OffsetsInitializer.latest())
                                .setDeserializer(new LongTopics.Deserializer())
                                .build(),
                        WatermarkStrategy.noWatermarks(),
                        "isthmus")
                .map(new InjectedFailures(RECORDS, 1, 20, 400))
                .sinkTo(IsthmusSink.<Long>builder()
                        .setBootstrapServers(bootstrap)
                        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                        .setTransactionalIdPrefix("ledger-job")
                        .setRecordSerializer((value, context, timestamp) ->
                                new ProducerRecord<>("ledger-out", null, null, LongTopics.bytes(value)))
                        .build());
        final JobClient job = env.executeAsync("exactly-once-on-a-cluster");

        // Past the injected failure (half way), at two thirds, a broker leaves under the running job (paced to a few
        // seconds).
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (InjectedFailures.passed() < RECORDS * 2 / 3
                && !job.getJobStatus().get().isGloballyTerminalState()) {
            assertThat(System.nanoTime())
                    .as("the job reaches two thirds of its input")
                    .isLessThan(deadline);
            Thread.sleep(20);
        }
        final long passedWhenLeaving = InjectedFailures.passed();
        cluster.stop(LEAVING);
        job.getJobExecutionResult().get(4, TimeUnit.MINUTES);
        assertThat(InjectedFailures.failed()).as("injected failures").isEqualTo(1);
        assertThat(InjectedFailures.passed())
                .as("records that went through after the broker left")
                .isGreaterThan(passedWhenLeaving);

        final String remaining = cluster.bootstrapServers();
        final BitSet seen = new BitSet(RECORDS);
        for (final long value : LongTopics.read(remaining, "ledger-out", PARTITIONS, "read_committed", RECORDS)) {
            assertThat(seen.get((int) value)).as("record %s once", value).isFalse();
            seen.set((int) value);
        }
        assertThat(seen.cardinality())
                .as("distinct records in the committed output")
                .isEqualTo(RECORDS);
        assertThat(LongTopics.read(remaining, "ledger-out", PARTITIONS, "read_uncommitted", RECORDS).length)
                .as("the log also holds what the failed run wrote after its checkpoint, aborted")
                .isGreaterThan(RECORDS);
    }
}
