package io.isthmus.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogManagerTest {
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path tmp;

    private final MutableClock clock = new MutableClock(T0);

    private LogManager manager() {
        return LogManager.fromConfig(
                Map.of(
                        LogManager.LOG_DIRS, tmp.resolve("a") + "," + tmp.resolve("b"),
                        LogConfig.SEGMENT_BYTES, "8192",
                        LogConfig.INDEX_INTERVAL_BYTES, "512",
                        LogConfig.INDEX_SIZE_MAX_BYTES, "4096",
                        LogConfig.RETENTION_MS, "60000"),
                clock);
    }

    private static void append(final PartitionLog log, final int batches) {
        for (int b = 0; b < batches; b++) {
            log.append(TestBatches.segment(TestBatches.batch(log.logEndOffset(), 5, T0)), 0);
        }
    }

    @Test
    void shouldSpreadPartitionsOverLogDirsAndReopenThemAfterRestart() throws Exception {
        final TopicPartition p0 = new TopicPartition("orders", 0);
        final TopicPartition p1 = new TopicPartition("orders", 1);
        try (LogManager manager = manager()) {
            manager.startup();
            append(manager.getOrCreateLog(p0), 10);
            append(manager.getOrCreateLog(p1), 20);
            assertThat(manager.getOrCreateLog(p0).dir().getParent())
                    .isNotEqualTo(manager.getOrCreateLog(p1).dir().getParent());
        }
        assertThat(tmp.resolve("a").resolve("orders-0").resolve(LogFileNames.CLEAN_SHUTDOWN_FILE))
                .exists();

        try (LogManager manager = manager()) {
            manager.startup();
            assertThat(manager.logs()).containsOnlyKeys(p0, p1);
            assertThat(manager.log(p0).orElseThrow().logEndOffset()).isEqualTo(50);
            assertThat(manager.log(p1).orElseThrow().logEndOffset()).isEqualTo(100);
        }
    }

    @Test
    void aReplicatedPartitionsHighWatermarkSurvivesARestartWithinItsLog() throws Exception {
        final TopicPartition replicated = new TopicPartition("orders", 0);
        final TopicPartition single = new TopicPartition("orders", 1);
        final Path dirOfReplicated;
        final Path dirOfSingle;
        try (LogManager manager = manager()) {
            manager.startup();
            final PartitionLog log = manager.getOrCreateLog(replicated);
            log.trackHighWatermark();
            append(log, 10);
            assertThat(log.advanceHighWatermark(35)).isTrue();
            append(manager.getOrCreateLog(single), 4);
            dirOfReplicated = log.dir().getParent();
            dirOfSingle = manager.getOrCreateLog(single).dir().getParent();
        }
        assertThat(dirOfSingle).isNotEqualTo(dirOfReplicated);
        assertThat(Files.readAllLines(dirOfReplicated.resolve(HighWatermarkCheckpoint.FILE_NAME)))
                .containsExactly("0", "1", "orders 0 35");
        assertThat(dirOfSingle.resolve(HighWatermarkCheckpoint.FILE_NAME))
                .as("a directory holding no replicated partition gets no checkpoint")
                .doesNotExist();

        try (LogManager manager = manager()) {
            manager.startup();
            final PartitionLog log = manager.log(replicated).orElseThrow();
            log.trackHighWatermark();
            assertThat(log.highWatermark())
                    .as("served at once after the restart")
                    .isEqualTo(35);
            final PartitionLog unreplicated = manager.log(single).orElseThrow();
            assertThat(unreplicated.highWatermark()).isEqualTo(20);
            // A log cut below the checkpointed value (a follower truncated) starts no higher than its end.
            log.truncateTo(30);
            assertThat(manager.checkpointHighWatermarks()).isEqualTo(1);
        }
        assertThat(Files.readAllLines(dirOfReplicated.resolve(HighWatermarkCheckpoint.FILE_NAME)))
                .containsExactly("0", "1", "orders 0 30");
    }

    @Test
    void anUnreadableHighWatermarkCheckpointIsSetAsideAndTheLogStartsFromItsStart() throws Exception {
        final TopicPartition replicated = new TopicPartition("orders", 0);
        final Path logDir;
        try (LogManager manager = manager()) {
            manager.startup();
            final PartitionLog log = manager.getOrCreateLog(replicated);
            log.trackHighWatermark();
            append(log, 4);
            log.advanceHighWatermark(20);
            logDir = log.dir().getParent();
        }
        final Path checkpoint = logDir.resolve(HighWatermarkCheckpoint.FILE_NAME);
        Files.writeString(checkpoint, "0\n2\norders 0 20\n");

        try (LogManager manager = manager()) {
            manager.startup();
            final PartitionLog log = manager.log(replicated).orElseThrow();
            log.trackHighWatermark();
            assertThat(log.highWatermark()).isZero();
        }
        try (var files = Files.list(logDir)) {
            assertThat(files.map(f -> f.getFileName().toString()))
                    .anyMatch(name -> name.startsWith(HighWatermarkCheckpoint.FILE_NAME + ".corrupt-"));
        }
    }

    @Test
    void shouldRunRetentionAcrossLogsAndDeletePartitions() throws Exception {
        final TopicPartition partition = new TopicPartition("events", 3);
        try (LogManager manager = manager()) {
            manager.startup();
            final PartitionLog log = manager.getOrCreateLog(partition);
            append(log, 100);
            final int segmentsBefore = log.segments().size();
            assertThat(segmentsBefore).isGreaterThan(2);
            clock.advance(61_000);

            assertThat(manager.runRetention()).isEqualTo(segmentsBefore - 1);
            assertThat(log.logStartOffset()).isEqualTo(log.activeSegment().baseOffset());

            final Path dir = log.dir();
            assertThat(manager.deleteLog(partition)).isTrue();
            assertThat(dir).doesNotExist();
            assertThat(manager.log(partition)).isEmpty();
            assertThat(manager.segmentIds().allocatedCount()).isZero();
        }
    }

    @Test
    void shouldRequireLogDirsAndSkipForeignDirectories() throws Exception {
        assertThatThrownBy(() -> LogManager.fromConfig(Map.of(), clock))
                .isInstanceOf(LogConfigException.class)
                .hasMessageContaining("key=log.dirs");
        Files.createDirectories(tmp.resolve("a").resolve("not a partition"));
        Files.createDirectories(tmp.resolve("a").resolve("half-deleted-7"));

        try (LogManager manager = manager()) {
            manager.startup();
            assertThat(manager.logs()).isEmpty();
        }
        assertThat(tmp.resolve("a").resolve("not a partition")).exists();
        assertThat(tmp.resolve("a").resolve("half-deleted-7")).doesNotExist();
    }
}
