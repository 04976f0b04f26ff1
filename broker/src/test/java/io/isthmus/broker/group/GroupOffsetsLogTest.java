package io.isthmus.broker.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.log.LogConfig;
import io.isthmus.broker.log.PartitionLog;
import io.isthmus.broker.log.SegmentIdAllocator;
import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The committed offsets of one {@code __consumer_offsets} partition, kept in and read back from a real log. */
class GroupOffsetsLogTest {
    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);
    private static final TopicPartition PAYMENTS_0 = new TopicPartition("payments", 0);

    @TempDir
    Path tmp;

    private final SegmentIdAllocator ids = new SegmentIdAllocator();
    private PartitionLog log;

    @AfterEach
    void close() {
        if (log != null) {
            log.close();
        }
    }

    private PartitionLog openLog() throws IOException {
        if (log != null) {
            log.close();
        }
        log = PartitionLog.open(
                tmp.resolve(GroupOffsetsLog.TOPIC + "-0"),
                LogConfig.from(Map.of(
                        LogConfig.SEGMENT_BYTES, "8192",
                        LogConfig.PREALLOCATE, "false",
                        LogConfig.PRETOUCH_BYTES, "0",
                        LogConfig.INDEX_SIZE_MAX_BYTES, "4096",
                        LogConfig.RETENTION_MS, "-1")),
                ids,
                InstantSource.system());
        return log;
    }

    private GroupOffsetsLog load() throws IOException {
        final PartitionLog opened = openLog();
        return GroupOffsetsLog.load(opened, batch -> opened.append(batch, 0), InstantSource.system());
    }

    private static CommittedOffset at(final long offset, final String metadata) {
        return new CommittedOffset(offset, 3, metadata, 1_700_000_000_000L + offset);
    }

    @Test
    void aCommitIsReadBackFromTheLogWholeAndTheLatestCommitOfAPartitionWins() throws IOException {
        try (GroupOffsetsLog offsets = load()) {
            offsets.commit("readers", Map.of(ORDERS_0, at(10, "first"), ORDERS_1, at(20, "")));
            offsets.commit("readers", Map.of(ORDERS_0, at(15, "second")));
            offsets.commit("writers", Map.of(PAYMENTS_0, at(7, "ünïcode ✓")));
            assertThat(offsets.committed("readers"))
                    .containsOnly(Map.entry(ORDERS_0, at(15, "second")), Map.entry(ORDERS_1, at(20, "")));
        }
        try (GroupOffsetsLog reloaded = load()) {
            assertThat(reloaded.committed("readers"))
                    .as("after reading the log again")
                    .containsOnly(Map.entry(ORDERS_0, at(15, "second")), Map.entry(ORDERS_1, at(20, "")));
            assertThat(reloaded.committed("writers")).containsOnly(Map.entry(PAYMENTS_0, at(7, "ünïcode ✓")));
            assertThat(reloaded.committed("nobody")).isEmpty();
            assertThat(reloaded.groupIds()).containsExactlyInAnyOrder("readers", "writers");
        }
    }

    @Test
    void aDeletedTopicsOffsetsAreTombstonedForEveryGroupAndStayGoneAfterALoad() throws IOException {
        try (GroupOffsetsLog offsets = load()) {
            offsets.commit("readers", Map.of(ORDERS_0, at(10, ""), PAYMENTS_0, at(4, "")));
            offsets.commit("auditors", Map.of(ORDERS_1, at(2, "")));
            offsets.deleteTopic("orders");
            assertThat(offsets.committed("readers")).containsOnly(Map.entry(PAYMENTS_0, at(4, "")));
            assertThat(offsets.committed("auditors")).isEmpty();
        }
        try (GroupOffsetsLog reloaded = load()) {
            assertThat(reloaded.committed("readers")).containsOnly(Map.entry(PAYMENTS_0, at(4, "")));
            assertThat(reloaded.groupIds()).containsExactly("readers");
        }
    }

    @Test
    void aCommitTheAppenderRefusesChangesNothing() throws IOException {
        final PartitionLog opened = openLog();
        final boolean[] refuse = {false};
        try (GroupOffsetsLog offsets = GroupOffsetsLog.load(
                opened,
                batch -> {
                    if (refuse[0]) {
                        throw new NotEnoughReplicasException("one replica in sync, two needed");
                    }
                    opened.append(batch, 0);
                },
                InstantSource.system())) {
            offsets.commit("readers", Map.of(ORDERS_0, at(10, "")));
            refuse[0] = true;
            assertThatThrownBy(() -> offsets.commit("readers", Map.of(ORDERS_0, at(99, ""), ORDERS_1, at(5, ""))))
                    .isInstanceOf(NotEnoughReplicasException.class);
            assertThat(offsets.committed("readers")).containsOnly(Map.entry(ORDERS_0, at(10, "")));
        }
    }

    @Test
    void theLogCompactsItselfOnceASegmentFillsAndKeepsEveryLatestOffset() throws IOException {
        final Map<TopicPartition, CommittedOffset> latest = new LinkedHashMap<>();
        try (GroupOffsetsLog offsets = load()) {
            // Far more than fits in one 8 KiB segment: ten partitions, committed over and over.
            for (int round = 0; round < 400; round++) {
                final TopicPartition partition = new TopicPartition("orders", round % 10);
                final CommittedOffset offset = at(round, "round " + round);
                offsets.commit("readers", Map.of(partition, offset));
                latest.put(partition, offset);
            }
            assertThat(log.segments().size())
                    .as("segments after compaction (400 commits would fill many more)")
                    .isLessThanOrEqualTo(3);
            assertThat(log.logStartOffset()).as("older segments deleted").isPositive();
        }
        try (GroupOffsetsLog reloaded = load()) {
            assertThat(reloaded.committed("readers")).isEqualTo(latest);
        }
    }
}
