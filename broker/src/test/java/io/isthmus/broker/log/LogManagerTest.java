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
