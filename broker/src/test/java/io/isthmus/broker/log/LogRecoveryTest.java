package io.isthmus.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.protocol.record.RecordBatchDescriptor;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogRecoveryTest {
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path tmp;

    private final MutableClock clock = new MutableClock(T0);
    private final SegmentIdAllocator ids = new SegmentIdAllocator();

    /** Small segments so that kills also land around rolls; shared with {@link CrashingAppender}. */
    static LogConfig crashConfig() {
        return LogConfig.from(Map.of(
                LogConfig.SEGMENT_BYTES, "65536",
                LogConfig.INDEX_INTERVAL_BYTES, "1024",
                LogConfig.INDEX_SIZE_MAX_BYTES, "4096"));
    }

    private static LogConfig smallConfig() {
        return LogConfig.from(Map.of(
                LogConfig.SEGMENT_BYTES, "8192",
                LogConfig.INDEX_INTERVAL_BYTES, "512",
                LogConfig.INDEX_SIZE_MAX_BYTES, "4096"));
    }

    private PartitionLog open(final Path dir, final LogConfig config) throws IOException {
        return PartitionLog.open(dir, config, ids, clock);
    }

    private static void appendSequential(final PartitionLog log, final int batches, final int recordsPerBatch) {
        for (int b = 0; b < batches; b++) {
            log.append(TestBatches.segment(TestBatches.batch(log.logEndOffset(), recordsPerBatch, T0 + b)), 0);
        }
    }

    /** Reads the whole log and checks that the record at offset i has value "value-i", CRCs valid, no gaps. */
    private static void assertIntactFromStart(final PartitionLog log) {
        long offset = log.logStartOffset();
        while (offset < log.logEndOffset()) {
            try (LogReadResult result = log.read(offset, 1 << 16)) {
                assertThat(TestBatches.allCrcsValid(result.records())).isTrue();
                final List<Long> offsets = TestBatches.offsets(result.records());
                final List<String> values = TestBatches.values(result.records());
                for (int i = 0; i < offsets.size(); i++) {
                    assertThat(offsets.get(i)).isEqualTo(offset);
                    assertThat(values.get(i)).isEqualTo("value-" + offset);
                    offset++;
                }
            }
        }
        assertThat(offset).isEqualTo(log.logEndOffset());
    }

    private static long lastBatchPosition(final PartitionLog log) {
        final LogSegment active = log.activeSegment();
        try (LogReadResult result = log.read(log.logEndOffset() - 1, 1)) {
            assertThat(result.segment()).isSameAs(active);
            return result.filePosition();
        }
    }

    private static void simulateCrash(final Path dir) throws IOException {
        Files.delete(dir.resolve(LogFileNames.CLEAN_SHUTDOWN_FILE));
    }

    @Test
    void shouldKeepEveryAcknowledgedBatchWhenTheAppenderIsKilled() throws Exception {
        final Path dir = tmp.resolve("crash-0");
        final Random random = new Random(42);
        final String java = ProcessHandle.current().info().command().orElseThrow();
        for (int round = 0; round < 6; round++) {
            final Path stderr = tmp.resolve("child-" + round + ".err");
            final Process child = new ProcessBuilder(
                            java,
                            "--enable-native-access=ALL-UNNAMED",
                            "-cp",
                            System.getProperty("java.class.path"),
                            CrashingAppender.class.getName(),
                            dir.toString())
                    .redirectError(stderr.toFile())
                    .start();
            long maxAcked = -1;
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                final int killAfter = 20 + random.nextInt(400);
                int acks = 0;
                String line;
                while (acks < killAfter && (line = out.readLine()) != null) {
                    if (line.startsWith("ACK ")) {
                        maxAcked = Math.max(maxAcked, Long.parseLong(line.substring(4)));
                        acks++;
                    }
                }
                assertThat(acks)
                        .as("child died early, see %s: %s", stderr, Files.readString(stderr))
                        .isEqualTo(killAfter);
                child.destroyForcibly(); // SIGKILL: no shutdown hook, no flush, possibly mid-append or mid-roll
                assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(dir.resolve(LogFileNames.CLEAN_SHUTDOWN_FILE)).doesNotExist();

            final PartitionLog recovered = open(dir, crashConfig());
            try {
                assertThat(recovered.logEndOffset()).isGreaterThan(maxAcked);
                assertIntactFromStart(recovered);
                final LogSegment active = recovered.activeSegment();
                try (SegmentLease lease = recovered.acquireActiveSegment()) {
                    final long tail = active.committedPosition();
                    assertThat(lease.slice(tail, Math.min(64, active.capacity() - tail))
                                    .toArray(ValueLayout.JAVA_BYTE))
                            .as("bytes after the last batch are zero")
                            .containsOnly((byte) 0);
                }
                final long expectedNext = recovered.logEndOffset();
                final AppendInfo info =
                        recovered.append(TestBatches.segment(TestBatches.batch(expectedNext, 2, T0)), 0);
                assertThat(info.firstOffset()).isEqualTo(expectedNext);
            } finally {
                recovered.close();
            }
        }
    }

    @Test
    void shouldTruncateATornTailAfterAnUncleanShutdown() throws IOException {
        final Path dir = tmp.resolve("torn-0");
        final long lastBase;
        final long position;
        try (PartitionLog log = open(dir, smallConfig())) {
            appendSequential(log, 60, 5);
            lastBase = log.logEndOffset() - 5;
            position = lastBatchPosition(log);
        }
        simulateCrash(dir);
        try (RandomAccessFile file = new RandomAccessFile(
                dir.resolve(LogFileNames.fileName(findActiveBase(dir), LogFileNames.LOG_SUFFIX))
                        .toFile(),
                "rw")) {
            file.seek(position + RecordBatchDescriptor.RECORDS_OFFSET + 5);
            file.write(0xff);
            file.write(0x00);
        }

        try (PartitionLog log = open(dir, smallConfig())) {
            assertThat(log.logEndOffset()).isEqualTo(lastBase);
            assertThat(log.activeSegment().committedPosition()).isEqualTo(position);
            assertIntactFromStart(log);
            appendSequential(log, 1, 5);
            assertThat(log.logEndOffset()).isEqualTo(lastBase + 5);
            assertIntactFromStart(log);
        }
    }

    @Test
    void shouldTruncateACorruptLastBatchEvenAfterACleanShutdown() throws IOException {
        final Path dir = tmp.resolve("flipped-0");
        final long lastBase;
        final long position;
        try (PartitionLog log = open(dir, smallConfig())) {
            appendSequential(log, 25, 5);
            lastBase = log.logEndOffset() - 5;
            position = lastBatchPosition(log);
        }
        try (RandomAccessFile file = new RandomAccessFile(
                dir.resolve(LogFileNames.fileName(findActiveBase(dir), LogFileNames.LOG_SUFFIX))
                        .toFile(),
                "rw")) {
            file.seek(position + RecordBatchDescriptor.ATTRIBUTES_OFFSET + 30);
            file.write(0x42);
        }

        try (PartitionLog log = open(dir, smallConfig())) {
            assertThat(log.logEndOffset()).isEqualTo(lastBase);
            assertIntactFromStart(log);
        }
    }

    @Test
    void shouldDropAHalfWrittenBatchAndZeroItsBytes() throws IOException {
        final Path dir = tmp.resolve("half-0");
        final long end;
        final long tail;
        try (PartitionLog log = open(dir, smallConfig())) {
            appendSequential(log, 10, 5);
            end = log.logEndOffset();
            tail = log.activeSegment().committedPosition();
            final byte[] next = TestBatches.batch(end, 5, T0);
            try (SegmentLease lease = log.acquireActiveSegment()) {
                // A remote WRITE that only partly landed before the crash.
                MemorySegment.copy(next, 0, lease.memory(), ValueLayout.JAVA_BYTE, tail, next.length / 2);
            }
        }
        simulateCrash(dir);

        try (PartitionLog log = open(dir, smallConfig())) {
            assertThat(log.logEndOffset()).isEqualTo(end);
            assertThat(log.activeSegment().committedPosition()).isEqualTo(tail);
            try (SegmentLease lease = log.acquireActiveSegment()) {
                assertThat(lease.slice(tail, 200).toArray(ValueLayout.JAVA_BYTE))
                        .containsOnly((byte) 0);
            }
            assertIntactFromStart(log);
        }
    }

    @Test
    void shouldDiscardAValidBatchThatWasWrittenButNeverCommitted() throws IOException {
        final Path dir = tmp.resolve("uncommitted-0");
        final long end;
        try (PartitionLog log = open(dir, smallConfig())) {
            appendSequential(log, 10, 5);
            end = log.logEndOffset();
            final byte[] next = TestBatches.batch(end, 5, T0); // base offset 0: never assigned by the broker
            try (SegmentLease lease = log.acquireActiveSegment()) {
                final long tail = lease.segment().committedPosition();
                MemorySegment.copy(next, 0, lease.memory(), ValueLayout.JAVA_BYTE, tail, next.length);
            }
        }

        try (PartitionLog log = open(dir, smallConfig())) {
            assertThat(log.logEndOffset()).isEqualTo(end);
            appendSequential(log, 1, 3);
            assertIntactFromStart(log);
        }
    }

    @Test
    void shouldRecoverASegmentFileTruncatedInTheMiddleOfABatch() throws IOException {
        final Path dir = tmp.resolve("truncated-0");
        final long lastBase;
        final long position;
        try (PartitionLog log = open(dir, smallConfig())) {
            appendSequential(log, 30, 5);
            lastBase = log.logEndOffset() - 5;
            position = lastBatchPosition(log);
        }
        simulateCrash(dir);
        final Path activeFile = dir.resolve(LogFileNames.fileName(findActiveBase(dir), LogFileNames.LOG_SUFFIX));
        try (RandomAccessFile file = new RandomAccessFile(activeFile.toFile(), "rw")) {
            file.setLength(position + 40);
        }

        try (PartitionLog log = open(dir, smallConfig())) {
            assertThat(log.logEndOffset()).isEqualTo(lastBase);
            assertThat(log.activeSegment().capacity()).isEqualTo(8192);
            assertIntactFromStart(log);
            appendSequential(log, 2, 5);
            assertIntactFromStart(log);
        }
        assertThat(Files.size(activeFile)).isEqualTo(8192);
    }

    @Test
    void shouldRebuildADeletedIndex() throws IOException {
        final Path dir = tmp.resolve("noindex-0");
        final int entriesBefore;
        try (PartitionLog log = open(dir, smallConfig())) {
            appendSequential(log, 100, 5);
            entriesBefore = log.segments().iterator().next().offsetIndex().entryCount();
        }
        assertThat(entriesBefore).isGreaterThan(2);
        Files.delete(LogFileNames.indexFile(dir, 0));
        Files.delete(LogFileNames.timeIndexFile(dir, 0));

        try (PartitionLog log = open(dir, smallConfig())) {
            final LogSegment first = log.segments().iterator().next();
            assertThat(first.offsetIndex().entryCount()).isEqualTo(entriesBefore);
            assertThat(first.timeIndex().entryCount()).isPositive();
            assertThat(log.logEndOffset()).isEqualTo(500);
            try (LogReadResult middle = log.read(123, 1)) {
                assertThat(TestBatches.offsets(middle.records())).contains(123L);
            }
            assertThat(log.offsetForTimestamp(T0 + 50)).hasValue(250);
            assertIntactFromStart(log);
        }
        assertThat(Files.size(LogFileNames.indexFile(dir, 0))).isEqualTo(entriesBefore * 8L);
    }

    @Test
    void shouldRebuildAGarbageIndex() throws IOException {
        final Path dir = tmp.resolve("garbage-0");
        final int entriesBefore;
        try (PartitionLog log = open(dir, smallConfig())) {
            appendSequential(log, 100, 5);
            entriesBefore = log.segments().iterator().next().offsetIndex().entryCount();
        }
        final byte[] garbage = new byte[entriesBefore * 8];
        new Random(7).nextBytes(garbage);
        Files.write(LogFileNames.indexFile(dir, 0), garbage);
        final byte[] timeGarbage = new byte[36];
        new Random(8).nextBytes(timeGarbage);
        Files.write(LogFileNames.timeIndexFile(dir, 0), timeGarbage);

        try (PartitionLog log = open(dir, smallConfig())) {
            assertThat(log.segments().iterator().next().offsetIndex().entryCount())
                    .isEqualTo(entriesBefore);
            assertThat(log.logEndOffset()).isEqualTo(500);
            for (long offset = 0; offset < 500; offset += 37) {
                try (LogReadResult result = log.read(offset, 1)) {
                    assertThat(TestBatches.offsets(result.records())).contains(offset);
                }
            }
            assertThat(log.offsetForTimestamp(T0 + 50)).hasValue(250);
            assertIntactFromStart(log);
        }
    }

    @Test
    void shouldRemoveLeftoversOfUnfinishedDeletions() throws IOException {
        final Path dir = tmp.resolve("leftover-0");
        try (PartitionLog log = open(dir, smallConfig())) {
            appendSequential(log, 10, 5);
        }
        final Path deleted = dir.resolve(LogFileNames.fileName(999, LogFileNames.LOG_SUFFIX + ".deleted"));
        final Path orphanIndex = LogFileNames.indexFile(dir, 12345);
        Files.write(deleted, new byte[] {1, 2, 3});
        Files.write(orphanIndex, new byte[8]);

        try (PartitionLog log = open(dir, smallConfig())) {
            assertThat(log.logEndOffset()).isEqualTo(50);
        }
        assertThat(deleted).doesNotExist();
        assertThat(orphanIndex).doesNotExist();
    }

    private static long findActiveBase(final Path dir) throws IOException {
        final List<Long> bases = new ArrayList<>();
        try (var files = Files.list(dir)) {
            files.forEach(f -> {
                final long base = LogFileNames.baseOffsetOf(f.getFileName().toString(), LogFileNames.LOG_SUFFIX);
                if (base >= 0) {
                    bases.add(base);
                }
            });
        }
        return bases.stream().mapToLong(Long::longValue).max().orElseThrow();
    }
}
