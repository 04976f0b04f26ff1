package io.isthmus.client.producer;

import io.isthmus.client.cluster.BrokerConnections;
import io.isthmus.client.cluster.CoordinatorClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionAbortableException;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The requests of Kafka's transaction protocol as kafka-clients sends them without transaction version 2 (KIP-98:
 * partitions and group offsets are added to a transaction explicitly), each with kafka-clients' rules for its errors:
 * NOT_COORDINATOR and COORDINATOR_NOT_AVAILABLE look the coordinator up again and retry, COORDINATOR_LOAD_IN_PROGRESS
 * and CONCURRENT_TRANSACTIONS (the coordinator still completing the previous transaction) back off and retry, a lost
 * connection or a request timeout retries on a fresh connection; PRODUCER_FENCED and INVALID_PRODUCER_EPOCH throw
 * {@link ProducerFencedException}; the rest throw Kafka's exception for the error, which {@link TransactionManager}
 * sorts into abortable and fatal.
 *
 * <p>Requests go at most at the last version before transaction version 2 (KIP-890 part 2), because from there on a
 * version means more than its fields: Produce 12 makes the broker add the partition itself, EndTxn 5 bumps the epoch
 * per transaction, TxnOffsetCommit 5 stands in for AddOffsetsToTxn, and AddPartitionsToTxn 4 is for brokers only.
 * Kafka 4 brokers serve these versions to every client that has not moved to version 2.
 *
 * <p>The application thread's requests retry until {@code max.block.ms} passes and then throw {@link TimeoutException}
 * with the transaction's state unchanged, so the call may be made again; AddPartitionsToTxn, which the sender thread
 * sends, is one attempt at a time ({@link #addPartitions}), so that the sender goes on with other partitions while it
 * backs off.
 */
final class TransactionRequests {
    /** An attempt's answer when the request succeeded; any other answer is the backoff before the next attempt. */
    static final long DONE = -1;

    /** Produce at 12 and later lets a broker with transaction version 2 add partitions on its own. */
    static final short PRODUCE_MAX_VERSION = 11;

    private static final short INIT_PRODUCER_ID_MAX_VERSION = 5;
    private static final short ADD_PARTITIONS_MAX_VERSION = 3;
    private static final short END_TXN_MAX_VERSION = 4;
    private static final short TXN_OFFSET_COMMIT_MAX_VERSION = 4;
    /** Kafka's backoff after CONCURRENT_TRANSACTIONS: the previous transaction's markers are usually written by then. */
    private static final long CONCURRENT_TRANSACTIONS_BACKOFF_MS = 20;

    private final ProducerConfig config;
    private final String transactionalId;
    private final BrokerConnections connections;
    private final CoordinatorClient coordinator;
    private final Map<String, CoordinatorClient> groupCoordinators = new HashMap<>();
    /** The last retriable error, for the message of a {@link TimeoutException}. */
    private volatile String lastRetriable = "none";

    @FunctionalInterface
    private interface Attempt {
        /** One request: {@link #DONE}, or the backoff in ms before the next attempt; throws what is not retriable. */
        long run();
    }

    TransactionRequests(final ProducerConfig config, final BrokerConnections connections) {
        this.config = config;
        this.transactionalId = config.transactionalId();
        this.connections = connections;
        this.coordinator =
                CoordinatorClient.forTransaction(connections, config.transactionalId(), config.requestTimeout());
    }

    /**
     * InitProducerId for this transactional id: a producer id and epoch of its own, fencing every earlier producer with
     * the id and aborting a transaction one left open. With the current id and epoch (version 3 and later) the
     * coordinator bumps the epoch of that producer instead (Kafka's KIP-360), which aborts the open transaction too.
     */
    InitProducerIdResponseData initProducerId(final long producerId, final short producerEpoch) {
        final InitProducerIdResponseData[] result = new InitProducerIdResponseData[1];
        untilDone("InitProducerId", () -> {
            final InitProducerIdRequestData request = new InitProducerIdRequestData()
                    .setTransactionalId(transactionalId)
                    .setTransactionTimeoutMs(config.transactionTimeoutMs());
            if (coordinator.version(ApiKeys.INIT_PRODUCER_ID, INIT_PRODUCER_ID_MAX_VERSION) >= 3) {
                request.setProducerId(producerId).setProducerEpoch(producerEpoch);
            }
            final InitProducerIdResponseData response = (InitProducerIdResponseData)
                    coordinator.request(ApiKeys.INIT_PRODUCER_ID, request, INIT_PRODUCER_ID_MAX_VERSION);
            final Errors error = Errors.forCode(response.errorCode());
            if (error == Errors.NONE) {
                result[0] = response;
                return DONE;
            }
            return retryOrThrow(error, "InitProducerId", coordinator);
        });
        return result[0];
    }

    /**
     * One AddPartitionsToTxn for {@code partitions} (sender thread).
     *
     * @return {@link #DONE} when the coordinator added them all, else the backoff before trying again
     */
    long addPartitions(final long producerId, final short producerEpoch, final List<PartitionQueue> partitions) {
        final Map<String, List<Integer>> byTopic = new TreeMap<>();
        for (final PartitionQueue queue : partitions) {
            byTopic.computeIfAbsent(queue.topic, t -> new ArrayList<>()).add(queue.partition);
        }
        final AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection topics =
                new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection();
        byTopic.forEach((topic, indexes) -> topics.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic()
                .setName(topic)
                .setPartitions(indexes)));
        return attempt(() -> {
            final AddPartitionsToTxnResponseData response = (AddPartitionsToTxnResponseData) coordinator.request(
                    ApiKeys.ADD_PARTITIONS_TO_TXN,
                    new AddPartitionsToTxnRequestData()
                            .setV3AndBelowTransactionalId(transactionalId)
                            .setV3AndBelowProducerId(producerId)
                            .setV3AndBelowProducerEpoch(producerEpoch)
                            .setV3AndBelowTopics(topics),
                    ADD_PARTITIONS_MAX_VERSION);
            long backoff = DONE;
            final List<String> unauthorized = new ArrayList<>();
            for (final AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult topic :
                    response.resultsByTopicV3AndBelow()) {
                for (final AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult partition :
                        topic.resultsByPartition()) {
                    final Errors error = Errors.forCode(partition.partitionErrorCode());
                    if (error == Errors.NONE || error == Errors.OPERATION_NOT_ATTEMPTED) {
                        // OPERATION_NOT_ATTEMPTED: the coordinator refused the request for another partition's error.
                        continue;
                    }
                    if (error == Errors.TOPIC_AUTHORIZATION_FAILED) {
                        unauthorized.add(topic.name());
                        continue;
                    }
                    final String what = "AddPartitionsToTxn(" + topic.name() + "-" + partition.partitionIndex() + ")";
                    backoff = Math.max(backoff, retryOrThrow(error, what, coordinator));
                }
            }
            if (!unauthorized.isEmpty()) {
                throw new TopicAuthorizationException(
                        "AddPartitionsToTxn refused: not authorized to write to topics=" + unauthorized + describe());
            }
            return backoff;
        });
    }

    /** AddOffsetsToTxn: the group's offsets partition joins the transaction, so TxnOffsetCommit may write to it. */
    void addOffsets(final long producerId, final short producerEpoch, final String groupId) {
        untilDone("AddOffsetsToTxn", () -> {
            final AddOffsetsToTxnResponseData response = (AddOffsetsToTxnResponseData) coordinator.request(
                    ApiKeys.ADD_OFFSETS_TO_TXN,
                    new AddOffsetsToTxnRequestData()
                            .setTransactionalId(transactionalId)
                            .setProducerId(producerId)
                            .setProducerEpoch(producerEpoch)
                            .setGroupId(groupId));
            final Errors error = Errors.forCode(response.errorCode());
            return error == Errors.NONE
                    ? DONE
                    : retryOrThrow(error, "AddOffsetsToTxn(group=" + groupId + ")", coordinator);
        });
    }

    /**
     * TxnOffsetCommit to the group's coordinator: the offsets become the group's committed offsets when the
     * transaction commits. Partitions answered with a retriable error go again; UNKNOWN_MEMBER_ID and
     * ILLEGAL_GENERATION (the group rebalanced: this member's input may be someone else's now) throw Kafka's abortable
     * {@link CommitFailedException}.
     */
    void commitOffsets(
            final long producerId,
            final short producerEpoch,
            final Map<TopicPartition, OffsetAndMetadata> offsets,
            final ConsumerGroupMetadata group) {
        final Map<TopicPartition, OffsetAndMetadata> pending = new HashMap<>(offsets);
        final CoordinatorClient groupCoordinator = groupCoordinators.computeIfAbsent(
                group.groupId(), g -> CoordinatorClient.forGroup(connections, g, config.requestTimeout()));
        untilDone("TxnOffsetCommit(group=" + group.groupId() + ")", () -> {
            final Map<String, TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic> byTopic = new TreeMap<>();
            pending.forEach((tp, offset) -> byTopic.computeIfAbsent(
                            tp.topic(), t -> new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic().setName(t))
                    .partitions()
                    .add(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition()
                            .setPartitionIndex(tp.partition())
                            .setCommittedOffset(offset.offset())
                            .setCommittedLeaderEpoch(offset.leaderEpoch().orElse(-1))
                            .setCommittedMetadata(offset.metadata())));
            final TxnOffsetCommitResponseData response = (TxnOffsetCommitResponseData) groupCoordinator.request(
                    ApiKeys.TXN_OFFSET_COMMIT,
                    new TxnOffsetCommitRequestData()
                            .setTransactionalId(transactionalId)
                            .setGroupId(group.groupId())
                            .setProducerId(producerId)
                            .setProducerEpoch(producerEpoch)
                            .setGenerationIdOrMemberEpoch(group.generationId())
                            .setMemberId(group.memberId())
                            .setGroupInstanceId(group.groupInstanceId().orElse(null))
                            .setTopics(new ArrayList<>(byTopic.values())),
                    TXN_OFFSET_COMMIT_MAX_VERSION);
            long backoff = DONE;
            for (final TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic topic : response.topics()) {
                for (final TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition partition :
                        topic.partitions()) {
                    final TopicPartition tp = new TopicPartition(topic.name(), partition.partitionIndex());
                    final Errors error = Errors.forCode(partition.errorCode());
                    if (error == Errors.NONE) {
                        pending.remove(tp);
                        continue;
                    }
                    if (error == Errors.UNKNOWN_MEMBER_ID || error == Errors.ILLEGAL_GENERATION) {
                        throw new CommitFailedException("TxnOffsetCommit refused: the group rebalanced, this member's"
                                + " generation is over: group=" + group.groupId() + ", generation="
                                + group.generationId() + ", memberId=" + group.memberId() + ", error=" + error
                                + describe());
                    }
                    backoff = Math.max(backoff, retryOrThrow(error, "TxnOffsetCommit(" + tp + ")", groupCoordinator));
                }
            }
            return pending.isEmpty() ? DONE : Math.max(backoff, config.retryBackoffMs());
        });
    }

    /** EndTxn: the coordinator commits or aborts the transaction and writes its markers. */
    void endTransaction(final long producerId, final short producerEpoch, final boolean commit) {
        untilDone(commit ? "EndTxn(commit)" : "EndTxn(abort)", () -> {
            final EndTxnResponseData response = (EndTxnResponseData) coordinator.request(
                    ApiKeys.END_TXN,
                    new EndTxnRequestData()
                            .setTransactionalId(transactionalId)
                            .setProducerId(producerId)
                            .setProducerEpoch(producerEpoch)
                            .setCommitted(commit),
                    END_TXN_MAX_VERSION);
            final Errors error = Errors.forCode(response.errorCode());
            return error == Errors.NONE ? DONE : retryOrThrow(error, "EndTxn", coordinator);
        });
    }

    // ------------------------------------------------------------------ errors and retries

    /**
     * The backoff in ms for a retriable error (after forgetting the coordinator where it moved); Kafka's exception for
     * the others.
     */
    private long retryOrThrow(final Errors error, final String what, final CoordinatorClient answeredBy) {
        lastRetriable = what + ": " + error;
        switch (error) {
            case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> {
                answeredBy.reset();
                return config.retryBackoffMs();
            }
            case CONCURRENT_TRANSACTIONS -> {
                return Math.min(config.retryBackoffMs(), CONCURRENT_TRANSACTIONS_BACKOFF_MS);
            }
            case PRODUCER_FENCED, INVALID_PRODUCER_EPOCH ->
                throw new ProducerFencedException(what + " refused: there is a newer producer with this"
                        + " transactional.id, this one is fenced: error=" + error + describe());
            case TRANSACTION_ABORTABLE ->
                throw new TransactionAbortableException(what + " failed: error=" + error + describe());
            default -> {
                if (error.exception() instanceof RetriableException) {
                    return config.retryBackoffMs();
                }
                throw error.exception(what + " failed: error=" + error + describe());
            }
        }
    }

    /** One attempt; a lost connection or a request timeout (the coordinator client dropped the connection) retries. */
    private long attempt(final Attempt attempt) {
        try {
            return attempt.run();
        } catch (final RetriableException e) {
            lastRetriable = e.toString();
            return config.retryBackoffMs();
        }
    }

    /** Attempts until done; after {@code max.block.ms} a {@link TimeoutException} naming the last retriable error. */
    private void untilDone(final String operation, final Attempt attempt) {
        final long deadline =
                System.nanoTime() + Duration.ofMillis(config.maxBlockMs()).toNanos();
        while (true) {
            final long backoff = attempt(attempt);
            if (backoff == DONE) {
                return;
            }
            if (System.nanoTime() + backoff * 1_000_000L - deadline > 0) {
                throw new TimeoutException(operation + " did not complete within max.block.ms=" + config.maxBlockMs()
                        + ": last retriable error=" + lastRetriable + describe());
            }
            try {
                Thread.sleep(backoff);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptException(e);
            }
        }
    }

    private String describe() {
        return ", transactionalId=" + transactionalId;
    }
}
