package io.isthmus.broker.partition;

import io.isthmus.broker.log.LogManager;
import io.isthmus.broker.log.PartitionLog;
import io.isthmus.broker.log.TransactionVerifier;
import io.isthmus.broker.topic.TopicRegistry;
import io.isthmus.broker.topic.TopicRegistry.TopicInfo;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every partition of this broker: the {@link TopicRegistry} says which topics exist, the {@link LogManager}
 * holds their logs. Creating a topic or adding partitions creates the logs first and then registers them, so a failure
 * in between (no segment id, no mapping, no disk) leaves the registry as it was and the logs made so far are deleted
 * again; deletion unregisters first, then deletes the logs. A crash between the two steps is repaired at start: a log
 * no registered topic owns is deleted (and a registered partition without a log, from an older broker, gets an empty
 * one).
 *
 * <p>{@code max.broker.partitions} bounds the partitions this broker holds: each maps a segment and two indexes for
 * its whole life, so partitions without bound exhaust the kernel's mappings and the segment ids. Creations past it are
 * refused with POLICY_VIOLATION; partitions already there (say, after the limit was lowered) keep being served.
 */
public final class PartitionManager implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionManager.class);

    private final LogManager logs;
    private final TopicRegistry topics;
    private final Map<TopicPartition, Partition> partitions = new ConcurrentHashMap<>();
    private final int maxPartitions;
    /** A single broker has every partition of every topic; a broker of a cluster only those assigned to it. */
    private final boolean everyPartition;
    /** Asked by every partition's log before transactional data enters it; the transaction coordinator sets it. */
    private volatile TransactionVerifier transactionVerifier = TransactionVerifier.ACCEPT_ALL;

    private PartitionManager(
            final LogManager logs, final TopicRegistry topics, final int maxPartitions, final boolean everyPartition) {
        this.logs = logs;
        this.topics = topics;
        this.maxPartitions = maxPartitions;
        this.everyPartition = everyPartition;
    }

    /** {@link #start(LogManager, TopicRegistry, int)} without a partition limit. */
    public static PartitionManager start(final LogManager logs, final TopicRegistry topics) throws IOException {
        return start(logs, topics, Integer.MAX_VALUE);
    }

    /**
     * Opens (and recovers) every log, then reconciles them with the registry.
     *
     * @param maxPartitions {@code max.broker.partitions}: the most partitions creations may bring this broker to
     */
    public static PartitionManager start(final LogManager logs, final TopicRegistry topics, final int maxPartitions)
            throws IOException {
        return start(logs, topics, maxPartitions, true);
    }

    /**
     * A broker of a cluster: opens (and recovers) every log, keeps those of the registry's topics and deletes the
     * rest, but creates none. Which partitions this broker holds is the cluster's metadata to say: {@link #host}
     * brings the logs in line with it.
     */
    public static PartitionManager startForCluster(final LogManager logs, final TopicRegistry topics)
            throws IOException {
        return start(logs, topics, Integer.MAX_VALUE, false);
    }

    private static PartitionManager start(
            final LogManager logs, final TopicRegistry topics, final int maxPartitions, final boolean everyPartition)
            throws IOException {
        logs.startup();
        final PartitionManager manager = new PartitionManager(logs, topics, maxPartitions, everyPartition);
        for (final TopicInfo topic : topics.topics()) {
            manager.openPartitions(topic);
        }
        for (final io.isthmus.broker.log.TopicPartition stray : logs.logs().keySet()) {
            if (!manager.partitions.containsKey(new TopicPartition(stray.topic(), stray.partition()))) {
                LOG.warn(
                        "deleting log {}: no registered topic owns it (a deletion or a partition addition interrupted by a crash)",
                        stray);
                logs.deleteLog(stray);
            }
        }
        LOG.info("{} topics with {} partitions online", topics.topics().size(), manager.partitions.size());
        return manager;
    }

    public TopicRegistry topics() {
        return topics;
    }

    public Optional<Partition> partition(final TopicPartition topicPartition) {
        return Optional.ofNullable(partitions.get(topicPartition));
    }

    public Collection<Partition> partitions() {
        return partitions.values();
    }

    /**
     * Creates a topic and its empty partitions: their logs first, then the registry entry. See {@link #checkCreateTopic}
     * for the refusals; if a log cannot be created, the ones made are deleted again, the topic does not exist, and the
     * failure is thrown.
     */
    public synchronized TopicInfo createTopic(final String name, final int partitionCount) {
        checkCreateTopic(name, partitionCount);
        final List<PartitionLog> created = new ArrayList<>();
        final TopicInfo topic;
        try {
            for (int p = 0; p < partitionCount; p++) {
                created.add(logs.getOrCreateLog(new io.isthmus.broker.log.TopicPartition(name, p)));
            }
            topic = topics.create(name, partitionCount);
        } catch (final RuntimeException e) {
            throw deleteOrphans(
                    e,
                    name,
                    0,
                    created.size(),
                    "cannot create topic: topic=" + name + ", partitions=" + partitionCount
                            + ", logs created before the failure=" + created.size() + " (deleted again)");
        }
        for (int p = 0; p < partitionCount; p++) {
            register(new TopicPartition(name, p), topic.id(), created.get(p));
        }
        LOG.info("created topic={} id={} partitions={}", name, topic.id(), partitionCount);
        return topic;
    }

    /**
     * What {@link #createTopic} would refuse, changing nothing (CreateTopics with {@code validate_only}): an invalid
     * name, fewer than one partition, a name taken, or more partitions than {@code max.broker.partitions} leaves room
     * for.
     */
    public void checkCreateTopic(final String name, final int partitionCount) {
        topics.checkCreate(name, partitionCount);
        checkRoomFor(partitionCount, "topic '" + name + "' with " + partitionCount + " partitions");
    }

    private void checkRoomFor(final int adding, final String what) {
        final int held = partitions.size();
        if ((long) held + adding > maxPartitions) {
            throw new PolicyViolationException("cannot create " + what + ": this broker holds " + held
                    + " partitions and max.broker.partitions is " + maxPartitions);
        }
    }

    /**
     * Deletes the logs {@code [from, from + count)} of {@code name}, made for partitions that were never registered,
     * and returns what to throw for {@code failure}: an {@link ApiException} as it is, anything else wrapped with
     * {@code context}.
     */
    private RuntimeException deleteOrphans(
            final RuntimeException failure, final String name, final int from, final int count, final String context) {
        // Nothing routes to these logs and the registry does not have them: deleting them now rather than at the next
        // start gives their preallocated segments back, and a retry starts from empty logs.
        for (int p = from; p < from + count; p++) {
            try {
                logs.deleteLog(new io.isthmus.broker.log.TopicPartition(name, p));
            } catch (final RuntimeException cleanup) {
                failure.addSuppressed(cleanup);
            }
        }
        return failure instanceof ApiException ? failure : new IllegalStateException(context, failure);
    }

    /**
     * Adds partitions to a topic, up to {@code partitionCount}, once {@code precondition} has accepted the topic as it
     * is (see {@link #checkCreatePartitions} for the errors). The new partitions' logs exist before the registry
     * records the new count, and the partitions are routed to only after it does. If creating a log or recording the
     * count fails, the logs made so far are deleted again and the topic stays as it was; a crash in between leaves
     * logs that no topic owns, which the next start deletes.
     */
    public synchronized TopicInfo createPartitions(
            final String name, final int partitionCount, final Consumer<TopicInfo> precondition) {
        final TopicInfo before = checkCreatePartitions(name, partitionCount, precondition);
        final List<PartitionLog> added = new ArrayList<>();
        final TopicInfo after;
        try {
            for (int p = before.partitions(); p < partitionCount; p++) {
                added.add(logs.getOrCreateLog(new io.isthmus.broker.log.TopicPartition(name, p)));
            }
            after = topics.increasePartitions(name, partitionCount);
        } catch (final RuntimeException e) {
            throw deleteOrphans(
                    e,
                    name,
                    before.partitions(),
                    added.size(),
                    "cannot add partitions: topic=" + name + ", partitions " + before.partitions() + " -> "
                            + partitionCount + ", logs created before the failure=" + added.size()
                            + " (deleted again; the topic keeps " + before.partitions() + " partitions)");
        }
        for (int i = 0; i < added.size(); i++) {
            final TopicPartition topicPartition = new TopicPartition(name, before.partitions() + i);
            register(topicPartition, after.id(), added.get(i));
        }
        LOG.info("topic={} id={} partitions {} -> {}", name, after.id(), before.partitions(), partitionCount);
        return after;
    }

    /**
     * What {@link #createPartitions} would refuse, changing nothing (CreatePartitions with {@code validate_only}):
     * {@code UnknownTopicOrPartitionException} for a missing topic, {@code InvalidPartitionsException} for a count not
     * above the current one, then whatever {@code precondition} throws for the topic as it is, then {@code
     * PolicyViolationException} if {@code max.broker.partitions} leaves no room for the new ones.
     *
     * @return the topic as it is
     */
    public TopicInfo checkCreatePartitions(
            final String name, final int partitionCount, final Consumer<TopicInfo> precondition) {
        final TopicInfo topic = topics.checkIncrease(name, partitionCount);
        precondition.accept(topic);
        checkRoomFor(
                partitionCount - topic.partitions(),
                (partitionCount - topic.partitions()) + " more partitions for topic '" + name + "'");
        return topic;
    }

    /** Deletes a topic and its logs; see {@link TopicRegistry#delete} for the errors. */
    public synchronized TopicInfo deleteTopic(final String name) {
        final TopicInfo topic = topics.delete(name);
        for (int p = 0; p < topic.partitions(); p++) {
            unregisterAndDelete(new TopicPartition(name, p));
        }
        LOG.info("deleted topic={} id={}", name, topic.id());
        return topic;
    }

    /**
     * One topic as the cluster's metadata has it, and the partitions of it assigned to this broker.
     *
     * @param topic the topic's name, id and partition count
     * @param hosted the indexes of the partitions this broker holds a replica of
     */
    public record HostedTopic(TopicInfo topic, Set<Integer> hosted) {
        public HostedTopic {
            hosted = Set.copyOf(hosted);
        }
    }

    /**
     * A broker of a cluster: makes the topics and this broker's partitions those of {@code cluster}, every topic of the
     * cluster. Logs of partitions no longer assigned here, of deleted topics and of a topic that was deleted and
     * created again under the same name (another id) are deleted; logs of newly assigned partitions are created
     * empty; partitions assigned before keep their logs. New logs exist before the registry lists them and are routed
     * to only after; a crash in between leaves logs no topic owns, which the next start deletes, or partitions without
     * logs, which the next call creates.
     */
    public synchronized void host(final Collection<HostedTopic> cluster) {
        if (everyPartition) {
            throw new IllegalStateException("a single broker holds every partition; host is for a broker of a cluster");
        }
        final Map<String, HostedTopic> wanted = byName(cluster);
        final Set<String> removed = topicsRemovedBy(wanted);
        final List<TopicPartition> unhosted = new ArrayList<>();
        final List<PendingPartition> added = new ArrayList<>();
        for (final TopicPartition held : partitions.keySet()) {
            final HostedTopic target = wanted.get(held.topic());
            if (removed.contains(held.topic())
                    || target == null
                    || !target.hosted().contains(held.partition())) {
                unhosted.add(held);
            }
        }
        for (final TopicPartition gone : unhosted) {
            unregisterAndDelete(gone);
        }
        try {
            for (final HostedTopic target : cluster) {
                for (final int p : target.hosted()) {
                    final TopicPartition tp = new TopicPartition(target.topic().name(), p);
                    if (!partitions.containsKey(tp)) {
                        added.add(new PendingPartition(
                                tp,
                                target.topic().id(),
                                logs.getOrCreateLog(new io.isthmus.broker.log.TopicPartition(tp.topic(), p))));
                    }
                }
            }
            topics.replaceAll(cluster.stream().map(HostedTopic::topic).toList());
        } catch (final RuntimeException e) {
            for (final PendingPartition pending : added) {
                logs.deleteLog(new io.isthmus.broker.log.TopicPartition(
                        pending.partition().topic(), pending.partition().partition()));
            }
            throw e;
        }
        for (final PendingPartition pending : added) {
            register(pending.partition(), pending.topicId(), pending.log());
        }
        if (!unhosted.isEmpty() || !added.isEmpty()) {
            LOG.info(
                    "partitions held here: {} added, {} removed, {} in all",
                    added.size(),
                    unhosted.size(),
                    partitions.size());
        }
    }

    /** The topics {@link #host} would remove or replace for {@code cluster}: absent from it, or there with another id. */
    public Set<String> topicsRemovedBy(final Collection<HostedTopic> cluster) {
        return topicsRemovedBy(byName(cluster));
    }

    private Set<String> topicsRemovedBy(final Map<String, HostedTopic> wanted) {
        final Set<String> removed = new HashSet<>();
        for (final TopicInfo local : topics.topics()) {
            final HostedTopic target = wanted.get(local.name());
            if (target == null || !target.topic().id().equals(local.id())) {
                removed.add(local.name());
            }
        }
        return removed;
    }

    private static Map<String, HostedTopic> byName(final Collection<HostedTopic> cluster) {
        final Map<String, HostedTopic> byName = new HashMap<>();
        for (final HostedTopic t : cluster) {
            byName.put(t.topic().name(), t);
        }
        return byName;
    }

    private record PendingPartition(TopicPartition partition, Uuid topicId, PartitionLog log) {}

    private void unregisterAndDelete(final TopicPartition partition) {
        final Partition removed = partitions.remove(partition);
        if (removed != null) {
            removed.notifyAppendListeners();
        }
        logs.deleteLog(new io.isthmus.broker.log.TopicPartition(partition.topic(), partition.partition()));
    }

    private void openPartitions(final TopicInfo topic) {
        for (int p = 0; p < topic.partitions(); p++) {
            final io.isthmus.broker.log.TopicPartition logPartition =
                    new io.isthmus.broker.log.TopicPartition(topic.name(), p);
            if (!everyPartition && logs.log(logPartition).isEmpty()) {
                continue; // not assigned here (a broker of a cluster holds only its own partitions)
            }
            final PartitionLog log = logs.getOrCreateLog(logPartition);
            final TopicPartition topicPartition = new TopicPartition(topic.name(), p);
            register(topicPartition, topic.id(), log);
        }
    }

    private void register(final TopicPartition topicPartition, final Uuid topicId, final PartitionLog log) {
        log.verifyTransactionsWith(transactionVerifier);
        final Partition partition = Partition.open(topicPartition, topicId, log);
        if (everyPartition) {
            // A single broker leads all it has, in the epoch its log ends in: the epoch's entry is there even for an
            // empty log, so a consumer validating its position (KIP-320) is told where that epoch ends.
            partition.becomeLeader(partition.leaderEpoch());
        }
        partitions.put(topicPartition, partition);
    }

    /**
     * Makes every partition, present and future, ask {@code verifier} before a producer's transactional data enters it
     * (set once by the transaction coordinator, before the broker serves clients).
     */
    public synchronized void verifyTransactionsWith(final TransactionVerifier verifier) {
        this.transactionVerifier = verifier;
        for (final Partition partition : partitions.values()) {
            partition.log().verifyTransactionsWith(verifier);
        }
    }

    @Override
    public void close() throws InterruptedException {
        for (final Partition partition : partitions.values()) {
            partition.notifyAppendListeners();
        }
        logs.close();
    }
}
