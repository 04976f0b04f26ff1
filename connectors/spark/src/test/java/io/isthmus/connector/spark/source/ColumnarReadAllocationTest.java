package io.isthmus.connector.spark.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.connector.spark.KafkaRecordSchema;
import io.isthmus.connector.spark.SparkTestSupport;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The executor's read path, without Spark around it: a range read into column batches holds every record's bytes, and
 * allocates nothing per record on the heap (the bytes are copied once, into the columns' native memory).
 */
class ColumnarReadAllocationTest {
    private static final String TOPIC = "allocation";
    private static final int RECORDS = 200_000;

    private static SparkTestSupport isthmus;

    @BeforeAll
    static void start() throws Exception {
        isthmus = SparkTestSupport.start(Map.of());
        isthmus.createTopic(TOPIC, 1);
        isthmus.produce(TOPIC, 1, 0, RECORDS, 1_700_000_000_000L);
    }

    @AfterAll
    static void stop() throws Exception {
        isthmus.close();
    }

    private static IsthmusInputPartition range(final long from, final long until, final boolean headers) {
        return new IsthmusInputPartition(
                new OffsetRange(new TopicPartition(TOPIC, 0), from, until),
                Map.of("bootstrap.servers", isthmus.bootstrapServers(), "group.id", "allocation-test"),
                true,
                KafkaRecordSchema.schema(headers),
                30_000,
                new String[0]);
    }

    @Test
    void columnsHoldEveryRecordAndAllocateNothingPerRecord() {
        final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long rows = 0;
        long measuredRows = 0;
        long allocated = 0;
        try (PartitionRangeReader reader = new PartitionRangeReader(range(0, RECORDS, true))) {
            long before = 0;
            while (true) {
                if (rows >= RECORDS / 2 && before == 0) {
                    before = threads.getCurrentThreadAllocatedBytes(); // warmed up: measure the second half
                    measuredRows = rows;
                }
                if (!reader.next()) {
                    break;
                }
                final ColumnarBatch batch = reader.get();
                for (int r = 0; r < batch.numRows(); r += 997) {
                    final long offset = batch.column(KafkaRecordSchema.OFFSET).getLong(r);
                    final String value =
                            new String(batch.column(KafkaRecordSchema.VALUE).getBinary(r), StandardCharsets.UTF_8);
                    assertThat(value).isEqualTo("value-" + offset);
                    assertThat(batch.column(KafkaRecordSchema.TOPIC)
                                    .getUTF8String(r)
                                    .toString())
                            .isEqualTo(TOPIC);
                    assertThat(batch.column(KafkaRecordSchema.HEADERS)
                                    .getArray(r)
                                    .getStruct(0, 2)
                                    .getBinary(1))
                            .isEqualTo(Long.toString(offset).getBytes(StandardCharsets.UTF_8));
                }
                rows += batch.numRows();
            }
            allocated = threads.getCurrentThreadAllocatedBytes() - before;
            measuredRows = rows - measuredRows;
        }
        assertThat(rows).isEqualTo(RECORDS);
        System.out.printf(
                "columnar read: %.3f heap bytes per record over %d records%n",
                (double) allocated / measuredRows, measuredRows);
        // Per fetch and per batch there are a few objects; per record, none (one object would be 16 bytes or more).
        assertThat((double) allocated / measuredRows)
                .as("heap bytes per record")
                .isLessThan(4.0);
    }

    @Test
    void aSecondRangeReusesTheCachedConsumer() {
        try (PartitionRangeReader first = new PartitionRangeReader(range(0, 1_000, false))) {
            while (first.next()) {
                assertThat(first.get().numRows()).isPositive();
            }
        }
        final int idle = ConsumerPool.executor().idleCount();
        assertThat(idle).isPositive();
        try (PartitionRangeReader second = new PartitionRangeReader(range(1_000, 2_000, false))) {
            assertThat(second.next()).isTrue();
            assertThat(second.get().column(KafkaRecordSchema.OFFSET).getLong(0)).isEqualTo(1_000);
            assertThat(ConsumerPool.executor().idleCount()).isEqualTo(idle - 1);
        }
        assertThat(ConsumerPool.executor().idleCount()).isEqualTo(idle);
    }
}
