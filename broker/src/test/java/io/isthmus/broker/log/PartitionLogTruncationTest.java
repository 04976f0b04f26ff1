package io.isthmus.broker.log;

import static io.isthmus.broker.testkit.TransactionalBatches.transactional;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.log.LeaderEpochCache.Entry;
import io.isthmus.broker.log.LeaderEpochCache.EpochEndOffset;
import io.isthmus.broker.testkit.KafkaBatches;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leader epochs in the log, the follower's append and truncation (KIP-101, KIP-279): what a replica's log must do for
 * replication to lose no acknowledged record and keep no divergent one.
 */
class PartitionLogTruncationTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final long PRODUCER = 4242;

    @TempDir
    Path tmp;

    private final MutableClock clock = new MutableClock(T0);
    private final SegmentIdAllocator ids = new SegmentIdAllocator();
    private final List<PartitionLog> open = new ArrayList<>();

    @AfterEach
    void closeAll() {
        for (final PartitionLog log : open.reversed()) {
            log.close();
        }
    }

    private static LogConfig smallSegments() {
        final Map<String, String> props = new HashMap<>(Map.of(
                LogConfig.SEGMENT_BYTES, "4096",
                LogConfig.INDEX_INTERVAL_BYTES, "256",
                LogConfig.INDEX_SIZE_MAX_BYTES, "4096"));
        return LogConfig.from(props);
    }

    private PartitionLog open(final String name) throws IOException {
        final PartitionLog log = PartitionLog.open(tmp.resolve(name), smallSegments(), ids, clock);
        open.add(log);
        return log;
    }

    /** Closes {@code log} cleanly and opens its directory again. */
    private PartitionLog reopen(final PartitionLog log) throws IOException {
        log.close();
        open.remove(log);
        return open(log.dir().getFileName().toString());
    }

    private static void appendRecords(final PartitionLog log, final int batches, final int epoch) {
        for (int b = 0; b < batches; b++) {
            final long first = log.logEndOffset();
            log.append(TestBatches.segment(TestBatches.batch(first, 4, T0)), epoch);
        }
    }

    private static byte[] bytesOf(final PartitionLog log) {
        final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        long offset = log.logStartOffset();
        while (offset < log.logEndOffset()) {
            try (LogReadResult result = log.read(offset, 1 << 20)) {
                out.writeBytes(result.records().toArray(ValueLayout.JAVA_BYTE));
                offset = result.nextOffset();
            }
        }
        return out.toByteArray();
    }

    private static List<String> valuesOf(final PartitionLog log) {
        return TestBatches.values(java.lang.foreign.MemorySegment.ofArray(bytesOf(log)));
    }

    /** Copies everything {@code leader} has past {@code follower}'s end, as a replica fetch would. */
    private static void replicate(final PartitionLog leader, final PartitionLog follower) {
        while (follower.logEndOffset() < leader.logEndOffset()) {
            try (LogReadResult result = leader.read(follower.logEndOffset(), 1000)) {
                follower.appendAsFollower(result.records());
            }
        }
    }

    @Test
    void eachEpochBeginsAtItsFirstBatchAndTheTableIsReadBackFromTheLog() throws IOException {
        PartitionLog log = open("t-0");
        appendRecords(log, 3, 0); // 0..11
        appendRecords(log, 2, 2); // 12..19
        log.assignLeaderEpoch(5); // led from 20 in epoch 5, nothing written yet
        appendRecords(log, 1, 7); // 20..23

        assertThat(log.leaderEpochs()).containsExactly(new Entry(0, 0), new Entry(2, 12), new Entry(7, 20));
        assertThat(log.endOffsetForEpoch(0)).isEqualTo(new EpochEndOffset(0, 12));
        assertThat(log.endOffsetForEpoch(5)).isEqualTo(new EpochEndOffset(2, 20));
        assertThat(log.endOffsetForEpoch(7)).isEqualTo(new EpochEndOffset(7, 24));

        log = reopen(log);

        assertThat(log.leaderEpochs()).containsExactly(new Entry(0, 0), new Entry(2, 12), new Entry(7, 20));
        assertThat(log.epochAt(13)).isEqualTo(2);
    }

    @Test
    void anEpochBegunWithoutBatchesIsForgottenOnReopenAsKafkaDoes() throws IOException {
        PartitionLog log = open("t-0");
        appendRecords(log, 2, 1);
        log.assignLeaderEpoch(3);
        assertThat(log.latestEpoch()).isEqualTo(3);

        log = reopen(log);

        assertThat(log.leaderEpochs()).containsExactly(new Entry(1, 0));
    }

    @Test
    void aLeaderEpochNeverGoesBack() throws IOException {
        final PartitionLog log = open("t-0");
        appendRecords(log, 1, 4);

        assertThatThrownBy(() -> log.assignLeaderEpoch(3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("epoch=3")
                .hasMessageContaining("latestEpoch=4");
    }

    @Test
    void aFollowerKeepsTheLeadersOffsetsAndEpochsByteForByte() throws IOException {
        final PartitionLog leader = open("leader-0");
        final PartitionLog follower = open("follower-0");
        appendRecords(leader, 40, 0);
        leader.append(KafkaBatches.segment(KafkaBatches.idempotent(PRODUCER, (short) 0, 0, 3)), 1);
        appendRecords(leader, 40, 2);

        replicate(leader, follower);

        assertThat(leader.segments()).hasSizeGreaterThan(2);
        assertThat(follower.logEndOffset()).isEqualTo(leader.logEndOffset());
        assertThat(bytesOf(follower)).isEqualTo(bytesOf(leader));
        assertThat(follower.leaderEpochs()).containsExactly(leader.leaderEpochs());
        // The producer state came along: the leader's retry of the idempotent batch is recognised on the follower too.
        final AppendInfo retry =
                follower.append(KafkaBatches.segment(KafkaBatches.idempotent(PRODUCER, (short) 0, 0, 3)), 3);
        assertThat(retry.duplicate()).isTrue();
        assertThat(retry.firstOffset()).isEqualTo(160);
    }

    @Test
    void batchesThatDoNotContinueTheLogAreRefusedWhole() throws IOException {
        final PartitionLog leader = open("leader-0");
        final PartitionLog follower = open("follower-0");
        appendRecords(leader, 5, 0);
        appendRecords(follower, 1, 0);

        try (LogReadResult fromStart = leader.read(0, 1 << 20)) {
            assertThatThrownBy(() -> follower.appendAsFollower(fromStart.records()))
                    .isInstanceOf(UnexpectedAppendOffsetException.class)
                    .hasMessageContaining("baseOffset=0")
                    .hasMessageContaining("expectedOffset=4");
        }
        assertThat(follower.logEndOffset()).isEqualTo(4);
        try (LogReadResult rest = leader.read(4, 1 << 20)) {
            follower.appendAsFollower(rest.records());
        }
        assertThat(valuesOf(follower)).isEqualTo(valuesOf(leader));
    }

    @Test
    void truncationInsideTheActiveSegmentCutsAtTheBatchThatHoldsTheOffset() throws IOException {
        final PartitionLog log = open("t-0");
        appendRecords(log, 3, 0); // 0..11
        appendRecords(log, 2, 1); // 12..19

        final long end = log.truncateTo(14);

        assertThat(end).isEqualTo(12);
        assertThat(log.logEndOffset()).isEqualTo(12);
        assertThat(log.leaderEpochs()).containsExactly(new Entry(0, 0));
        assertThat(valuesOf(log)).hasSize(12).last().isEqualTo("value-11");
        appendRecords(log, 1, 2);
        assertThat(log.logEndOffset()).isEqualTo(16);
        assertThat(log.leaderEpochs()).containsExactly(new Entry(0, 0), new Entry(2, 12));
    }

    @Test
    void truncationIntoASealedSegmentDeletesLaterOnesAndWritesOnFromTheCut() throws IOException {
        PartitionLog log = open("t-0");
        appendRecords(log, 120, 0);
        final List<LogSegment> before = new ArrayList<>(log.segments());
        assertThat(before).hasSizeGreaterThan(3);
        final LogSegment sealed = before.get(1);
        final long cut = sealed.baseOffset() + 6; // inside its second batch

        final long end = log.truncateTo(cut);

        assertThat(end).isEqualTo(sealed.baseOffset() + 4);
        assertThat(log.segments()).hasSize(2);
        assertThat(log.activeSegment().baseOffset()).isEqualTo(sealed.baseOffset());
        assertThat(log.activeSegment().isSealed()).isFalse();
        try (var files = Files.list(log.dir())) {
            assertThat(files.filter(f -> f.toString().endsWith(".log"))).hasSize(2);
        }
        appendRecords(log, 30, 1);
        final List<String> values = valuesOf(log);
        assertThat(values).hasSize((int) end + 120);
        assertThat(values.get((int) end - 1)).isEqualTo("value-" + (end - 1));
        assertThat(values.get((int) end)).isEqualTo("value-" + end);

        final byte[] written = bytesOf(log);
        log = reopen(log);

        assertThat(bytesOf(log)).isEqualTo(written);
        assertThat(log.leaderEpochs()).containsExactly(new Entry(0, 0), new Entry(1, end));
    }

    @Test
    void truncationAtASegmentsFirstBatchReplacesTheSegment() throws IOException {
        final PartitionLog log = open("t-0");
        appendRecords(log, 120, 0);
        final LogSegment third = new ArrayList<>(log.segments()).get(2);

        assertThat(log.truncateTo(third.baseOffset())).isEqualTo(third.baseOffset());

        assertThat(log.segments()).hasSize(3);
        assertThat(log.activeSegment().isEmpty()).isTrue();
        assertThat(log.activeSegment().baseOffset()).isEqualTo(third.baseOffset());
        appendRecords(log, 1, 0);
        assertThat(valuesOf(log)).hasSize((int) third.baseOffset() + 4);
    }

    @Test
    void truncationToTheLogStartEmptiesTheLogAndBeginsItAtTheOffset() throws IOException {
        final PartitionLog log = open("t-0");
        appendRecords(log, 20, 0);

        log.truncateFullyAndStartAt(500);

        assertThat(log.logStartOffset()).isEqualTo(500);
        assertThat(log.logEndOffset()).isEqualTo(500);
        assertThat(log.segments()).hasSize(1);
        assertThat(log.leaderEpochs()).isEmpty();
        log.append(TestBatches.segment(TestBatches.batch(0, 4, T0)), 3);
        assertThat(log.logEndOffset()).isEqualTo(504);

        log.truncateTo(0);
        assertThat(log.logStartOffset()).isZero();
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void truncationForgetsTheProducerStateOfTheBatchesItRemoves() throws IOException {
        final PartitionLog log = open("t-0");
        log.append(KafkaBatches.segment(KafkaBatches.idempotent(PRODUCER, (short) 0, 0, 3)), 0); // 0..2
        log.append(KafkaBatches.segment(KafkaBatches.idempotent(PRODUCER, (short) 0, 3, 3)), 0); // 3..5

        log.truncateTo(3);

        // The second batch is gone, so its retry on a new leader is a new batch, not a duplicate...
        final AppendInfo again =
                log.append(KafkaBatches.segment(KafkaBatches.idempotent(PRODUCER, (short) 0, 3, 3)), 1);
        assertThat(again.duplicate()).isFalse();
        assertThat(again.firstOffset()).isEqualTo(3);
        // ...while the first, which stayed, is still one.
        final AppendInfo first =
                log.append(KafkaBatches.segment(KafkaBatches.idempotent(PRODUCER, (short) 0, 0, 3)), 1);
        assertThat(first.duplicate()).isTrue();
        assertThat(first.firstOffset()).isZero();
    }

    @Test
    void truncationForgetsTransactionsWhoseBatchesItRemoves() throws IOException {
        final PartitionLog log = open("t-0");
        appendRecords(log, 1, 0); // 0..3
        log.append(transactional(PRODUCER, (short) 0, 0, 2), 0); // 4..5, opens a transaction
        assertThat(log.lastStableOffset()).isEqualTo(4);

        log.truncateTo(4);

        assertThat(log.hasOpenTransactions()).isFalse();
        assertThat(log.lastStableOffset()).isEqualTo(4);
        appendRecords(log, 1, 1);
        assertThat(log.lastStableOffset()).isEqualTo(8);
    }

    @Test
    void aReaderHoldingTheCutSegmentKeepsItsBatches() throws IOException {
        final PartitionLog log = open("t-0");
        appendRecords(log, 120, 0);
        final LogSegment second = new ArrayList<>(log.segments()).get(1);
        try (LogReadResult held = log.read(second.baseOffset(), 1 << 20)) {
            final List<String> before = TestBatches.values(held.records());

            log.truncateTo(second.baseOffset() + 4);

            assertThat(TestBatches.values(held.records().asSlice(0, batchSizeAt(held, 0))))
                    .isEqualTo(before.subList(0, 4));
        }
    }

    private static long batchSizeAt(final LogReadResult result, final long position) {
        return io.isthmus.protocol.record.RecordBatchDescriptor.batchSize(result.records(), position);
    }

    @Test
    void truncationPastTheEndDropsOnlyAnEpochNeverWritten() throws IOException {
        final PartitionLog log = open("t-0");
        appendRecords(log, 2, 1);
        log.assignLeaderEpoch(4);

        assertThat(log.truncateTo(8)).isEqualTo(8);

        assertThat(log.leaderEpochs()).containsExactly(new Entry(1, 0));
        assertThat(log.logEndOffset()).isEqualTo(8);
    }

    @Test
    void aTruncatedLogReopenedWithoutACleanCloseEndsAtTheCut() throws IOException {
        final PartitionLog log = open("t-0");
        appendRecords(log, 30, 0);
        final long end = log.truncateTo(50);
        final byte[] kept = bytesOf(log);

        // Another process's view of the files, as after a crash: no clean-shutdown marker, the active segment scanned.
        final PartitionLog after = PartitionLog.open(log.dir(), smallSegments(), new SegmentIdAllocator(), clock);
        try {
            assertThat(after.logEndOffset()).isEqualTo(end);
            assertThat(bytesOf(after)).isEqualTo(kept);
        } finally {
            after.close();
            // The first log still owns the directory and leaves its own marker when it closes.
            Files.delete(log.dir().resolve(LogFileNames.CLEAN_SHUTDOWN_FILE));
        }
    }
}
