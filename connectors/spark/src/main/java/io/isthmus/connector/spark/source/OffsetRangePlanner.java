package io.isthmus.connector.spark.source;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits ranges into Spark tasks. With {@code minPartitions} above the number of ranges, large ranges are split into
 * parts in proportion to their size so that there are at least {@code minPartitions} tasks, as Spark's Kafka source
 * does; otherwise every partition's range is one task. Empty ranges are dropped.
 */
final class OffsetRangePlanner {
    private OffsetRangePlanner() {}

    static List<OffsetRange> plan(final List<OffsetRange> ranges, final int minPartitions) {
        final List<OffsetRange> nonEmpty = new ArrayList<>();
        long total = 0;
        for (final OffsetRange range : ranges) {
            if (range.size() > 0) {
                nonEmpty.add(range);
                total += range.size();
            }
        }
        if (minPartitions <= nonEmpty.size() || total == 0) {
            return nonEmpty;
        }
        final List<OffsetRange> split = new ArrayList<>();
        for (final OffsetRange range : nonEmpty) {
            // Each range gets parts in proportion to its share of all offsets, at least one, at most one per offset.
            final long parts = Math.min(
                    range.size(), Math.max(1, (long) Math.ceil((double) range.size() / total * minPartitions)));
            for (long i = 0; i < parts; i++) {
                final long from = range.from() + range.size() * i / parts;
                final long until = range.from() + range.size() * (i + 1) / parts;
                split.add(new OffsetRange(range.partition(), from, until));
            }
        }
        return split;
    }
}
