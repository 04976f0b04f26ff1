package io.isthmus.broker.topic;

import io.isthmus.broker.storage.CrashSafeFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.internals.Topic;

/**
 * The broker's topics: name, id and partition count, kept in one small file that is replaced atomically
 * (write a temporary file, force it, rename), so a crash leaves either the old or the new list.
 *
 * <p>File format, one topic per line: {@code <topic id> <partitions> <name>}. Reads see an immutable
 * snapshot and take no lock; changes are serialised.
 */
public final class TopicRegistry {
    private static final String FILE_NAME = "isthmus-topics";

    private final Path file;
    private volatile Snapshot snapshot;

    private TopicRegistry(final Path file, final Snapshot snapshot) {
        this.file = file;
        this.snapshot = snapshot;
    }

    /** One topic. */
    public record TopicInfo(String name, Uuid id, int partitions) {}

    private record Snapshot(Map<String, TopicInfo> byName, Map<Uuid, TopicInfo> byId) {
        static Snapshot of(final Collection<TopicInfo> topics) {
            final Map<String, TopicInfo> byName = new HashMap<>();
            final Map<Uuid, TopicInfo> byId = new HashMap<>();
            for (final TopicInfo topic : topics) {
                byName.put(topic.name(), topic);
                byId.put(topic.id(), topic);
            }
            return new Snapshot(Map.copyOf(byName), Map.copyOf(byId));
        }
    }

    /** Opens the registry in {@code directory}, creating an empty one if none exists. */
    public static TopicRegistry open(final Path directory) {
        final Path file = directory.resolve(FILE_NAME);
        final List<TopicInfo> topics = new ArrayList<>();
        try {
            if (CrashSafeFile.prepareToRead(file)) {
                int lineNumber = 0;
                for (final String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    lineNumber++;
                    if (line.isBlank()) {
                        continue;
                    }
                    final String[] fields = line.split(" ", 3);
                    try {
                        if (fields.length != 3) {
                            throw new IllegalArgumentException("expected <topic id> <partitions> <name>");
                        }
                        topics.add(new TopicInfo(fields[2], Uuid.fromString(fields[0]), Integer.parseInt(fields[1])));
                    } catch (final IllegalArgumentException e) {
                        throw new IllegalStateException(
                                "corrupt topic registry: file=" + file + ", line=" + lineNumber + ", text='" + line
                                        + "': " + e.getMessage(),
                                e);
                    }
                }
            }
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot read topic registry file=" + file, e);
        }
        return new TopicRegistry(file, Snapshot.of(topics));
    }

    public Optional<TopicInfo> byName(final String name) {
        return Optional.ofNullable(snapshot.byName().get(name));
    }

    public Optional<TopicInfo> byId(final Uuid id) {
        return Optional.ofNullable(snapshot.byId().get(id));
    }

    public Collection<TopicInfo> topics() {
        return snapshot.byName().values();
    }

    /**
     * Refuses what {@link #create} would refuse, changing nothing.
     *
     * @throws org.apache.kafka.common.errors.InvalidTopicException for a name Kafka would refuse
     * @throws InvalidPartitionsException for fewer than one partition
     * @throws TopicExistsException if the name is taken
     */
    public void checkCreate(final String name, final int partitions) {
        Topic.validate(name);
        if (partitions < 1) {
            throw new InvalidPartitionsException(
                    "a topic needs at least one partition: topic=" + name + ", partitions=" + partitions);
        }
        if (snapshot.byName().containsKey(name)) {
            throw new TopicExistsException("topic '" + name + "' already exists");
        }
    }

    /**
     * Registers a new topic durably.
     *
     * @throws org.apache.kafka.common.errors.InvalidTopicException for a name Kafka would refuse
     * @throws TopicExistsException if the name is taken
     */
    public synchronized TopicInfo create(final String name, final int partitions) {
        checkCreate(name, partitions);
        final Map<String, TopicInfo> next = new HashMap<>(snapshot.byName());
        final TopicInfo created = new TopicInfo(name, Uuid.randomUuid(), partitions);
        next.put(name, created);
        persist(next.values());
        return created;
    }

    /**
     * The topic as it is, if its partition count may be raised to {@code partitions}; changes nothing.
     *
     * @throws UnknownTopicOrPartitionException if there is no such topic
     * @throws InvalidPartitionsException unless {@code partitions} is above the current count
     */
    public TopicInfo checkIncrease(final String name, final int partitions) {
        final TopicInfo existing = snapshot.byName().get(name);
        if (existing == null) {
            throw new UnknownTopicOrPartitionException("topic '" + name + "' does not exist");
        }
        // Kafka's two wordings, with the topic named: the same count is refused apart from a smaller one.
        if (partitions == existing.partitions()) {
            throw new InvalidPartitionsException(
                    "topic '" + name + "' already has " + partitions + " partitions; the new count must be larger");
        }
        if (partitions < existing.partitions()) {
            throw new InvalidPartitionsException("topic '" + name + "' currently has " + existing.partitions()
                    + " partitions; " + partitions + " would not be an increase");
        }
        return existing;
    }

    /**
     * Raises a topic's partition count durably; the id stays. Refuses what {@link #checkIncrease} refuses.
     */
    public synchronized TopicInfo increasePartitions(final String name, final int partitions) {
        final TopicInfo existing = checkIncrease(name, partitions);
        final Map<String, TopicInfo> next = new HashMap<>(snapshot.byName());
        final TopicInfo grown = new TopicInfo(name, existing.id(), partitions);
        next.put(name, grown);
        persist(next.values());
        return grown;
    }

    /** Removes a topic durably. */
    public synchronized TopicInfo delete(final String name) {
        final TopicInfo existing = snapshot.byName().get(name);
        if (existing == null) {
            throw new UnknownTopicOrPartitionException("topic '" + name + "' does not exist");
        }
        final Map<String, TopicInfo> next = new HashMap<>(snapshot.byName());
        next.remove(name);
        persist(next.values());
        return existing;
    }

    /**
     * Replaces every topic with {@code all} durably, ids included: a broker of a cluster keeps here its copy of the
     * cluster's topics, which the metadata quorum names and numbers.
     */
    public synchronized void replaceAll(final Collection<TopicInfo> all) {
        if (Snapshot.of(all).equals(snapshot)) {
            return;
        }
        persist(List.copyOf(all));
    }

    private void persist(final Collection<TopicInfo> topics) {
        final StringBuilder text = new StringBuilder();
        for (final TopicInfo topic : topics) {
            text.append(topic.id())
                    .append(' ')
                    .append(topic.partitions())
                    .append(' ')
                    .append(topic.name())
                    .append('\n');
        }
        try {
            CrashSafeFile.replace(file, text);
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot write topic registry file=" + file, e);
        }
        snapshot = Snapshot.of(topics);
    }
}
