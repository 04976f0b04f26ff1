package io.isthmus.connector.flink.source.reader;

import io.isthmus.connector.flink.source.split.IsthmusPartitionSplitState;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.kafka.common.TopicPartition;

/**
 * The source reader's metrics: FLIP-33's {@code numBytesIn}, {@code pendingRecords} and {@code
 * currentFetchEventTimeLag} (Flink counts {@code numRecordsIn} itself), and, as Kafka's source, per partition {@code currentOffset} and {@code committedOffset}
 * under {@code isthmus.topic.<topic>.partition.<n>}, plus {@code commitsSucceeded} and {@code commitsFailed}.
 *
 * <p>Written from the fetcher thread (bytes, pending records) and the task thread (offsets); read by Flink's metric
 * reporters on their own threads, hence the volatile fields. Nothing here runs per record: the current offset gauge
 * reads the split state the emitter already updates.
 */
final class IsthmusSourceReaderMetrics {
    static final String GROUP = "isthmus";
    /** FLIP-33's name: how long before its fetch the first record of the latest fetch was stamped, in ms. */
    static final String CURRENT_FETCH_EVENT_TIME_LAG = "currentFetchEventTimeLag";

    static final long UNKNOWN = -1L;

    private final SourceReaderMetricGroup metrics;
    private final Counter bytesIn;
    private final Counter commitsSucceeded;
    private final Counter commitsFailed;
    private final Map<TopicPartition, PartitionGauges> partitions = new ConcurrentHashMap<>();
    private volatile long pendingRecords = UNKNOWN;
    private volatile long fetchEventTimeLag = UNKNOWN;

    /** The gauges of one partition; a restarted split replaces the state they read. */
    private static final class PartitionGauges {
        volatile IsthmusPartitionSplitState state;
        volatile long committedOffset = UNKNOWN;
    }

    IsthmusSourceReaderMetrics(final SourceReaderMetricGroup metrics) {
        this.metrics = metrics;
        this.bytesIn = metrics.getIOMetricGroup().getNumBytesInCounter();
        final MetricGroup group = metrics.addGroup(GROUP);
        this.commitsSucceeded = group.counter("commitsSucceeded");
        this.commitsFailed = group.counter("commitsFailed");
        metrics.setPendingRecordsGauge(() -> pendingRecords < 0 ? null : pendingRecords);
        metrics.gauge(CURRENT_FETCH_EVENT_TIME_LAG, () -> fetchEventTimeLag);
    }

    /** A split's state to report the current offset of (the offset of the last record emitted). */
    void registerSplit(final IsthmusPartitionSplitState state) {
        final TopicPartition partition = state.split().partition();
        final PartitionGauges gauges = partitions.computeIfAbsent(partition, p -> {
            final PartitionGauges created = new PartitionGauges();
            final MetricGroup group = metrics.addGroup(GROUP)
                    .addGroup("topic", p.topic())
                    .addGroup("partition", Integer.toString(p.partition()));
            group.gauge("currentOffset", () -> {
                final IsthmusPartitionSplitState s = created.state;
                return s == null ? UNKNOWN : s.nextOffset() - 1;
            });
            group.gauge("committedOffset", () -> created.committedOffset);
            return created;
        });
        gauges.state = state;
    }

    void committed(final Map<TopicPartition, Long> offsets) {
        commitsSucceeded.inc();
        offsets.forEach((partition, offset) -> {
            final PartitionGauges gauges = partitions.get(partition);
            if (gauges != null) {
                gauges.committedOffset = offset;
            }
        });
    }

    void commitFailed() {
        commitsFailed.inc();
    }

    void bytesIn(final long bytes) {
        bytesIn.inc(bytes);
    }

    /** Once per fetch, from its first record: when it was fetched minus its timestamp. */
    void fetchEventTimeLag(final long lagMillis) {
        fetchEventTimeLag = lagMillis;
    }

    void pendingRecords(final long records) {
        pendingRecords = records;
    }
}
