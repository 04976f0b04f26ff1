package io.isthmus.broker.cluster;

import io.isthmus.broker.api.ProduceVerification;
import io.isthmus.broker.log.TransactionVerifier;
import io.isthmus.metadata.image.ClusterImage;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * KIP-890's verification on a cluster's partition leader: before a transactional producer's first batch of a
 * transaction enters a partition, the leader asks the transaction's coordinator (AddPartitionsToTxn, the brokers'
 * batched form with {@code verify_only}) whether that partition is in the producer's open transaction at that epoch.
 * Only then may the batch in: the log consults {@link #isPartitionInTransaction} under its append lock. So a batch
 * that arrives after its transaction ended (a retry delayed past the abort) cannot open a transaction no coordinator
 * knows of, which would hold the partition's last stable offset, and read_committed consumers, back for good.
 *
 * <p>A verified (producer, partition) is remembered with its epoch until a marker ends the producer's transaction in
 * the partition ({@link #markerWritten}); the next transaction's first batch is verified again. Answers, as Kafka's
 * for clients of version 1 transactions: INVALID_TXN_STATE where the coordinator has no such transaction, and
 * NOT_ENOUGH_REPLICAS (which they retry) while the coordinator cannot be asked. Requests run on two threads of their
 * own, never on network threads.
 */
final class TransactionVerification implements ProduceVerification, TransactionVerifier, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionVerification.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private record Verified(long producerId, String partition) {}

    /** The producer epoch verified, and the partition (by name in the key, as the logs ask). */
    private record Verification(short producerEpoch, TopicPartition partition) {}

    private final Function<String, OptionalInt> coordinatorOf;
    private final BrokerChannels channels;
    private final ConcurrentHashMap<Verified, Verification> verified = new ConcurrentHashMap<>();
    private final ExecutorService executor;

    /** @param coordinatorOf the broker coordinating a transactional id, if its state partition has a leader */
    TransactionVerification(
            final int nodeId, final Function<String, OptionalInt> coordinatorOf, final BrokerChannels channels) {
        this.coordinatorOf = coordinatorOf;
        this.channels = channels;
        this.executor = Executors.newFixedThreadPool(2, runnable -> {
            final Thread thread = new Thread(runnable, "broker-" + nodeId + "-transaction-verification");
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public boolean isPartitionInTransaction(final long producerId, final short producerEpoch, final String partition) {
        final Verification verification = verified.get(new Verified(producerId, partition));
        return verification != null && verification.producerEpoch() == producerEpoch;
    }

    @Override
    public void markerWritten(final long producerId, final TopicPartition partition) {
        verified.remove(new Verified(producerId, partition.toString()));
    }

    @Override
    public CompletableFuture<Errors> verify(
            final String transactionalId, final MemoryRecords records, final TopicPartition partition) {
        RecordBatch first = null;
        for (final RecordBatch batch : records.batches()) {
            first = batch;
            break;
        }
        if (first == null || !first.isTransactional()) {
            return CompletableFuture.completedFuture(Errors.NONE);
        }
        return verify(transactionalId, first.producerId(), first.producerEpoch(), partition);
    }

    /**
     * Whether {@code partition} is in the producer's open transaction at {@code epoch}, asked of its coordinator unless
     * verified already; answered as {@link #verify(String, MemoryRecords, TopicPartition)}. A group's coordinator asks
     * it of its {@code __consumer_offsets} partition before it writes the offsets a transaction commits there.
     */
    CompletableFuture<Errors> verify(
            final String transactionalId, final long producerId, final short epoch, final TopicPartition partition) {
        if (isPartitionInTransaction(producerId, epoch, partition.toString())) {
            return CompletableFuture.completedFuture(Errors.NONE);
        }
        try {
            return CompletableFuture.supplyAsync(() -> ask(transactionalId, producerId, epoch, partition), executor);
        } catch (final RejectedExecutionException closing) {
            return CompletableFuture.completedFuture(Errors.NOT_ENOUGH_REPLICAS);
        }
    }

    private Errors ask(
            final String transactionalId, final long producerId, final short epoch, final TopicPartition partition) {
        final OptionalInt coordinator = coordinatorOf.apply(transactionalId);
        if (coordinator.isEmpty()) {
            return Errors.NOT_ENOUGH_REPLICAS;
        }
        final AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection topics =
                new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection();
        topics.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic()
                .setName(partition.topic())
                .setPartitions(new java.util.ArrayList<>(java.util.List.of(partition.partition()))));
        final AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection transactions =
                new AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection();
        transactions.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction()
                .setTransactionalId(transactionalId)
                .setProducerId(producerId)
                .setProducerEpoch(epoch)
                .setVerifyOnly(true)
                .setTopics(topics));
        final Errors answer;
        try {
            answer = answerFor(
                    (AddPartitionsToTxnResponseData) channels.request(
                            coordinator.getAsInt(),
                            ApiKeys.ADD_PARTITIONS_TO_TXN,
                            new AddPartitionsToTxnRequestData().setTransactions(transactions),
                            TIMEOUT),
                    transactionalId,
                    partition);
        } catch (final RuntimeException e) {
            LOG.debug("cannot verify transactionalId={} at broker {}: {}", transactionalId, coordinator, e.toString());
            return Errors.NOT_ENOUGH_REPLICAS;
        }
        if (answer == Errors.NONE) {
            verified.put(new Verified(producerId, partition.toString()), new Verification(epoch, partition));
            return Errors.NONE;
        }
        return switch (answer) {
            case INVALID_TXN_STATE, INVALID_PRODUCER_ID_MAPPING -> Errors.INVALID_TXN_STATE;
            case PRODUCER_FENCED, INVALID_PRODUCER_EPOCH -> Errors.INVALID_PRODUCER_EPOCH;
            default -> Errors.NOT_ENOUGH_REPLICAS;
        };
    }

    private static Errors answerFor(
            final AddPartitionsToTxnResponseData response, final String transactionalId, final TopicPartition tp) {
        if (response.errorCode() != Errors.NONE.code()) {
            return Errors.forCode(response.errorCode());
        }
        final AddPartitionsToTxnResponseData.AddPartitionsToTxnResult result =
                response.resultsByTransaction().find(transactionalId);
        if (result == null) {
            return Errors.UNKNOWN_SERVER_ERROR;
        }
        final AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult topic =
                result.topicResults().find(tp.topic());
        if (topic == null) {
            return Errors.UNKNOWN_SERVER_ERROR;
        }
        for (final AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult partition :
                topic.resultsByPartition()) {
            if (partition.partitionIndex() == tp.partition()) {
                return Errors.forCode(partition.partitionErrorCode());
            }
        }
        return Errors.UNKNOWN_SERVER_ERROR;
    }

    /**
     * Forgets what was verified for partitions {@code image} does not name this broker leader of: their markers go to
     * their new leaders, and a verification kept here would let a late batch in should the leadership come back.
     */
    void retainLedBy(final ClusterImage image, final int nodeId) {
        verified.values().removeIf(v -> image.topic(v.partition().topic())
                .filter(topic -> v.partition().partition() < topic.partitions().size())
                .map(topic -> topic.partition(v.partition().partition()).leader() != nodeId)
                .orElse(true));
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
