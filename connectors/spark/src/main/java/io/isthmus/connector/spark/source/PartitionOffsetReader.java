package io.isthmus.connector.spark.source;

import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.cluster.OffsetAndTime;
import io.isthmus.client.cluster.OffsetLookup;
import io.isthmus.client.consumer.ConsumerConfig;
import io.isthmus.client.security.SecuritySettings;
import io.isthmus.connector.spark.IsthmusOptions;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's view of the log: which partitions the subscription has and their offsets, through an {@link
 * IsthmusAdmin}. Lookups that fail are retried {@code fetchOffset.numRetries} times, as Spark's Kafka offset reader
 * does; a wrong option is never retried.
 */
public final class PartitionOffsetReader implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionOffsetReader.class);

    private final ReadOptions options;
    private final IsthmusAdmin admin;
    private final boolean readCommitted;

    public PartitionOffsetReader(final ReadOptions options) {
        this.options = options;
        this.admin = new IsthmusAdmin(
                options.consumerSettings().get(IsthmusOptions.BOOTSTRAP_SERVERS),
                Duration.ofSeconds(30),
                SecuritySettings.of(options.consumerSettings()));
        this.readCommitted = "read_committed".equals(options.consumerSettings().get(ConsumerConfig.ISOLATION_LEVEL));
    }

    /** The subscription's partitions now. */
    public Set<TopicPartition> partitions() {
        return retrying("partitions of " + options.subscription().describe(), () -> options.subscription()
                .partitions(admin));
    }

    /** The log start offset of each partition. */
    public TreeMap<TopicPartition, Long> earliest(final Collection<TopicPartition> partitions) {
        return lookup(partitions, OffsetLookup.EARLIEST);
    }

    /** The end of each partition: the high watermark, or the last stable offset for {@code read_committed}. */
    public TreeMap<TopicPartition, Long> latest(final Collection<TopicPartition> partitions) {
        return lookup(partitions, OffsetLookup.LATEST);
    }

    /**
     * The offsets {@code spec} means for {@code partitions}.
     *
     * @param option the option the spec came from, for messages
     */
    public TreeMap<TopicPartition, Long> resolve(
            final OffsetSpec spec, final Set<TopicPartition> partitions, final String option) {
        return switch (spec) {
            case OffsetSpec.Earliest e -> earliest(partitions);
            case OffsetSpec.Latest l -> latest(partitions);
            case OffsetSpec.Specific s -> specific(s.offsets(), partitions, option);
            case OffsetSpec.ByTimestamp t -> byTimestamp(covering(t.timestamps(), partitions, option), t.strategy());
            case OffsetSpec.GlobalTimestamp g -> {
                final Map<TopicPartition, Long> query = new HashMap<>();
                partitions.forEach(p -> query.put(p, g.timestamp()));
                yield byTimestamp(query, g.strategy());
            }
        };
    }

    private TreeMap<TopicPartition, Long> specific(
            final Map<TopicPartition, Long> given, final Set<TopicPartition> partitions, final String option) {
        final Map<TopicPartition, Long> offsets = covering(given, partitions, option);
        final Set<TopicPartition> earliest = new TreeSet<>(OffsetsJson.PARTITION_ORDER);
        final Set<TopicPartition> latest = new TreeSet<>(OffsetsJson.PARTITION_ORDER);
        offsets.forEach((p, o) -> {
            if (o == OffsetSpec.EARLIEST) {
                earliest.add(p);
            } else if (o == OffsetSpec.LATEST) {
                latest.add(p);
            }
        });
        final TreeMap<TopicPartition, Long> result = OffsetsJson.sortedMap();
        result.putAll(offsets);
        if (!earliest.isEmpty()) {
            result.putAll(earliest(earliest));
        }
        if (!latest.isEmpty()) {
            result.putAll(latest(latest));
        }
        return result;
    }

    /** A per-partition map must name exactly the subscription's partitions, as Spark's Kafka source requires. */
    private static Map<TopicPartition, Long> covering(
            final Map<TopicPartition, Long> given, final Set<TopicPartition> partitions, final String option) {
        final Set<TopicPartition> unknown = new TreeSet<>(OffsetsJson.PARTITION_ORDER);
        unknown.addAll(given.keySet());
        unknown.removeAll(partitions);
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException(
                    "option '" + option + "' names partitions the subscription does not have: " + unknown
                            + " (subscribed: " + partitions + ")");
        }
        final Set<TopicPartition> missing = new TreeSet<>(OffsetsJson.PARTITION_ORDER);
        missing.addAll(partitions);
        missing.removeAll(given.keySet());
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("option '" + option + "' must give every subscribed partition (-2 for"
                    + " earliest, -1 for latest in offsets); missing: " + missing);
        }
        return given;
    }

    private TreeMap<TopicPartition, Long> byTimestamp(
            final Map<TopicPartition, Long> timestamps, final OffsetSpec.NoOffsetStrategy strategy) {
        final Map<TopicPartition, OffsetAndTime> found =
                retrying("offsets for timestamps", () -> admin.listOffsets(timestamps, readCommitted));
        final TreeMap<TopicPartition, Long> result = OffsetsJson.sortedMap();
        final Set<TopicPartition> none = new TreeSet<>(OffsetsJson.PARTITION_ORDER);
        timestamps.forEach((partition, timestamp) -> {
            final OffsetAndTime offset = found.get(partition);
            if (offset == null || offset.offset() < 0) {
                none.add(partition);
            } else {
                result.put(partition, offset.offset());
            }
        });
        if (!none.isEmpty()) {
            if (strategy == OffsetSpec.NoOffsetStrategy.ERROR) {
                throw new IllegalStateException("no record at or after the given timestamp in " + none + " (timestamps "
                        + timestamps + "); set the option '" + IsthmusOptions.STARTING_OFFSETS_BY_TIMESTAMP_STRATEGY
                        + "' to 'latest' to start those partitions at their latest offset instead");
            }
            result.putAll(latest(none));
        }
        return result;
    }

    private TreeMap<TopicPartition, Long> lookup(final Collection<TopicPartition> partitions, final long what) {
        final TreeMap<TopicPartition, Long> result = OffsetsJson.sortedMap();
        if (partitions.isEmpty()) {
            return result;
        }
        final Map<TopicPartition, Long> query = new HashMap<>();
        partitions.forEach(p -> query.put(p, what));
        final String name = what == OffsetLookup.EARLIEST ? "earliest" : "latest";
        final Map<TopicPartition, OffsetAndTime> found =
                retrying(name + " offsets of " + partitions, () -> admin.listOffsets(query, readCommitted));
        for (final TopicPartition partition : partitions) {
            final OffsetAndTime offset = found.get(partition);
            if (offset == null || offset.offset() < 0) {
                throw new IllegalStateException("no " + name + " offset for partition " + partition + " from "
                        + options.consumerSettings().get(IsthmusOptions.BOOTSTRAP_SERVERS));
            }
            result.put(partition, offset.offset());
        }
        return result;
    }

    private <T> T retrying(final String what, final Supplier<T> lookup) {
        RuntimeException last = null;
        for (int attempt = 0; attempt <= options.fetchOffsetRetries(); attempt++) {
            if (attempt > 0) {
                LOG.warn(
                        "retrying {} ({} of {}) after: {}",
                        what,
                        attempt,
                        options.fetchOffsetRetries(),
                        last.toString());
                try {
                    Thread.sleep(options.fetchOffsetRetryIntervalMs());
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while looking up " + what, e);
                }
            }
            try {
                return lookup.get();
            } catch (final IllegalArgumentException | IllegalStateException e) {
                throw e;
            } catch (final RuntimeException e) {
                last = e;
            }
        }
        throw new IllegalStateException(
                "looking up " + what + " failed after " + (options.fetchOffsetRetries() + 1) + " attempts, brokers "
                        + options.consumerSettings().get(IsthmusOptions.BOOTSTRAP_SERVERS),
                last);
    }

    @Override
    public void close() {
        admin.close();
    }
}
