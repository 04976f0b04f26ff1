package io.isthmus.broker.log;

import static io.isthmus.broker.testkit.KafkaBatches.idempotent;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.testkit.KafkaBatches;
import io.isthmus.protocol.record.InvalidRecordBatchException;
import io.isthmus.protocol.record.RecordBatchDescriptor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionLogTest {
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path tmp;

    private final MutableClock clock = new MutableClock(T0);
    private final SegmentIdAllocator ids = new SegmentIdAllocator();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (final AutoCloseable closeable : toClose.reversed()) {
            closeable.close();
        }
    }

    private LogConfig smallConfig(final Map<String, String> extra) {
        final Map<String, String> props = new java.util.HashMap<>(Map.of(
                LogConfig.SEGMENT_BYTES, "8192",
                LogConfig.INDEX_INTERVAL_BYTES, "512",
                LogConfig.INDEX_SIZE_MAX_BYTES, "4096"));
        props.putAll(extra);
        return LogConfig.from(props);
    }

    private PartitionLog open(final LogConfig config) throws IOException {
        final PartitionLog log = PartitionLog.open(tmp.resolve("topic-0"), config, ids, clock);
        toClose.add(log);
        return log;
    }

    /** Appends {@code batches} batches of {@code recordsPerBatch}; value i is "value-i" and lands at offset i. */
    private static void appendSequential(
            final PartitionLog log, final int batches, final int recordsPerBatch, final long timestamp) {
        for (int b = 0; b < batches; b++) {
            final long first = log.logEndOffset();
            final AppendInfo info =
                    log.append(TestBatches.segment(TestBatches.batch(first, recordsPerBatch, timestamp)), 3);
            assertThat(info.firstOffset()).isEqualTo(first);
            assertThat(info.lastOffset()).isEqualTo(first + recordsPerBatch - 1);
        }
    }

    private static List<String> readAll(final PartitionLog log, final long from, final int maxBytes) {
        final List<String> values = new ArrayList<>();
        long offset = from;
        while (offset < log.logEndOffset()) {
            try (LogReadResult result = log.read(offset, maxBytes)) {
                assertThat(result.isEmpty()).isFalse();
                values.addAll(TestBatches.values(result.records()));
                assertThat(result.nextOffset()).isGreaterThan(offset);
                offset = result.nextOffset();
            }
        }
        return values;
    }

    @Test
    void shouldRoundTripAcrossSeveralRolls() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of()));

        appendSequential(log, 200, 5, T0);

        assertThat(log.logEndOffset()).isEqualTo(1000);
        assertThat(log.highWatermark()).isEqualTo(1000);
        assertThat(log.segments()).hasSizeGreaterThan(3);
        assertThat(log.segments().stream().filter(LogSegment::isSealed))
                .hasSize(log.segments().size() - 1);
        final List<String> values = readAll(log, 0, 1024);
        assertThat(values).hasSize(1000);
        for (int i = 0; i < 1000; i++) {
            assertThat(values.get(i)).isEqualTo("value-" + i);
        }
    }

    @Test
    void aRollWithoutAFreeSegmentIdFailsRetriablyAndLeavesTheLogWritable() throws IOException {
        final SegmentIdAllocator two = new SegmentIdAllocator(2);
        final PartitionLog log = PartitionLog.open(tmp.resolve("topic-0"), smallConfig(Map.of()), two, clock);
        toClose.add(log);
        final PartitionLog other = PartitionLog.open(tmp.resolve("other-0"), smallConfig(Map.of()), two, clock);
        long offered = 0;
        KafkaStorageException refused = null;
        while (refused == null) {
            try {
                log.append(TestBatches.segment(TestBatches.batch(offered, 5, T0)), 3);
                offered += 5;
            } catch (final KafkaStorageException e) {
                refused = e;
            }
        }
        assertThat(refused).hasMessageContaining("no free segment id");
        assertThat(log.logEndOffset()).isEqualTo(offered);
        assertThat(log.segments()).hasSize(1);
        assertThat(log.activeSegment().isSealed())
                .as("the active segment stays open")
                .isFalse();

        other.close(); // gives its segment id back

        appendSequential(log, 10, 5, T0);
        assertThat(log.segments()).hasSize(2);
        assertThat(readAll(log, 0, 1024)).hasSize((int) offered + 50);
    }

    @Test
    void shouldAssignOffsetsAndLeaderEpochInPlaceKeepingTheCrcValid() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of()));
        appendSequential(log, 3, 4, T0);

        try (LogReadResult result = log.read(4, 100_000)) {
            final MemorySegment records = result.records();
            assertThat(RecordBatchDescriptor.baseOffset(records, 0)).isEqualTo(4);
            assertThat(records.get(RecordBatchDescriptor.INT32, RecordBatchDescriptor.PARTITION_LEADER_EPOCH_OFFSET))
                    .isEqualTo(3);
            assertThat(TestBatches.allCrcsValid(records)).isTrue();
            assertThat(TestBatches.offsets(records)).containsExactly(4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L);
        }
    }

    @Test
    void shouldReturnTheBatchContainingAnOffsetInTheMiddleOfIt() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of()));
        appendSequential(log, 60, 10, T0);

        try (LogReadResult result = log.read(437, 1)) {
            assertThat(result.firstOffset()).isEqualTo(430);
            assertThat(result.nextOffset()).isEqualTo(440);
            assertThat(TestBatches.offsets(result.records())).first().isEqualTo(430L);
            assertThat(TestBatches.values(result.records())).contains("value-437");
        }
    }

    @Test
    void shouldBoundReadsByMaxBytesButAlwaysReturnOneWholeBatch() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of()));
        appendSequential(log, 10, 5, T0);
        final long[] sizes = new long[4];
        for (int b = 0; b < 4; b++) {
            try (LogReadResult one = log.read(b * 5L, 1)) {
                sizes[b] = one.sizeInBytes();
                assertThat(TestBatches.offsets(one.records()))
                        .hasSize(5)
                        .first()
                        .isEqualTo(b * 5L);
            }
        }

        try (LogReadResult three = log.read(0, (int) (sizes[0] + sizes[1] + sizes[2] + sizes[3] / 2))) {
            assertThat(three.sizeInBytes()).isEqualTo(sizes[0] + sizes[1] + sizes[2]);
            assertThat(three.nextOffset()).isEqualTo(15);
        }
    }

    @Test
    void shouldFindOffsetForTimestamp() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of()));
        for (int b = 0; b < 200; b++) {
            final long first = log.logEndOffset();
            log.append(TestBatches.segment(TestBatches.batch(first, 3, T0 + b * 10L)), 0);
        }
        assertThat(log.segments()).hasSizeGreaterThan(2);

        assertThat(log.offsetForTimestamp(T0 + 555)).hasValue(168); // batch 56 (ts T0+560) starts at offset 168
        assertThat(log.offsetForTimestamp(T0 + 560)).hasValue(168);
        assertThat(log.offsetForTimestamp(T0 - 1)).hasValue(0);
        assertThat(log.offsetForTimestamp(T0 + 1500)).hasValue(450);
        assertThat(log.offsetForTimestamp(T0 + 1990)).hasValue(597);
        assertThat(log.offsetForTimestamp(T0 + 1991)).isEmpty();
        assertThat(log.offsetForTimestamp(PartitionLog.LATEST_TIMESTAMP)).hasValue(600);
        assertThat(log.offsetForTimestamp(PartitionLog.EARLIEST_TIMESTAMP)).hasValue(0);
    }

    @Test
    void shouldThrowOffsetOutOfRangeOutsideTheLogAndReturnEmptyAtTheEnd() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of()));
        appendSequential(log, 4, 5, T0);

        try (LogReadResult atEnd = log.read(20, 1000)) {
            assertThat(atEnd.isEmpty()).isTrue();
            assertThat(atEnd.nextOffset()).isEqualTo(20);
            assertThat(atEnd.highWatermark()).isEqualTo(20);
        }
        assertThatThrownBy(() -> log.read(21, 1000))
                .isInstanceOf(OffsetOutOfRangeException.class)
                .hasMessageContaining("offset=21")
                .hasMessageContaining("logEndOffset=20");
        assertThatThrownBy(() -> log.read(-1, 1000)).isInstanceOf(OffsetOutOfRangeException.class);
    }

    @Test
    void shouldRejectAnInvalidBatchAndAppendNothing() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of()));
        appendSequential(log, 2, 5, T0);
        final byte[] good = TestBatches.batch(10, 5, T0);
        final byte[] bad = TestBatches.batch(15, 5, T0);
        bad[bad.length - 1] ^= 0x5a;
        final byte[] both = new byte[good.length + bad.length];
        System.arraycopy(good, 0, both, 0, good.length);
        System.arraycopy(bad, 0, both, good.length, bad.length);
        final long positionBefore = log.activeSegment().committedPosition();

        assertThatThrownBy(() -> log.append(TestBatches.segment(both), 0))
                .isInstanceOf(InvalidRecordBatchException.class)
                .hasMessageContaining("CRC_MISMATCH");

        assertThat(log.logEndOffset()).isEqualTo(10);
        assertThat(log.activeSegment().committedPosition()).isEqualTo(positionBefore);
    }

    @Test
    void shouldRejectABatchLargerThanASegment() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of()));
        final byte[] huge = TestBatches.batch(0, 400, T0);
        assertThat(huge.length).isGreaterThan(8192);

        assertThatThrownBy(() -> log.append(TestBatches.segment(huge), 0))
                .isInstanceOf(RecordBatchTooLargeException.class)
                .hasMessageContaining("log.segment.bytes=8192");
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void aDecompressionBombIsRefusedAtMessageMaxBytesAndCostsNoMore() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of(LogConfig.MESSAGE_MAX_BYTES, Integer.toString(64 * 1024))));
        // 4 MiB of zeros, gzip: a batch of a few KiB whose records decompress to 4 MiB.
        final byte[] bomb = TestBatches.compressedZeros(Compression.gzip().build(), 4 << 20, T0);
        assertThat(bomb.length).isLessThan(8192);

        assertThatThrownBy(() -> log.append(TestBatches.segment(bomb), 0))
                .isInstanceOf(RecordBatchTooLargeException.class)
                .hasMessageContaining("message.max.bytes=65536");
        assertThat(log.logEndOffset()).isZero();
        assertThat(log.decompressorCapacity()).isLessThanOrEqualTo(64 * 1024);
        appendSequential(log, 1, 3, T0); // and the log goes on
        assertThat(readAll(log, 0, 1 << 20)).containsExactly("value-0", "value-1", "value-2");
    }

    @Test
    void aLargeCompressedBatchWithinTheLimitIsAppendedAndItsBufferGivenBack() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of(LogConfig.MESSAGE_MAX_BYTES, Integer.toString(8 << 20))));
        final long before = log.decompressorCapacity();
        final byte[] large = TestBatches.compressedZeros(Compression.gzip().build(), 2 << 20, T0);

        assertThat(log.append(TestBatches.segment(large), 0).lastOffset()).isZero();
        // The 2 MiB decompression buffer the batch needed is not kept for the next, small one.
        assertThat(log.decompressorCapacity()).isEqualTo(before).isLessThanOrEqualTo(64 * 1024);
    }

    @Test
    void aBatchOverMessageMaxBytesAsSentIsRefused() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of(LogConfig.MESSAGE_MAX_BYTES, "1024")));
        final byte[] batch = TestBatches.batch(0, 100, T0);
        assertThat(batch.length).isGreaterThan(1024).isLessThan(8192);

        assertThatThrownBy(() -> log.append(TestBatches.segment(batch), 0))
                .isInstanceOf(RecordBatchTooLargeException.class)
                .hasMessageContaining("message.max.bytes=1024");
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void shouldRollWhenTheSegmentIsOlderThanRollMs() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of(LogConfig.ROLL_MS, "1000")));
        appendSequential(log, 2, 1, T0);
        final LogSegment first = log.activeSegment();

        clock.advance(1001);
        appendSequential(log, 1, 1, T0);

        assertThat(first.isSealed()).isTrue();
        assertThat(log.activeSegment().baseOffset()).isEqualTo(2);
    }

    @Test
    void shouldCommitBatchesWrittenInPlaceAtTheTail() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of()));
        appendSequential(log, 2, 5, T0);
        final byte[] batch = TestBatches.batch(10, 4, T0);

        final AppendInfo info;
        try (SegmentLease lease = log.acquireActiveSegment()) {
            final LogSegment segment = lease.segment();
            final long tail = segment.committedPosition();
            // What a one-sided RDMA WRITE does: bytes land at the tail, the broker CPU has not seen them.
            MemorySegment.copy(batch, 0, lease.memory(), ValueLayout.JAVA_BYTE, tail, batch.length);
            assertThat(log.logEndOffset()).isEqualTo(10);

            info = log.commitWritten(segment.id(), tail, batch.length, 3);

            assertThat(info.position()).isEqualTo((int) tail);
            assertThat(segment.committedPosition()).isEqualTo(tail + batch.length);
        }
        assertThat(info.firstOffset()).isEqualTo(10);
        assertThat(info.lastOffset()).isEqualTo(13);
        assertThat(log.logEndOffset()).isEqualTo(14);
        try (LogReadResult result = log.read(10, 10_000)) {
            assertThat(TestBatches.offsets(result.records())).containsExactly(10L, 11L, 12L, 13L);
            assertThat(TestBatches.values(result.records()))
                    .containsExactly("value-10", "value-11", "value-12", "value-13");
        }
        appendSequential(log, 1, 2, T0);
        assertThat(log.logEndOffset()).isEqualTo(16);
    }

    /**
     * A producer's staging slot stays writable after its batch was committed (it keeps the slot's rkey); the commit
     * copied the batch, so a later write to the slot changes nothing a reader sees.
     */
    @Test
    void shouldCommitACopyOfAStagedBatchThatLaterWritesToTheSlotCannotChange() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of()));
        appendSequential(log, 2, 5, T0);
        final byte[] batch = TestBatches.batch(10, 4, T0);
        final MemorySegment slot = MemorySegment.ofArray(new byte[batch.length + 256]);
        MemorySegment.copy(batch, 0, slot, ValueLayout.JAVA_BYTE, 0, batch.length);
        final int segmentId = log.activeSegment().id();
        final long tail = log.activeSegment().committedPosition();

        final AppendInfo info = log.commitStagedBatch(segmentId, tail, slot, 3, false);

        assertThat(info.firstOffset()).isEqualTo(10);
        assertThat(info.sizeInBytes())
                .as("the batch's own length, not the slot's")
                .isEqualTo(batch.length);
        final byte[] committed;
        try (LogReadResult result = log.read(10, 10_000)) {
            committed = result.records().toArray(ValueLayout.JAVA_BYTE);
        }
        slot.fill((byte) 0x5a); // the producer overwrites its slot after the ack
        try (LogReadResult result = log.read(10, 10_000)) {
            assertThat(result.records().toArray(ValueLayout.JAVA_BYTE)).isEqualTo(committed);
            assertThat(TestBatches.values(result.records()))
                    .containsExactly("value-10", "value-11", "value-12", "value-13");
        }
        appendSequential(log, 1, 2, T0);
        assertThat(log.logEndOffset()).isEqualTo(16);
    }

    @Test
    void shouldRefuseAStagedBatchLongerThanItsSlotOrTheSegmentAndWriteNothing() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of()));
        appendSequential(log, 1, 5, T0);
        final byte[] batch = TestBatches.batch(5, 4, T0);
        final int segmentId = log.activeSegment().id();
        final long tail = log.activeSegment().committedPosition();
        final MemorySegment shortSlot = MemorySegment.ofArray(new byte[batch.length - 1]);
        MemorySegment.copy(batch, 0, shortSlot, ValueLayout.JAVA_BYTE, 0, batch.length - 1);

        assertThatThrownBy(() -> log.commitStagedBatch(segmentId, tail, shortSlot, 3, false))
                .isInstanceOf(InvalidRecordBatchException.class)
                .hasMessageContaining("BATCH_PAST_LIMIT")
                .hasMessageContaining("staging slot (" + (batch.length - 1) + " bytes)");
        for (final int lengthField : new int[] {-RecordBatchDescriptor.LOG_OVERHEAD, 0, Integer.MAX_VALUE}) {
            // What a producer rewriting its slot during the commit could leave in the length field.
            final MemorySegment lying = MemorySegment.ofArray(batch.clone());
            lying.set(RecordBatchDescriptor.INT32, RecordBatchDescriptor.LENGTH_OFFSET, lengthField);
            assertThatThrownBy(() -> log.commitStagedBatch(segmentId, tail, lying, 3, false))
                    .as("length field %d", lengthField)
                    .isInstanceOf(InvalidRecordBatchException.class)
                    .hasMessageContaining("BATCH_PAST_LIMIT");
        }
        final byte[] corrupted = batch.clone();
        corrupted[RecordBatchDescriptor.RECORDS_OFFSET + 3] ^= 0x01;
        final MemorySegment corrupt = MemorySegment.ofArray(corrupted);
        assertThatThrownBy(() -> log.commitStagedBatch(segmentId, tail, corrupt, 3, false))
                .isInstanceOf(InvalidRecordBatchException.class)
                .hasMessageContaining("CRC_MISMATCH");

        assertThat(log.activeSegment().committedPosition()).isEqualTo(tail);
        assertThat(log.logEndOffset()).isEqualTo(5);
        appendSequential(log, 1, 3, T0);
        try (LogReadResult result = log.read(5, 10_000)) {
            assertThat(TestBatches.values(result.records())).containsExactly("value-5", "value-6", "value-7");
        }
    }

    /**
     * A shared-memory producer's batch is copied from its staging slot to the tail (a new segment where it does not fit)
     * and the copy committed; a slot that holds no valid batch, or one over message.max.bytes, appends nothing.
     */
    @Test
    void shouldAppendACopyOfAStagedBatchRollingWhereItDoesNotFitAndRefuseBadOnes() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of(LogConfig.MESSAGE_MAX_BYTES, "2048")));
        long next = 0;
        final int segmentsBefore = log.segments().size();
        while (log.segments().size() == segmentsBefore) {
            final byte[] batch = TestBatches.batch(next, 4, T0);
            final MemorySegment slot = MemorySegment.ofArray(new byte[batch.length + 256]);
            MemorySegment.copy(batch, 0, slot, ValueLayout.JAVA_BYTE, 0, batch.length);
            final AppendInfo info = log.appendStaged(slot, 0);
            assertThat(info.firstOffset()).isEqualTo(next);
            assertThat(info.sizeInBytes()).as("the batch's own length").isEqualTo(batch.length);
            slot.fill((byte) 0x5a); // the producer reuses its slot once answered
            next += 4;
        }
        try (LogReadResult result = log.read(next - 8, 10_000)) {
            assertThat(TestBatches.values(result.records()))
                    .as("read across the roll, untouched by the slot's reuse")
                    .startsWith("value-" + (next - 8), "value-" + (next - 7));
        }

        final byte[] corrupted = TestBatches.batch(next, 4, T0);
        corrupted[RecordBatchDescriptor.RECORDS_OFFSET + 3] ^= 0x01;
        assertThatThrownBy(() -> log.appendStaged(MemorySegment.ofArray(corrupted), 0))
                .isInstanceOf(InvalidRecordBatchException.class)
                .hasMessageContaining("CRC_MISMATCH");
        final byte[] lying = TestBatches.batch(next, 4, T0);
        MemorySegment.ofArray(lying)
                .set(RecordBatchDescriptor.INT32, RecordBatchDescriptor.LENGTH_OFFSET, lying.length * 2);
        assertThatThrownBy(() -> log.appendStaged(MemorySegment.ofArray(lying), 0))
                .isInstanceOf(InvalidRecordBatchException.class)
                .hasMessageContaining("staging slot");
        final byte[] large = TestBatches.batch(next, 100, T0);
        assertThat(large.length).isGreaterThan(2048);
        assertThatThrownBy(() -> log.appendStaged(MemorySegment.ofArray(large), 0))
                .isInstanceOf(RecordBatchTooLargeException.class)
                .hasMessageContaining("message.max.bytes=2048");
        assertThat(log.logEndOffset()).as("nothing appended").isEqualTo(next);
        appendSequential(log, 1, 3, T0);
        assertThat(log.logEndOffset()).isEqualTo(next + 3);
    }

    @Test
    void shouldRejectABatchWithBadCrcWrittenInPlaceAndCommitNothing() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of()));
        appendSequential(log, 1, 5, T0);
        final byte[] batch = TestBatches.batch(5, 4, T0);
        batch[RecordBatchDescriptor.RECORDS_OFFSET + 3] ^= 0x01;

        try (SegmentLease lease = log.acquireActiveSegment()) {
            final LogSegment segment = lease.segment();
            final long tail = segment.committedPosition();
            MemorySegment.copy(batch, 0, lease.memory(), ValueLayout.JAVA_BYTE, tail, batch.length);

            assertThatThrownBy(() -> log.commitWritten(segment.id(), tail, batch.length, 0))
                    .isInstanceOf(InvalidRecordBatchException.class)
                    .hasMessageContaining("CRC_MISMATCH");

            assertThat(segment.committedPosition()).isEqualTo(tail);
            assertThat(lease.slice(tail, batch.length).toArray(ValueLayout.JAVA_BYTE))
                    .containsOnly((byte) 0);
        }
        assertThat(log.logEndOffset()).isEqualTo(5);
        appendSequential(log, 1, 3, T0);
        try (LogReadResult result = log.read(5, 10_000)) {
            assertThat(TestBatches.values(result.records())).containsExactly("value-5", "value-6", "value-7");
        }
    }

    @Test
    void shouldRefuseInPlaceCommitsThatAreNotAtTheActiveTail() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of()));
        appendSequential(log, 1, 5, T0);
        final LogSegment first = log.activeSegment();
        final long tail = first.committedPosition();

        assertThatThrownBy(() -> log.commitWritten(first.id(), tail + 8, 100, 0))
                .isInstanceOf(SegmentNotWritableException.class)
                .hasMessageContaining("committedPosition=" + tail);

        log.roll();
        assertThat(first.isSealed()).isTrue();
        assertThatThrownBy(() -> log.commitWritten(first.id(), tail, 100, 0))
                .isInstanceOf(SegmentNotWritableException.class)
                .hasMessageContaining("not the active one");
    }

    @Test
    void shouldLetConcurrentReadersSeeOnlyWholeValidBatchesInOrderWithoutGaps() throws Exception {
        final PartitionLog log = open(smallConfig(Map.of(LogConfig.SEGMENT_BYTES, "65536")));
        final int batches = 3000;
        final AtomicBoolean done = new AtomicBoolean();
        final CountDownLatch start = new CountDownLatch(1);
        final ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            final List<Future<Long>> readers = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                readers.add(pool.submit(() -> {
                    start.await();
                    long next = 0;
                    long reads = 0;
                    while (!done.get() || next < log.logEndOffset()) {
                        try (LogReadResult result = log.read(next, 2048)) {
                            if (result.isEmpty()) {
                                Thread.onSpinWait();
                                continue;
                            }
                            final MemorySegment records = result.records();
                            if (!TestBatches.allCrcsValid(records)) {
                                throw new AssertionError("torn or corrupt batch at offset " + next);
                            }
                            for (final long offset : TestBatches.offsets(records)) {
                                if (offset != next) {
                                    throw new AssertionError("expected offset " + next + " but saw " + offset);
                                }
                                next++;
                            }
                            if (next != result.nextOffset()) {
                                throw new AssertionError("nextOffset " + result.nextOffset() + " vs " + next);
                            }
                            reads++;
                        }
                    }
                    return next * 1_000_000 + Math.min(reads, 999_999);
                }));
            }
            start.countDown();
            for (int b = 0; b < batches; b++) {
                log.append(TestBatches.segment(TestBatches.batch(log.logEndOffset(), 1 + b % 7, T0)), 0);
            }
            done.set(true);
            final long end = log.logEndOffset();
            for (final Future<Long> reader : readers) {
                assertThat(reader.get(60, TimeUnit.SECONDS) / 1_000_000).isEqualTo(end);
            }
            assertThat(log.segments()).hasSizeGreaterThan(2);
        } finally {
            done.set(true);
            pool.shutdownNow();
        }
    }

    @Test
    void shouldDeleteExpiredSegmentsWhileALeasedSliceStaysReadableUntilReleased() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of(LogConfig.RETENTION_MS, "60000")));
        appendSequential(log, 100, 5, T0);
        clock.advance(120_000);
        appendSequential(log, 100, 5, clock.millis());
        final long oldSegments =
                log.segments().stream().filter(s -> s.maxTimestamp() == T0).count();
        assertThat(oldSegments).isGreaterThan(1);
        final LogReadResult leased = log.read(0, 1);
        final MemorySegment slice = leased.records();
        final LogSegment leasedSegment = leased.segment();
        final Path deletedFile =
                leasedSegment.logFile().resolveSibling(leasedSegment.logFile().getFileName() + ".deleted");

        final int deleted = log.deleteOldSegments();

        assertThat(deleted).isEqualTo((int) oldSegments);
        assertThat(log.logStartOffset())
                .isEqualTo(log.segments().iterator().next().baseOffset());
        assertThat(log.segments()).allMatch(s -> s.maxTimestamp() > T0);
        assertThatThrownBy(() -> log.read(0, 1)).isInstanceOf(OffsetOutOfRangeException.class);
        assertThat(leasedSegment.isDeleted()).isTrue();
        assertThat(Files.exists(deletedFile)).isTrue();
        // Still leased: readable, intact.
        assertThat(TestBatches.values(slice)).containsExactly("value-0", "value-1", "value-2", "value-3", "value-4");

        leased.close();

        assertThatThrownBy(() -> slice.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        assertThat(Files.exists(deletedFile)).isFalse();
        assertThat(leasedSegment.tryAcquire()).isNull();
        assertThat(readAll(log, log.logStartOffset(), 4096)).hasSize((int) (1000 - log.logStartOffset()));
    }

    @Test
    void shouldDeleteOldestSegmentsBeyondRetentionBytesButNeverTheActiveOne() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of(LogConfig.RETENTION_BYTES, "10000")));
        appendSequential(log, 200, 5, T0);

        log.deleteOldSegments();

        final long size = log.sizeInBytes();
        assertThat(size).isGreaterThanOrEqualTo(10000 - 8192).isLessThan(10000 + 8192);
        assertThat(log.segments()).contains(log.activeSegment());
        assertThat(readAll(log, log.logStartOffset(), 8192)).last().isEqualTo("value-999");

        final PartitionLog tiny = PartitionLog.open(
                tmp.resolve("tiny-0"), smallConfig(Map.of(LogConfig.RETENTION_BYTES, "0")), ids, clock);
        toClose.add(tiny);
        appendSequential(tiny, 100, 5, T0);
        tiny.deleteOldSegments();
        assertThat(tiny.segments()).containsExactly(tiny.activeSegment());
        assertThat(tiny.logStartOffset()).isEqualTo(tiny.activeSegment().baseOffset());
    }

    @Test
    void shouldFlushAfterFlushMessagesRecords() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of(LogConfig.FLUSH_MESSAGES, "10", LogConfig.FLUSH_MS, "500")));
        appendSequential(log, 1, 6, T0);
        assertThat(log.unflushedRecords()).isEqualTo(6);

        appendSequential(log, 1, 6, T0);
        assertThat(log.unflushedRecords()).isZero();

        appendSequential(log, 1, 2, T0);
        assertThat(log.flushIfDue()).isFalse();
        clock.advance(500);
        assertThat(log.flushIfDue()).isTrue();
        assertThat(log.unflushedRecords()).isZero();
    }

    @Test
    void shouldReopenAfterCleanShutdownAndContinueAppending() throws IOException {
        final LogConfig config = smallConfig(Map.of());
        final Path dir = tmp.resolve("topic-0");
        try (PartitionLog log = PartitionLog.open(dir, config, ids, clock)) {
            appendSequential(log, 50, 5, T0);
        }
        assertThat(dir.resolve(LogFileNames.CLEAN_SHUTDOWN_FILE)).exists();
        assertThat(ids.allocatedCount()).isZero();

        final PartitionLog reopened = open(config);

        assertThat(dir.resolve(LogFileNames.CLEAN_SHUTDOWN_FILE)).doesNotExist();
        assertThat(reopened.logEndOffset()).isEqualTo(250);
        appendSequential(reopened, 10, 5, T0);
        final List<String> values = readAll(reopened, 0, 2048);
        assertThat(values).hasSize(300);
        assertThat(values.get(299)).isEqualTo("value-299");
        assertThat(reopened.offsetForTimestamp(T0)).hasValue(0);
    }

    @Test
    void shouldTransferReadBytesFromTheFile() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of()));
        appendSequential(log, 5, 5, T0);
        final ByteArrayOutputStream out = new ByteArrayOutputStream();

        try (LogReadResult result = log.read(10, 100_000)) {
            final long sent = result.transferTo(Channels.newChannel(out));
            assertThat(sent).isEqualTo(result.sizeInBytes());
            assertThat(out.toByteArray()).isEqualTo(result.records().toArray(ValueLayout.JAVA_BYTE));
        }
        assertThat(TestBatches.values(MemorySegment.ofArray(out.toByteArray())))
                .startsWith("value-10")
                .endsWith("value-24");
    }

    @Test
    void shouldExposeSegmentIdentityForRdmaRegistration() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of()));
        appendSequential(log, 40, 5, T0);

        final List<Integer> segmentIds =
                log.segments().stream().map(LogSegment::id).toList();
        assertThat(segmentIds).doesNotHaveDuplicates().allMatch(id -> id >= 0 && id < 65536);
        try (SegmentLease lease = log.acquireActiveSegment()) {
            assertThat(lease.memory().byteSize()).isEqualTo(8192);
            assertThat(lease.memory().address()).isEqualTo(lease.segment().address());
            assertThat(lease.segment().isSealed()).isFalse();
        }
    }

    @Test
    void anIdempotentBatchWhoseAppendFailedAfterItsCheckIsAppendedWhenRetried() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of(LogConfig.ROLL_MS, "1000")));
        final long producerId = 7;
        final short epoch = 0;
        assertThat(log.append(KafkaBatches.segment(idempotent(producerId, epoch, 0, 2)), 3)
                        .firstOffset())
                .isZero();
        clock.advance(2_000);
        // The next append rolls (log.roll.ms), and the new segment's file cannot be created: a directory is there.
        final Path blocker = Files.createDirectory(LogFileNames.logFile(tmp.resolve("topic-0"), 2));
        final MemorySegment next = KafkaBatches.segment(idempotent(producerId, epoch, 2, 3));
        assertThatThrownBy(() -> log.append(next, 3)).hasMessageContaining("already exists");
        assertThat(log.logEndOffset()).isEqualTo(2);

        Files.delete(blocker);
        final AppendInfo retried = log.append(next, 3);

        assertThat(retried.duplicate()).isFalse();
        assertThat(retried.firstOffset()).isEqualTo(2);
        assertThat(log.append(next, 3).duplicate())
                .as("a second retry is the duplicate it now is")
                .isTrue();
        assertThat(log.append(KafkaBatches.segment(idempotent(producerId, epoch, 5, 1)), 3)
                        .firstOffset())
                .isEqualTo(5);
    }

    @Test
    void aRequestWhoseSecondBatchFailsToRollKeepsTheFirstAndItsRetryAppendsOnlyTheSecond() throws IOException {
        final PartitionLog log = open(smallConfig(Map.of()));
        // About 5 KiB each: the first fills most of the 8 KiB segment, the second needs the next one.
        final MemoryRecords first = idempotent(7, (short) 0, 0, 200);
        final MemoryRecords second = idempotent(7, (short) 0, 200, 200);
        final MemorySegment request = KafkaBatches.segment(KafkaBatches.concat(first, second));
        final Path blocker = Files.createDirectory(LogFileNames.logFile(tmp.resolve("topic-0"), 200));

        assertThatThrownBy(() -> log.append(request, 3)).hasMessageContaining("already exists");
        assertThat(log.logEndOffset()).as("the first batch committed").isEqualTo(200);

        Files.delete(blocker);
        final AppendInfo retried = log.append(request, 3);
        assertThat(retried.firstOffset())
                .as("answered with the first batch's original offset")
                .isZero();
        assertThat(log.logEndOffset()).isEqualTo(400);
        assertThat(readAll(log, 0, 1 << 20)).hasSize(400);
    }

    @Test
    void aFollowerAppendThatFailsMidwayKeepsTheProducerStateOfWhatItCommitted() throws IOException {
        final PartitionLog leader = PartitionLog.open(
                tmp.resolve("leader-0"), smallConfig(Map.of(LogConfig.SEGMENT_BYTES, "65536")), ids, clock);
        toClose.add(leader);
        final MemoryRecords first = idempotent(7, (short) 0, 0, 200);
        leader.append(KafkaBatches.segment(first), 3);
        leader.append(KafkaBatches.segment(idempotent(7, (short) 0, 200, 200)), 3);
        final PartitionLog follower = PartitionLog.open(tmp.resolve("follower-0"), smallConfig(Map.of()), ids, clock);
        toClose.add(follower);
        final Path blocker = Files.createDirectory(LogFileNames.logFile(tmp.resolve("follower-0"), 200));
        try (LogReadResult both = leader.read(0, 1 << 20)) {
            assertThatThrownBy(() -> follower.appendAsFollower(both.records())).hasMessageContaining("already exists");
        }
        assertThat(follower.logEndOffset()).isEqualTo(200);
        Files.delete(blocker);
        try (LogReadResult rest = leader.read(200, 1 << 20)) {
            follower.appendAsFollower(rest.records());
        }

        // The follower leads now: the producer's retry of its first batch is the duplicate it is.
        final AppendInfo retried = follower.append(KafkaBatches.segment(first), 4);
        assertThat(retried.duplicate()).isTrue();
        assertThat(retried.firstOffset()).isZero();
        assertThat(follower.logEndOffset()).isEqualTo(400);
    }
}
