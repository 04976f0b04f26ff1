package io.isthmus.connector.spark.source;

import java.util.Map;
import java.util.SortedMap;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code maxOffsetsPerTrigger}: the end offsets of a micro-batch that reads at most {@code limit} offsets, shared among
 * partitions in proportion to what each has waiting. Unlike a rounding-up share, the shares never add up to more than
 * the limit: each partition gets the floor of its share, and what the floors left is handed out one offset at a time
 * to the partitions with the largest remainders.
 */
final class RateLimit {
    private RateLimit() {}

    static SortedMap<TopicPartition, Long> apply(
            final long limit, final Map<TopicPartition, Long> from, final SortedMap<TopicPartition, Long> end) {
        long total = 0;
        for (final Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            total += waiting(from, e);
        }
        if (total <= limit) {
            return end;
        }
        final SortedMap<TopicPartition, Long> bounded = OffsetsJson.sortedMap();
        final Map<TopicPartition, Double> remainders = new java.util.HashMap<>();
        long given = 0;
        for (final Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            final long waiting = waiting(from, e);
            final double share = (double) limit * waiting / total;
            final long floor = Math.min(waiting, (long) Math.floor(share));
            bounded.put(e.getKey(), start(from, e) + floor);
            remainders.put(e.getKey(), share - floor);
            given += floor;
        }
        final java.util.List<TopicPartition> byRemainder = new java.util.ArrayList<>(remainders.keySet());
        byRemainder.sort((a, b) -> Double.compare(remainders.get(b), remainders.get(a)));
        for (int i = 0; given < limit && i < byRemainder.size(); i++) {
            final TopicPartition partition = byRemainder.get(i);
            if (bounded.get(partition) < end.get(partition)) {
                bounded.merge(partition, 1L, Long::sum);
                given++;
            }
        }
        return bounded;
    }

    private static long start(final Map<TopicPartition, Long> from, final Map.Entry<TopicPartition, Long> end) {
        return from.getOrDefault(end.getKey(), end.getValue());
    }

    private static long waiting(final Map<TopicPartition, Long> from, final Map.Entry<TopicPartition, Long> end) {
        return Math.max(0, end.getValue() - start(from, end));
    }
}
