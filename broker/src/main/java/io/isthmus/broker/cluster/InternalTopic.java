package io.isthmus.broker.cluster;

import io.isthmus.broker.api.CoordinatorLocator.Located;
import io.isthmus.broker.config.InternalTopicSettings;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.Partition.ProduceOutcome;
import io.isthmus.broker.transaction.StateWriteException;
import io.isthmus.broker.transaction.TransactionMarkerWriter;
import io.isthmus.metadata.image.BrokerRegistration;
import io.isthmus.metadata.image.ClusterImage;
import io.isthmus.metadata.image.PartitionState;
import io.isthmus.metadata.image.TopicImage;
import java.lang.foreign.MemorySegment;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replicated internal topic whose partition leaders coordinate keys, Kafka's way: a key (a transactional id, a group
 * id) belongs to partition {@code abs(hash(key)) % partitions}, and that partition's leader is its coordinator. This
 * class knows the topic's place in the metadata: where a key's coordinator is, how the topic is created (through the
 * quorum, on the first FindCoordinator that needs it, as Kafka creates it), and how a coordinator's write becomes
 * durable (appended as the partition's leader in the epoch it was elected in, then held by enough in-sync replicas).
 * {@link PartitionCoordinators} runs the coordinators themselves.
 */
final class InternalTopic {
    private static final Logger LOG = LoggerFactory.getLogger(InternalTopic.class);

    private final String name;
    /** What the coordinators coordinate, for messages: "transaction", "group". */
    private final String role;

    private final InternalTopicSettings settings;
    private final ClusterMembership membership;
    private final AtomicBoolean creating = new AtomicBoolean();

    InternalTopic(
            final String name,
            final String role,
            final InternalTopicSettings settings,
            final ClusterMembership membership) {
        this.name = name;
        this.role = role;
        this.settings = settings;
        this.membership = membership;
    }

    String name() {
        return name;
    }

    InternalTopicSettings settings() {
        return settings;
    }

    /** The partition of {@code key}, given the topic's partition count. */
    static int partitionFor(final String key, final int partitionCount) {
        return Utils.abs(key.hashCode()) % partitionCount;
    }

    /** The topic in {@code image}, if created. */
    Optional<TopicImage> in(final ClusterImage image) {
        return image.topic(name);
    }

    /** The partition of {@code key} in the newest image, or -1 while the topic does not exist. */
    int partitionOf(final String key) {
        return in(membership.image())
                .map(topic -> partitionFor(key, topic.partitions().size()))
                .orElse(-1);
    }

    /**
     * The partition of {@code key}: in the topic as it is, or as it will be created (with {@link
     * InternalTopicSettings#partitions()}) while it does not exist yet.
     */
    TopicPartition placementOf(final String key) {
        final int index = partitionOf(key);
        return new TopicPartition(name, index >= 0 ? index : partitionFor(key, settings.partitions()));
    }

    /** FindCoordinator for {@code key}: the leader of its partition, creating the topic if need be. */
    Located locate(final String key, final String listenerName) {
        final ClusterImage image = membership.image();
        final Optional<TopicImage> topic = in(image);
        if (topic.isEmpty()) {
            create();
            return Located.none(
                    Errors.COORDINATOR_NOT_AVAILABLE, "the " + role + " topic " + name + " is being created");
        }
        final PartitionState state =
                topic.get().partition(partitionFor(key, topic.get().partitions().size()));
        if (!state.hasLeader()) {
            return Located.none(
                    Errors.COORDINATOR_NOT_AVAILABLE, "the " + name + " partition of this " + role + " has no leader");
        }
        final Optional<BrokerRegistration> broker = image.broker(state.leader());
        if (broker.isEmpty() || broker.get().fenced()) {
            return Located.none(
                    Errors.COORDINATOR_NOT_AVAILABLE, "broker " + state.leader() + ", the coordinator, is fenced");
        }
        return ImageMetadata.endpointOf(broker.get(), listenerName)
                .map(e -> new Located(Errors.NONE, null, state.leader(), e.host(), e.port()))
                .orElseGet(() -> Located.none(
                        Errors.COORDINATOR_NOT_AVAILABLE,
                        "broker " + state.leader() + ", the coordinator, has no listener " + listenerName));
    }

    /** The broker coordinating {@code key} as this broker's image has it; empty without a leader. */
    OptionalInt leaderOf(final String key) {
        final Optional<TopicImage> topic = in(membership.image());
        if (topic.isEmpty()) {
            return OptionalInt.empty();
        }
        final PartitionState state =
                topic.get().partition(partitionFor(key, topic.get().partitions().size()));
        return state.hasLeader() ? OptionalInt.of(state.leader()) : OptionalInt.empty();
    }

    /** Asks the quorum to create the topic, unless a creation is under way. */
    void create() {
        if (!creating.compareAndSet(false, true)) {
            return;
        }
        final CreateTopicsRequestData create = new CreateTopicsRequestData().setTimeoutMs(30_000);
        create.topics()
                .add(new CreateTopicsRequestData.CreatableTopic()
                        .setName(name)
                        .setNumPartitions(settings.partitions())
                        .setReplicationFactor(settings.replicationFactor()));
        membership.controller().createTopics(create).whenComplete((response, failure) -> {
            creating.set(false);
            if (failure != null) {
                LOG.warn("cannot create {} now: {}", name, failure.toString());
                return;
            }
            final var result = response.topics().find(name);
            final Errors error = result == null ? Errors.UNKNOWN_SERVER_ERROR : Errors.forCode(result.errorCode());
            if (error == Errors.NONE || error == Errors.TOPIC_ALREADY_EXISTS) {
                LOG.info(
                        "created {}: partitions={} replicationFactor={}",
                        name,
                        settings.partitions(),
                        settings.replicationFactor());
            } else {
                LOG.warn(
                        "cannot create {} now ({}): {}; its {} coordinators wait",
                        name,
                        error,
                        result == null ? "no answer" : result.errorMessage(),
                        role);
            }
        });
    }

    /**
     * Appends a coordinator's batch as the partition's leader in {@code leaderEpoch} and waits until {@link
     * InternalTopicSettings#minInsyncReplicas()} in-sync replicas hold it.
     *
     * @throws StateWriteException NOT_COORDINATOR if the partition is not led here in that epoch (any more),
     *     COORDINATOR_NOT_AVAILABLE if too few replicas are in sync or confirm the batch in time, or the append failed
     */
    void appendReplicated(final Partition partition, final int leaderEpoch, final MemorySegment batch) {
        try {
            appendReplicatedAsync(partition, leaderEpoch, batch).join();
        } catch (final CompletionException e) {
            if (e.getCause() instanceof StateWriteException refused) {
                throw refused;
            }
            throw e;
        }
    }

    /**
     * {@link #appendReplicated}, without holding the caller's thread while the followers fetch: the batch is appended
     * now, and the future completes once enough in-sync replicas hold it, or fails with {@link StateWriteException}.
     */
    CompletableFuture<Void> appendReplicatedAsync(
            final Partition partition, final int leaderEpoch, final MemorySegment batch) {
        return replicate(partition, leaderEpoch, "a " + role + " write", () -> partition.appendFromCoordinator(batch))
                .thenApply(written -> null);
    }

    /**
     * Appends a transaction's marker as the partition's leader in {@code leaderEpoch}, as WriteTxnMarkers appends it to
     * any partition ({@link TransactionMarkerWriter#appendTo}), and waits as {@link #appendReplicatedAsync} does;
     * {@code onAppended} runs once the marker is in the local log, before the replicas are waited for.
     *
     * @return completes true once the in-sync replicas hold the marker, false if the partition did not need it (its
     *     producer is at a newer epoch, whose marker ended the transaction already); fails with {@link
     *     StateWriteException} as {@link #appendReplicatedAsync} does, or carrying TRANSACTION_COORDINATOR_FENCED
     */
    CompletableFuture<Boolean> appendMarkerReplicatedAsync(
            final Partition partition,
            final int leaderEpoch,
            final MemorySegment marker,
            final long producerId,
            final Runnable onAppended) {
        return replicate(partition, leaderEpoch, "a transaction marker", () -> {
            final ProduceOutcome appended =
                    TransactionMarkerWriter.appendTo(partition, marker, "producerId=" + producerId);
            if (appended.error() == Errors.NONE && appended.lastOffset() >= 0) {
                onAppended.run();
            }
            return appended;
        });
    }

    /** Appends as leader in {@code leaderEpoch}; completes true once replicated, false if nothing was appended. */
    private CompletableFuture<Boolean> replicate(
            final Partition partition,
            final int leaderEpoch,
            final String what,
            final Supplier<ProduceOutcome> append) {
        final Errors leads = membership.leadership().check(partition, leaderEpoch);
        if (leads != Errors.NONE) {
            return CompletableFuture.failedFuture(new StateWriteException(
                    Errors.NOT_COORDINATOR,
                    partition.topicPartition() + " is not led here in epoch " + leaderEpoch + ": " + leads));
        }
        final Optional<String> tooFew =
                partition.tooFewInSync(settings.minInsyncReplicas(), settings.minInsyncReplicasSetting());
        if (tooFew.isPresent()) {
            return CompletableFuture.failedFuture(new StateWriteException(
                    Errors.COORDINATOR_NOT_AVAILABLE, partition.topicPartition() + ": " + tooFew.get()));
        }
        final ProduceOutcome appended = append.get();
        if (appended.error() == Errors.NONE && appended.lastOffset() < 0) {
            return CompletableFuture.completedFuture(false);
        }
        if (appended.error() == Errors.NONE && appended.leaderEpoch() != leaderEpoch) {
            // Leadership moved on (and came back) between the check and the append: the write belongs to the
            // coordinator of the newer epoch, which may have read the log already.
            return CompletableFuture.failedFuture(new StateWriteException(
                    Errors.NOT_COORDINATOR,
                    partition.topicPartition() + " took epoch " + appended.leaderEpoch() + " under the coordinator of "
                            + leaderEpoch));
        }
        if (appended.error() != Errors.NONE) {
            return CompletableFuture.failedFuture(new StateWriteException(
                    switch (appended.error()) {
                        case NOT_LEADER_OR_FOLLOWER -> Errors.NOT_COORDINATOR;
                        // A producer's batch or marker the log refused for the producer's sake: the answer is its.
                        case TRANSACTION_COORDINATOR_FENCED, INVALID_TXN_STATE -> appended.error();
                        case INVALID_PRODUCER_EPOCH -> Errors.PRODUCER_FENCED;
                        default -> Errors.COORDINATOR_NOT_AVAILABLE;
                    },
                    partition.topicPartition() + " refused " + what + ": " + appended.error() + " "
                            + appended.message()));
        }
        return partition
                .awaitReplication(
                        appended.lastOffset(),
                        appended.leaderEpoch(),
                        settings.minInsyncReplicas(),
                        settings.writeTimeout().toMillis())
                .thenApply(replicated -> {
                    if (replicated != Errors.NONE) {
                        throw new StateWriteException(
                                replicated == Errors.NOT_LEADER_OR_FOLLOWER
                                        ? Errors.NOT_COORDINATOR
                                        : Errors.COORDINATOR_NOT_AVAILABLE,
                                "write at offset " + appended.lastOffset() + " of " + partition.topicPartition()
                                        + " not confirmed by the in-sync replicas: " + replicated);
                    }
                    return true;
                });
    }
}
