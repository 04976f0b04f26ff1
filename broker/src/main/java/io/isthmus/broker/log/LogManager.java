package io.isthmus.broker.log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * All partition logs of a broker, spread over the directories of {@code log.dirs} (Kafka's {@code LogManager}).
 *
 * <p>{@link #startup()} opens (and, after a crash, recovers) every {@code <topic>-<partition>} directory, hands each
 * log the high watermark its directory's checkpoint kept ({@link HighWatermarkCheckpoint}), and starts a scheduler
 * thread that runs retention every {@code log.retention.check.interval.ms}, checkpoints the high watermarks of
 * replicated partitions every {@code replica.high.watermark.checkpoint.interval.ms} and, when {@code flush.ms} is
 * finite, runs time-based flushes every {@code log.flush.scheduler.interval.ms}. New partitions go to the directory
 * with the fewest. {@link #close()} stops the scheduler, checkpoints the high watermarks a last time and closes every
 * log cleanly, which leaves the clean-shutdown markers.
 * One {@link SegmentIdAllocator} spans all partitions: segment ids are unique per broker.
 */
public final class LogManager implements AutoCloseable {
    public static final String LOG_DIRS = "log.dirs";

    private static final Logger LOG = LoggerFactory.getLogger(LogManager.class);

    private final List<Path> logDirs;
    private final LogConfig config;
    /** Settings of topics that do not take the broker's (internal topics), by topic name. */
    private final Map<String, LogConfig> topicConfigs = new ConcurrentHashMap<>();

    private final InstantSource clock;
    private final SegmentIdAllocator ids = new SegmentIdAllocator();
    private final SegmentPreToucher preToucher;
    private final Map<TopicPartition, PartitionLog> logs = new ConcurrentHashMap<>();
    private final List<Path> pendingDirDeletes = new CopyOnWriteArrayList<>();
    private ScheduledExecutorService scheduler;

    public LogManager(final List<Path> logDirs, final LogConfig config, final InstantSource clock) {
        if (logDirs.isEmpty()) {
            throw new LogConfigException(LOG_DIRS, "", "at least one directory");
        }
        this.logDirs = List.copyOf(logDirs);
        this.config = config;
        this.clock = clock;
        this.preToucher = new SegmentPreToucher(config.preTouchBytes());
    }

    /** From a broker configuration map: {@code log.dirs} (comma-separated, required) plus the {@link LogConfig} keys. */
    public static LogManager fromConfig(final Map<String, String> props, final InstantSource clock) {
        final String raw = props.get(LOG_DIRS);
        if (raw == null || raw.isBlank()) {
            throw new LogConfigException(LOG_DIRS, String.valueOf(raw), "a comma-separated list of directories");
        }
        final List<Path> dirs = Stream.of(raw.split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .map(Path::of)
                .toList();
        return new LogManager(dirs, LogConfig.from(props), clock);
    }

    /** Opens every partition log found under the log directories and starts the background tasks. */
    public synchronized void startup() throws IOException {
        loadLogs();
        scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            final Thread thread = new Thread(runnable, "isthmus-log-scheduler");
            thread.setDaemon(true);
            return thread;
        });
        scheduler.scheduleWithFixedDelay(
                this::retentionTask,
                config.retentionCheckIntervalMs(),
                config.retentionCheckIntervalMs(),
                TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(
                this::checkpointTask,
                config.highWatermarkCheckpointIntervalMs(),
                config.highWatermarkCheckpointIntervalMs(),
                TimeUnit.MILLISECONDS);
        if (config.flushMs() != Long.MAX_VALUE) {
            scheduler.scheduleWithFixedDelay(
                    this::flushTask,
                    config.flushSchedulerIntervalMs(),
                    config.flushSchedulerIntervalMs(),
                    TimeUnit.MILLISECONDS);
        }
    }

    /** Opens every partition log found under the log directories without starting background tasks. */
    synchronized void loadLogs() throws IOException {
        for (final Path logDir : logDirs) {
            Files.createDirectories(logDir);
            try (DirectoryStream<Path> children = Files.newDirectoryStream(logDir, Files::isDirectory)) {
                for (final Path child : children) {
                    final Optional<TopicPartition> partition =
                            TopicPartition.fromDirName(child.getFileName().toString());
                    if (partition.isEmpty()) {
                        continue;
                    }
                    if (!hasSegments(child)) {
                        LOG.info("removing partition directory without segments (unfinished delete): dir={}", child);
                        deleteRecursively(child);
                        continue;
                    }
                    if (logs.containsKey(partition.get())) {
                        throw new IllegalStateException("partition found in two log directories: partition="
                                + partition.get() + " dir=" + child + " other="
                                + logs.get(partition.get()).dir());
                    }
                    logs.put(
                            partition.get(),
                            PartitionLog.open(child, configFor(partition.get()), ids, clock, preToucher));
                }
            }
        }
        LOG.info("log manager loaded: logDirs={} partitions={}", logDirs, logs.size());
        restoreHighWatermarks();
    }

    /** Hands each log the high watermark its directory's checkpoint kept across the restart. */
    private void restoreHighWatermarks() throws IOException {
        for (final Path logDir : logDirs) {
            HighWatermarkCheckpoint.read(logDir).forEach((partition, highWatermark) -> {
                final PartitionLog log = logs.get(partition);
                if (log != null && log.dir().getParent().equals(logDir)) {
                    log.restoreHighWatermark(highWatermark);
                }
            });
        }
    }

    /**
     * Writes every log directory's checkpoint of the high watermarks its replicated partitions track (those of one
     * replica follow their log end and need none). Returns how many were written.
     */
    public int checkpointHighWatermarks() {
        final Map<Path, Map<TopicPartition, Long>> byDir = new HashMap<>();
        for (final Path logDir : logDirs) {
            byDir.put(logDir, new HashMap<>());
        }
        for (final Map.Entry<TopicPartition, PartitionLog> entry : logs.entrySet()) {
            final PartitionLog log = entry.getValue();
            final Map<TopicPartition, Long> dir = byDir.get(log.dir().getParent());
            if (dir != null && log.tracksHighWatermark()) {
                dir.put(entry.getKey(), log.highWatermark());
            }
        }
        int written = 0;
        for (final Map.Entry<Path, Map<TopicPartition, Long>> dir : byDir.entrySet()) {
            if (dir.getValue().isEmpty() && !Files.exists(dir.getKey().resolve(HighWatermarkCheckpoint.FILE_NAME))) {
                continue; // a single broker's directory: nothing replicated, no file
            }
            try {
                HighWatermarkCheckpoint.write(dir.getKey(), dir.getValue());
                written += dir.getValue().size();
            } catch (final IOException e) {
                LOG.error("writing the high watermark checkpoint of {} failed", dir.getKey(), e);
            }
        }
        return written;
    }

    private static boolean hasSegments(final Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.anyMatch(
                    f -> LogFileNames.baseOffsetOf(f.getFileName().toString(), LogFileNames.LOG_SUFFIX) >= 0);
        }
    }

    /** The settings every partition log of this broker uses, except those of topics {@link #configureTopic}d. */
    public LogConfig config() {
        return config;
    }

    /**
     * Gives {@code topic}'s logs {@code topicConfig} instead of the broker's settings (an internal topic's, such as
     * the transaction state's, which must never be deleted by retention). Set before the logs are loaded.
     */
    public void configureTopic(final String topic, final LogConfig topicConfig) {
        topicConfigs.put(topic, topicConfig);
    }

    private LogConfig configFor(final TopicPartition partition) {
        return topicConfigs.getOrDefault(partition.topic(), config);
    }

    public Optional<PartitionLog> log(final TopicPartition partition) {
        return Optional.ofNullable(logs.get(partition));
    }

    public Map<TopicPartition, PartitionLog> logs() {
        return Map.copyOf(logs);
    }

    /** The partition's log, created in the least loaded log directory if it does not exist yet. */
    public synchronized PartitionLog getOrCreateLog(final TopicPartition partition) {
        final PartitionLog existing = logs.get(partition);
        if (existing != null) {
            return existing;
        }
        final Path logDir = logDirs.stream()
                .min(Comparator.comparingLong(this::partitionsIn))
                .orElseThrow();
        try {
            final PartitionLog log = PartitionLog.open(
                    logDir.resolve(partition.dirName()), configFor(partition), ids, clock, preToucher);
            logs.put(partition, log);
            LOG.info("created log: partition={} dir={}", partition, log.dir());
            return log;
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot create log: partition=" + partition + " logDir=" + logDir, ex);
        }
    }

    private long partitionsIn(final Path logDir) {
        return logs.values().stream()
                .filter(log -> log.dir().getParent().equals(logDir))
                .count();
    }

    /** Deletes a partition's log; returns false if there was none. */
    public synchronized boolean deleteLog(final TopicPartition partition) {
        final PartitionLog log = logs.remove(partition);
        if (log == null) {
            return false;
        }
        if (!log.delete()) {
            pendingDirDeletes.add(log.dir());
        }
        return true;
    }

    /** Runs retention over every log once; returns the number of segments deleted. */
    public int runRetention() {
        int deleted = 0;
        for (final PartitionLog log : logs.values()) {
            deleted += log.deleteOldSegments();
        }
        for (final Path dir : new ArrayList<>(pendingDirDeletes)) {
            try {
                if (PartitionLog.deleteDirectoryIfEmpty(dir)) {
                    pendingDirDeletes.remove(dir);
                }
            } catch (final IOException ex) {
                LOG.warn("cannot remove deleted partition directory yet: dir={} reason={}", dir, ex.toString());
            }
        }
        return deleted;
    }

    /** Flushes every log whose oldest unflushed append is older than {@code flush.ms}; returns how many. */
    public int runTimedFlush() {
        int flushed = 0;
        for (final PartitionLog log : logs.values()) {
            if (log.flushIfDue()) {
                flushed++;
            }
        }
        return flushed;
    }

    private void retentionTask() {
        try {
            runRetention();
        } catch (final RuntimeException ex) {
            LOG.error("retention run failed", ex);
        }
    }

    private void checkpointTask() {
        try {
            checkpointHighWatermarks();
        } catch (final RuntimeException ex) {
            LOG.error("high watermark checkpoint failed", ex);
        }
    }

    private void flushTask() {
        try {
            runTimedFlush();
        } catch (final RuntimeException ex) {
            LOG.error("timed flush failed", ex);
        }
    }

    public SegmentIdAllocator segmentIds() {
        return ids;
    }

    /** Stops the background tasks and closes every log cleanly (clean-shutdown markers). */
    @Override
    public synchronized void close() throws InterruptedException {
        if (scheduler != null) {
            scheduler.shutdown();
            if (!scheduler.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.warn("log scheduler did not stop within 30 s");
            }
        }
        preToucher.close();
        // Last, with every replicated partition's final high watermark, so a clean restart serves consumers at once.
        checkpointHighWatermarks();
        for (final PartitionLog log : logs.values()) {
            log.close();
        }
        LOG.info("log manager closed: partitions={}", logs.size());
    }

    private static void deleteRecursively(final Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (final Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
