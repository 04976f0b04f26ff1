package io.isthmus.broker.log;

import io.isthmus.broker.storage.CrashSafeFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The high watermarks of one log directory's replicated partitions, kept across restarts in Kafka's {@code
 * replication-offset-checkpoint} file and format:
 *
 * <pre>
 *   0                         the format's version
 *   2                         how many entries follow
 *   orders 0 1520             topic, partition, high watermark: one entry per line
 *   orders 1 988
 * </pre>
 *
 * <p>Why: a high watermark lives in memory, and a broker that restarted would otherwise serve consumers nothing of a
 * replicated partition until its ISR confirmed the records again, and hold retention back meanwhile. A checkpointed
 * value was a high watermark when it was written, so every replica then in sync held those records: a restarted
 * leader may serve up to it at once. It can only be behind the truth, never ahead, since high watermarks only rise
 * and a partition's log is never truncated below one.
 *
 * <p>Replaced whole, crash-safely ({@link CrashSafeFile}). A file that cannot be read is set aside with a warning and
 * the partitions start from their log start, which is what a broker without the file does: less available, never
 * wrong.
 */
final class HighWatermarkCheckpoint {
    static final String FILE_NAME = "replication-offset-checkpoint";
    private static final int VERSION = 0;
    private static final Logger LOG = LoggerFactory.getLogger(HighWatermarkCheckpoint.class);

    private HighWatermarkCheckpoint() {}

    /** Writes {@code highWatermarks} as the checkpoint of {@code logDir}, replacing the one there. */
    static void write(final Path logDir, final Map<TopicPartition, Long> highWatermarks) throws IOException {
        final StringBuilder text = new StringBuilder()
                .append(VERSION)
                .append('\n')
                .append(highWatermarks.size())
                .append('\n');
        highWatermarks.forEach((partition, offset) -> text.append(partition.topic())
                .append(' ')
                .append(partition.partition())
                .append(' ')
                .append(offset)
                .append('\n'));
        CrashSafeFile.replace(logDir.resolve(FILE_NAME), text);
    }

    /**
     * The checkpoint of {@code logDir}: empty if there is none, or if it cannot be read (then set aside, with a warning
     * naming the file and what is wrong with it).
     */
    static Map<TopicPartition, Long> read(final Path logDir) throws IOException {
        final Path file = logDir.resolve(FILE_NAME);
        if (!CrashSafeFile.prepareToRead(file)) {
            return Map.of();
        }
        final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        try {
            return parse(lines);
        } catch (final IllegalArgumentException e) {
            final Path aside = CrashSafeFile.setAside(file);
            LOG.warn(
                    "high watermark checkpoint {} unreadable ({}); set aside as {}: its partitions serve consumers"
                            + " again once their in-sync replicas confirm their records",
                    file,
                    e.getMessage(),
                    aside);
            return Map.of();
        }
    }

    private static Map<TopicPartition, Long> parse(final List<String> lines) {
        if (lines.size() < 2 || !lines.get(0).trim().equals(Integer.toString(VERSION))) {
            throw new IllegalArgumentException("it does not begin with version " + VERSION + " and a count");
        }
        final int count = parseCount(lines.get(1));
        if (lines.size() != count + 2) {
            throw new IllegalArgumentException("it announces " + count + " entries and has " + (lines.size() - 2));
        }
        final Map<TopicPartition, Long> entries = new HashMap<>();
        for (int i = 2; i < lines.size(); i++) {
            final String[] fields = lines.get(i).trim().split(" ");
            final Optional<TopicPartition> partition =
                    fields.length == 3 ? TopicPartition.fromDirName(fields[0] + "-" + fields[1]) : Optional.empty();
            final long offset = parseOffset(fields);
            if (partition.isEmpty() || offset < 0) {
                throw new IllegalArgumentException(
                        "line " + (i + 1) + " is not 'topic partition offset': '" + lines.get(i) + "'");
            }
            entries.put(partition.get(), offset);
        }
        return entries;
    }

    private static int parseCount(final String line) {
        try {
            final int count = Integer.parseInt(line.trim());
            if (count < 0) {
                throw new IllegalArgumentException("a negative count " + count);
            }
            return count;
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException("a count that is no number: '" + line + "'", e);
        }
    }

    private static long parseOffset(final String[] fields) {
        if (fields.length != 3) {
            return -1;
        }
        try {
            return Long.parseLong(fields[2]);
        } catch (final NumberFormatException e) {
            return -1;
        }
    }
}
