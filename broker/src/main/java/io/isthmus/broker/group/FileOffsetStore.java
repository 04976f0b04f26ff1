package io.isthmus.broker.group;

import io.isthmus.broker.storage.CrashSafeFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Committed offsets, one file per group, each commit replacing the group's file durably ({@link CrashSafeFile}: the
 * new contents forced to disk, renamed over the old, the directory forced) before the commit is acknowledged, so an
 * acknowledged commit survives a crash of the process or the machine; files stay as small as the group's partition
 * count, however often it commits. A group file that cannot be read (torn by an older version's unsynced write, or
 * damaged) is set aside with an error naming it, and the broker starts without that group's offsets (its consumers
 * then start where {@code auto.offset.reset} says), rather than not at all.
 *
 * <p>File format: a first line {@code group<TAB><group id in Base64>}, then one partition per line,
 * tab-separated: topic, partition, offset, leader epoch, commit time, metadata in Base64. File names are the
 * SHA-256 of the group id, so a group id of any length or alphabet is a safe name.
 */
public final class FileOffsetStore implements OffsetStore {
    private static final Logger LOG = LoggerFactory.getLogger(FileOffsetStore.class);
    private static final String SUFFIX = ".offsets";
    private static final String GROUP_LINE_PREFIX = "group\t";

    private final Path directory;
    private final Map<String, Map<TopicPartition, CommittedOffset>> groups = new HashMap<>();

    private FileOffsetStore(final Path directory) {
        this.directory = directory;
    }

    /** Opens the store in {@code directory} and loads every group's offsets. */
    public static FileOffsetStore open(final Path directory) {
        final FileOffsetStore store = new FileOffsetStore(directory);
        try {
            Files.createDirectories(directory);
            CrashSafeFile.removeLeftovers(directory, "*" + SUFFIX);
            try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*" + SUFFIX)) {
                for (final Path file : files) {
                    try {
                        store.load(file);
                    } catch (final IllegalStateException
                            | IllegalArgumentException
                            | java.nio.charset.CharacterCodingException corrupt) {
                        LOG.error(
                                "committed offsets file={} cannot be read ({}); kept as {}, its group starts without"
                                        + " committed offsets",
                                file,
                                corrupt.getMessage(),
                                CrashSafeFile.setAside(file));
                    }
                }
            }
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot open offset store directory=" + directory, e);
        }
        LOG.info("loaded committed offsets of {} groups from {}", store.groups.size(), directory);
        return store;
    }

    private void load(final Path file) throws IOException {
        final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.isEmpty() || !lines.getFirst().startsWith(GROUP_LINE_PREFIX)) {
            throw new IllegalStateException("corrupt offsets file=" + file + ", line=1: expected '" + GROUP_LINE_PREFIX
                    + "<group id in Base64>'");
        }
        final String groupId = new String(
                Base64.getDecoder().decode(lines.getFirst().substring(GROUP_LINE_PREFIX.length())),
                StandardCharsets.UTF_8);
        final Map<TopicPartition, CommittedOffset> offsets = new LinkedHashMap<>();
        int lineNumber = 1;
        for (final String line : lines.subList(1, lines.size())) {
            lineNumber++;
            if (line.isEmpty()) {
                continue;
            }
            final String[] f = line.split("\t", -1);
            if (f.length != 6) {
                throw new IllegalStateException("corrupt offsets file=" + file + ", line=" + lineNumber
                        + ": expected 6 fields, got " + f.length);
            }
            offsets.put(
                    new TopicPartition(f[0], Integer.parseInt(f[1])),
                    new CommittedOffset(
                            Long.parseLong(f[2]),
                            Integer.parseInt(f[3]),
                            new String(Base64.getDecoder().decode(f[5]), StandardCharsets.UTF_8),
                            Long.parseLong(f[4])));
        }
        groups.put(groupId, offsets);
    }

    @Override
    public synchronized void commit(final String groupId, final Map<TopicPartition, CommittedOffset> offsets) {
        final Map<TopicPartition, CommittedOffset> next = new LinkedHashMap<>(groups.getOrDefault(groupId, Map.of()));
        next.putAll(offsets);
        write(groupId, next);
        groups.put(groupId, next);
    }

    @Override
    public synchronized Set<String> groupIds() {
        return Set.copyOf(groups.keySet());
    }

    @Override
    public synchronized Map<TopicPartition, CommittedOffset> committed(final String groupId) {
        return Map.copyOf(groups.getOrDefault(groupId, Map.of()));
    }

    @Override
    public synchronized void deleteTopic(final String topic) {
        for (final Map.Entry<String, Map<TopicPartition, CommittedOffset>> group : groups.entrySet()) {
            final Map<TopicPartition, CommittedOffset> next = new LinkedHashMap<>(group.getValue());
            if (next.keySet().removeIf(tp -> tp.topic().equals(topic))) {
                write(group.getKey(), next);
                group.setValue(next);
            }
        }
    }

    private void write(final String groupId, final Map<TopicPartition, CommittedOffset> offsets) {
        final StringBuilder text = new StringBuilder(GROUP_LINE_PREFIX)
                .append(Base64.getEncoder().encodeToString(groupId.getBytes(StandardCharsets.UTF_8)))
                .append('\n');
        offsets.forEach((tp, offset) -> text.append(tp.topic())
                .append('\t')
                .append(tp.partition())
                .append('\t')
                .append(offset.offset())
                .append('\t')
                .append(offset.leaderEpoch())
                .append('\t')
                .append(offset.commitTimestampMs())
                .append('\t')
                .append(Base64.getEncoder().encodeToString(offset.metadata().getBytes(StandardCharsets.UTF_8)))
                .append('\n'));
        final String fileName = fileNameOf(groupId);
        final Path file = directory.resolve(fileName);
        try {
            CrashSafeFile.replace(file, text);
        } catch (final IOException e) {
            throw new UncheckedIOException(
                    "cannot store committed offsets of group=" + groupId + " in file=" + file, e);
        }
    }

    /**
     * A fixed-length name whatever the group id: SHA-256 in hex. The id itself is the file's first line, so a
     * group id of any length or alphabet never meets a file-name limit.
     */
    private static String fileNameOf(final String groupId) {
        try {
            return HexFormat.of()
                            .formatHex(MessageDigest.getInstance("SHA-256")
                                    .digest(groupId.getBytes(StandardCharsets.UTF_8)))
                    + SUFFIX;
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    @Override
    public void close() {
        // Every commit is on disk when it returns; nothing is buffered.
    }
}
