package io.isthmus.broker.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.log.AppendOrigin;
import io.isthmus.broker.log.LogConfig;
import io.isthmus.broker.log.PartitionLog;
import io.isthmus.broker.log.SegmentIdAllocator;
import io.isthmus.broker.producer.ProducerRejectedException;
import io.isthmus.protocol.record.EndTransactionMarker;
import io.isthmus.protocol.record.RecordBatchBuilder;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidCommitOffsetSizeException;
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
        return openLog(8192);
    }

    private PartitionLog openLog(final int segmentBytes) throws IOException {
        if (log != null) {
            log.close();
        }
        log = PartitionLog.open(
                tmp.resolve(GroupOffsetsLog.TOPIC + "-0"),
                LogConfig.from(Map.of(
                        LogConfig.SEGMENT_BYTES, Integer.toString(segmentBytes),
                        LogConfig.PREALLOCATE, "false",
                        LogConfig.PRETOUCH_BYTES, "0",
                        LogConfig.INDEX_SIZE_MAX_BYTES, "4096",
                        LogConfig.RETENTION_MS, "-1")),
                ids,
                InstantSource.system());
        return log;
    }

    private GroupOffsetsLog load() throws IOException {
        return load(8192);
    }

    private GroupOffsetsLog load(final int segmentBytes) throws IOException {
        final PartitionLog opened = openLog(segmentBytes);
        return GroupOffsetsLog.load(opened, batch -> appended(opened, batch), InstantSource.system());
    }

    /** As a cluster's group coordinator appends: as the broker's coordinator, not as a client. */
    private static CompletableFuture<Void> appended(final PartitionLog log, final MemorySegment batch) {
        log.append(batch, 0, AppendOrigin.COORDINATOR);
        return CompletableFuture.completedFuture(null);
    }

    /** Writes the producer's COMMIT or ABORT marker to the log, as WriteTxnMarkers does, and tells the offsets. */
    private void endTransaction(
            final GroupOffsetsLog offsets, final long producerId, final short epoch, final boolean commit) {
        writeMarker(producerId, epoch, commit);
        offsets.endTransaction(producerId, epoch, commit);
    }

    /** Only writes the marker: as when the replicas did not confirm it, and the offsets were not told. */
    private void writeMarker(final long producerId, final short epoch, final boolean commit) {
        final MemorySegment buffer = MemorySegment.ofArray(new byte[EndTransactionMarker.MAX_BATCH_LENGTH]);
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            final int length = EndTransactionMarker.write(
                    builder, buffer, 0, producerId, epoch, commit, 0, System.currentTimeMillis());
            log.append(buffer.asSlice(0, length), 0, AppendOrigin.COORDINATOR);
        }
    }

    private static CommittedOffset at(final long offset, final String metadata) {
        return new CommittedOffset(offset, 3, metadata, 1_700_000_000_000L + offset);
    }

    @Test
    void aCommitIsReadBackFromTheLogWholeAndTheLatestCommitOfAPartitionWins() throws IOException {
        try (GroupOffsetsLog offsets = load()) {
            offsets.commit("readers", Map.of(ORDERS_0, at(10, "first"), ORDERS_1, at(20, "")))
                    .join();
            offsets.commit("readers", Map.of(ORDERS_0, at(15, "second"))).join();
            offsets.commit("writers", Map.of(PAYMENTS_0, at(7, "ünïcode ✓"))).join();
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
            offsets.commit("readers", Map.of(ORDERS_0, at(10, ""), PAYMENTS_0, at(4, "")))
                    .join();
            offsets.commit("auditors", Map.of(ORDERS_1, at(2, ""))).join();
            offsets.deleteTopic("orders").join();
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
                batch -> refuse[0]
                        ? CompletableFuture.failedFuture(
                                new NotEnoughReplicasException("one replica in sync, two needed"))
                        : appended(opened, batch),
                InstantSource.system())) {
            offsets.commit("readers", Map.of(ORDERS_0, at(10, ""))).join();
            refuse[0] = true;
            assertThatThrownBy(() -> offsets.commit("readers", Map.of(ORDERS_0, at(99, ""), ORDERS_1, at(5, "")))
                            .join())
                    .hasCauseInstanceOf(NotEnoughReplicasException.class);
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
                offsets.commit("readers", Map.of(partition, offset)).join();
                offsets.compactIfDue().join();
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

    @Test
    void aCommitLargerThanTheLogTakesIsRefusedWithInvalidCommitOffsetSizeAndChangesNothing() throws IOException {
        try (GroupOffsetsLog offsets = load()) {
            offsets.commit("readers", Map.of(ORDERS_0, at(10, ""))).join();
            final Map<TopicPartition, CommittedOffset> huge = new LinkedHashMap<>();
            // Over the 8 KiB segment this log has.
            for (int p = 0; p < 500; p++) {
                huge.put(new TopicPartition("orders", p), at(p, ""));
            }
            assertThatThrownBy(() -> offsets.commit("readers", huge).join())
                    .hasCauseInstanceOf(InvalidCommitOffsetSizeException.class)
                    .hasMessageContaining("segment bytes=8192");
            assertThat(offsets.committed("readers")).containsOnly(Map.entry(ORDERS_0, at(10, "")));
        }
    }

    @Test
    void compactionRewritesAGroupOfMorePartitionsThanOneBatchHoldsInSeveralBatches() throws IOException {
        final Map<TopicPartition, CommittedOffset> many = new LinkedHashMap<>();
        for (int p = 0; p < 2_000; p++) {
            many.put(new TopicPartition("orders", p), at(p, ""));
        }
        // Segments of 128 KiB: the 2,000 offsets (about 70 KB) fit in one commit, and take two batches of at most
        // 64 KiB when rewritten.
        try (GroupOffsetsLog offsets = load(128 * 1024)) {
            // One commit of 2,000 partitions, then small ones until segments fill.
            offsets.commit("wide", many).join();
            for (int round = 0; round < 6_000; round++) {
                offsets.commit("narrow", Map.of(ORDERS_0, at(round, ""))).join();
                offsets.compactIfDue().join();
            }
            assertThat(log.logStartOffset()).as("older segments deleted").isPositive();
        }
        try (GroupOffsetsLog reloaded = load(128 * 1024)) {
            assertThat(reloaded.committed("wide")).isEqualTo(many);
            assertThat(reloaded.committed("narrow")).containsOnly(Map.entry(ORDERS_0, at(5_999, "")));
        }
    }

    @Test
    void aTopicDeletionThatFailsMidwayForgetsOnlyWhatItsDurableBatchesRemoved() throws IOException {
        final PartitionLog opened = openLog();
        final int[] appends = {0};
        final int[] refuseAfter = {Integer.MAX_VALUE};
        try (GroupOffsetsLog offsets = GroupOffsetsLog.load(
                opened,
                batch -> ++appends[0] > refuseAfter[0]
                        ? CompletableFuture.failedFuture(new NotEnoughReplicasException("one replica in sync"))
                        : appended(opened, batch),
                InstantSource.system())) {
            // 300 groups with an offset of orders: their tombstones take several batches of at most 4 KiB.
            for (int g = 0; g < 300; g++) {
                offsets.commit("group-" + g, Map.of(ORDERS_0, at(g, ""))).join();
            }
            refuseAfter[0] = appends[0] + 1;
            assertThatThrownBy(() -> offsets.deleteTopic("orders").join())
                    .hasCauseInstanceOf(NotEnoughReplicasException.class);
            final long left = offsets.groupIds().size();
            assertThat(left)
                    .as("groups whose tombstone was not written (the first batch was)")
                    .isPositive()
                    .isLessThan(300);
            final java.util.Set<String> inMemory = offsets.groupIds();
            try (GroupOffsetsLog reloaded =
                    GroupOffsetsLog.load(opened, batch -> appended(opened, batch), InstantSource.system())) {
                assertThat(reloaded.groupIds()).as("the log agrees with memory").isEqualTo(inMemory);
            }
        }
    }

    @Test
    void offsetsCommittedInATransactionCountOnceItsCommitMarkerIsWrittenAndAnAbortDropsThem() throws IOException {
        try (GroupOffsetsLog offsets = load()) {
            offsets.commit("readers", Map.of(ORDERS_0, at(5, "plain"))).join();
            offsets.commitTransactional("readers", 7, (short) 0, Map.of(ORDERS_0, at(10, "tx"), ORDERS_1, at(11, "tx")))
                    .join();
            offsets.commitTransactional("readers", 8, (short) 2, Map.of(PAYMENTS_0, at(3, "aborted")))
                    .join();
            assertThat(offsets.committed("readers"))
                    .as("before the markers")
                    .containsOnly(Map.entry(ORDERS_0, at(5, "plain")));
            assertThat(offsets.pendingPartitions("readers")).contains(ORDERS_0);
            assertThat(offsets.pendingPartitions("readers")).contains(PAYMENTS_0);
            assertThat(offsets.pendingPartitions("writers")).doesNotContain(ORDERS_0);

            endTransaction(offsets, 7, (short) 0, true);
            endTransaction(offsets, 8, (short) 2, false);

            assertThat(offsets.committed("readers"))
                    .containsOnly(Map.entry(ORDERS_0, at(10, "tx")), Map.entry(ORDERS_1, at(11, "tx")));
            assertThat(offsets.pendingPartitions("readers")).doesNotContain(ORDERS_0);
            assertThat(offsets.pendingPartitions("readers")).doesNotContain(PAYMENTS_0);
        }
        try (GroupOffsetsLog reloaded = load()) {
            assertThat(reloaded.committed("readers"))
                    .as("read again: the COMMIT marker applied the transaction's offsets, the ABORT dropped them")
                    .containsOnly(Map.entry(ORDERS_0, at(10, "tx")), Map.entry(ORDERS_1, at(11, "tx")));
            assertThat(reloaded.pendingPartitions("readers")).doesNotContain(PAYMENTS_0);
        }
    }

    @Test
    void aTransactionStillOpenWhenTheLogIsLoadedKeepsItsOffsetsPendingUntilItsMarker() throws IOException {
        try (GroupOffsetsLog offsets = load()) {
            offsets.commitTransactional("readers", 9, (short) 1, Map.of(ORDERS_0, at(40, "")))
                    .join();
            // A second commit in the same transaction: no sequence numbers, so it is no duplicate of the first.
            offsets.commitTransactional("readers", 9, (short) 1, Map.of(ORDERS_1, at(41, "")))
                    .join();
        }
        try (GroupOffsetsLog reloaded = load()) {
            assertThat(reloaded.committed("readers")).isEmpty();
            assertThat(reloaded.pendingPartitions("readers")).contains(ORDERS_0);
            assertThat(reloaded.pendingPartitions("readers")).contains(ORDERS_1);
            endTransaction(reloaded, 9, (short) 1, true);
            assertThat(reloaded.committed("readers"))
                    .containsOnly(Map.entry(ORDERS_0, at(40, "")), Map.entry(ORDERS_1, at(41, "")));
        }
    }

    @Test
    void compactionKeepsEverySegmentFromAnOpenTransactionsOffsetsOnAndFreesThemOnceItEnds() throws IOException {
        final long transactionStart;
        try (GroupOffsetsLog offsets = load()) {
            commitRounds(offsets, 0, 200);
            final long before = log.logStartOffset();
            assertThat(before).as("compacted before the transaction").isPositive();
            transactionStart = log.logEndOffset();
            offsets.commitTransactional("readers", 9, (short) 0, Map.of(PAYMENTS_0, at(77, "open")))
                    .join();
            commitRounds(offsets, 200, 600);
            assertThat(log.logStartOffset())
                    .as("no segment from the open transaction's first batch on is deleted")
                    .isLessThanOrEqualTo(transactionStart);
            assertThat(log.segments().size())
                    .as("segments kept for the open transaction (compaction alone keeps at most 3)")
                    .isGreaterThan(3);
        }
        try (GroupOffsetsLog reloaded = load()) {
            assertThat(reloaded.pendingPartitions("readers")).contains(PAYMENTS_0);
            endTransaction(reloaded, 9, (short) 0, true);
            commitRounds(reloaded, 600, 1_000);
            assertThat(log.logStartOffset()).as("freed once it ended").isGreaterThan(transactionStart);
            assertThat(reloaded.committed("readers")).containsEntry(PAYMENTS_0, at(77, "open"));
        }
        try (GroupOffsetsLog reloaded = load()) {
            assertThat(reloaded.committed("readers"))
                    .as("the applied offsets outlive the segments that held the transaction")
                    .containsEntry(PAYMENTS_0, at(77, "open"))
                    .containsEntry(new TopicPartition("orders", 9), at(999, ""));
            assertThat(reloaded.pendingPartitions("readers")).isEmpty();
        }
    }

    @Test
    void aTransactionWhoseMarkerIsInTheLogButNotAppliedKeepsItsSegmentsUntilTheMarkerIsWrittenAgain()
            throws IOException {
        try (GroupOffsetsLog offsets = load()) {
            final long transactionStart = log.logEndOffset();
            offsets.commitTransactional("readers", 9, (short) 0, Map.of(PAYMENTS_0, at(77, "")))
                    .join();
            // The marker reached the log, but its replicas did not confirm it: the coordinator writes it again later.
            writeMarker(9, (short) 0, true);
            commitRounds(offsets, 0, 400);
            assertThat(log.logStartOffset())
                    .as("the log's last stable offset passed the transaction, its offsets are still pending here")
                    .isLessThanOrEqualTo(transactionStart);
            endTransaction(offsets, 9, (short) 0, true);
            assertThat(offsets.committed("readers")).containsEntry(PAYMENTS_0, at(77, ""));
        }
    }

    @Test
    void aMarkerOfAnOlderEpochNeitherAppliesNorDropsTheOffsetsOfTheProducersNewerTransaction() throws IOException {
        try (GroupOffsetsLog offsets = load()) {
            offsets.commitTransactional("readers", 9, (short) 0, Map.of(ORDERS_0, at(1, "first")))
                    .join();
            endTransaction(offsets, 9, (short) 0, true);
            offsets.commitTransactional("readers", 9, (short) 1, Map.of(ORDERS_0, at(2, "second")))
                    .join();

            offsets.endTransaction(9, (short) 0, true);
            offsets.endTransaction(9, (short) 0, false);
            assertThat(offsets.committed("readers")).containsOnly(Map.entry(ORDERS_0, at(1, "first")));
            assertThat(offsets.pendingPartitions("readers")).containsExactly(ORDERS_0);
            assertThatThrownBy(() -> writeMarker(9, (short) 0, true))
                    .as("the log refuses the older epoch's marker, on the leader as on its replicas")
                    .isInstanceOf(ProducerRejectedException.class);

            endTransaction(offsets, 9, (short) 1, true);
            assertThat(offsets.committed("readers")).containsOnly(Map.entry(ORDERS_0, at(2, "second")));
        }
    }

    /** Plain commits of rounds {@code from..to}, over ten partitions of orders, each followed by a compaction check. */
    private static void commitRounds(final GroupOffsetsLog offsets, final int from, final int to) {
        for (int round = from; round < to; round++) {
            offsets.commit("readers", Map.of(new TopicPartition("orders", round % 10), at(round, "")))
                    .join();
            offsets.compactIfDue().join();
        }
    }

    @Test
    void aDeletedTopicsOffsetsHeldByAnOpenTransactionAreDroppedAndStayDroppedWhenItCommits() throws IOException {
        try (GroupOffsetsLog offsets = load()) {
            offsets.commitTransactional("readers", 9, (short) 0, Map.of(ORDERS_0, at(1, ""), PAYMENTS_0, at(2, "")))
                    .join();
            offsets.deleteTopic("orders").join();
            assertThat(offsets.pendingPartitions("readers")).doesNotContain(ORDERS_0);
            endTransaction(offsets, 9, (short) 0, true);
            assertThat(offsets.committed("readers")).containsOnly(Map.entry(PAYMENTS_0, at(2, "")));
        }
        try (GroupOffsetsLog reloaded = load()) {
            assertThat(reloaded.committed("readers")).containsOnly(Map.entry(PAYMENTS_0, at(2, "")));
        }
    }

    @Test
    void aGroupsLastMembershipIsReadBackAndOutlivesCompaction() throws IOException {
        final GroupMembership first = new GroupMembership(
                "readers",
                "consumer",
                1,
                "range",
                "m-1",
                List.of(new GroupMembership.Member(
                        "m-1", null, "client-1", "/127.0.0.1", 10_000, 30_000, new byte[] {1, 2}, new byte[] {3})));
        final GroupMembership second = new GroupMembership(
                "readers",
                "consumer",
                2,
                "range",
                "m-1",
                List.of(
                        new GroupMembership.Member(
                                "m-1", null, "client-1", "/127.0.0.1", 10_000, 30_000, new byte[] {1, 2}, new byte[] {4
                                }),
                        new GroupMembership.Member(
                                "m-2", "static-2", "client-2", "/127.0.0.2", 12_000, 30_000, new byte[0], new byte[] {5
                                })));
        final GroupMembership writers = new GroupMembership(
                "writers",
                "consumer",
                2,
                "range",
                "w-1",
                List.of(new GroupMembership.Member(
                        "w-1", null, null, "/127.0.0.1", 10_000, 30_000, new byte[0], new byte[0])));
        final GroupMembership emptied = new GroupMembership("writers", "consumer", 3, null, null, List.of());
        try (GroupOffsetsLog offsets = load()) {
            offsets.storeMembership(first).join();
            offsets.storeMembership(second).join();
            offsets.storeMembership(writers).join();
            offsets.storeMembership(emptied).join();
            assertThat(offsets.memberships()).as("an emptied group has none").hasSize(1);
            commitRounds(offsets, 0, 400);
            assertThat(log.logStartOffset())
                    .as("compacted past the memberships' first records")
                    .isPositive();
        }
        try (GroupOffsetsLog reloaded = load()) {
            assertThat(reloaded.memberships())
                    .as("the emptied group's was tombstoned")
                    .hasSize(1);
            final GroupMembership readers = reloaded.memberships().stream()
                    .filter(m -> m.groupId().equals("readers"))
                    .findFirst()
                    .orElseThrow();
            assertThat(readers.generationId()).isEqualTo(2);
            assertThat(readers.members()).hasSize(2);
            assertThat(readers.members().get(1).groupInstanceId()).isEqualTo("static-2");
            assertThat(readers.members().get(1).assignment()).containsExactly(5);
            assertThat(readers.members().get(0).subscription()).containsExactly(1, 2);
        }
    }
}
