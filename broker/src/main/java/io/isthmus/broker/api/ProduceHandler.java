package io.isthmus.broker.api;

import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.Response;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.Partition.ProduceOutcome;
import io.isthmus.broker.partition.PartitionLeadership;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.topic.TopicRegistry.TopicInfo;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.resource.ResourceType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Produce over TCP: the batches are validated and copied from the request frame straight into the
 * partition's memory-mapped segment. acks=1 and acks=all are the same on a single broker: the answer goes
 * out once the bytes are in the log (the page cache, which survives a crash of this process). On a partition with
 * followers, acks=all is refused with NOT_ENOUGH_REPLICAS (nothing appended) while fewer than {@code
 * min.insync.replicas} replicas are in sync, and answered once the high watermark passes the append (every in-sync
 * replica holds it), or with REQUEST_TIMED_OUT after the request's timeout. acks=0 gets no
 * answer. A partition that RDMA producers share answers once its batches are committed in the shared order.
 */
public final class ProduceHandler implements ApiHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ProduceHandler.class);

    /** The first Produce version whose response carries the log start offset. */
    private static final short FIRST_VERSION_WITH_LOG_START_OFFSET = 5;

    private final ProduceVerification verification;
    private final PartitionManager partitions;
    private final TopicResolver topics;
    private final AccessControl access;
    private final PartitionLeadership leadership;
    private final int minInsyncReplicas;

    /**
     * Per producer and partition, the last verified append handed out and not done yet; the next one waits for it. A
     * transactional batch waits for its coordinator's word off the network thread, while the connection's next requests
     * are read and dispatched: without this order a producer's second batch could reach the log before its first, be
     * refused as a sequence gap, and have that refusal read after the first one's acknowledgement, which kafka-clients
     * takes as fatal (seen once in CI: "sequence gap … expected=2520, got=2521" right after an aborted transaction).
     * Kafka keeps the order by reading one request of a connection at a time; here only one producer's appends to one
     * partition are kept in order, and everything else still runs side by side.
     */
    private final ConcurrentHashMap<ProducerPartition, CompletableFuture<ProduceOutcome>> verifiedAppends =
            new ConcurrentHashMap<>();

    private record ProducerPartition(long producerId, TopicPartition partition) {}

    /** A single broker's handler: it leads every partition it has. */
    public ProduceHandler(final PartitionManager partitions, final AccessControl access) {
        this(partitions, access, PartitionLeadership.SOLE_BROKER, 1, ProduceVerification.NONE);
    }

    /**
     * @param minInsyncReplicas Kafka's {@code min.insync.replicas}: the ISR acks=all needs
     * @param verification what is asked before a transactional producer's batches are appended
     */
    public ProduceHandler(
            final PartitionManager partitions,
            final AccessControl access,
            final PartitionLeadership leadership,
            final int minInsyncReplicas,
            final ProduceVerification verification) {
        this.partitions = partitions;
        this.verification = verification;
        this.topics = new TopicResolver(partitions.topics());
        this.access = access;
        this.leadership = leadership;
        this.minInsyncReplicas = minInsyncReplicas;
    }

    @Override
    public Set<ApiKeys> apiKeys() {
        return Set.of(ApiKeys.PRODUCE);
    }

    @Override
    public CompletableFuture<Response> handle(final RequestContext context, final AbstractRequest request) {
        final ProduceRequestData data = ((ProduceRequest) request).data();
        final ProduceResponseData response = new ProduceResponseData();
        List<CompletableFuture<Void>> pending = null;
        // Kafka's order: a transactional producer must be allowed its transactional id, then each topic to write.
        final boolean transactionAllowed = data.transactionalId() == null
                || access.allows(context, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, data.transactionalId());
        for (final ProduceRequestData.TopicProduceData topicData : data.topicData()) {
            final Optional<TopicInfo> topic = topics.resolve(topicData.name(), topicData.topicId());
            final Errors refused = !transactionAllowed
                    ? Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
                    : topic.isPresent()
                                    && !access.allows(
                                            context,
                                            AclOperation.WRITE,
                                            ResourceType.TOPIC,
                                            topic.get().name())
                            ? Errors.TOPIC_AUTHORIZATION_FAILED
                            : null;
            final ProduceResponseData.TopicProduceResponse topicResponse =
                    new ProduceResponseData.TopicProduceResponse()
                            .setName(topicData.name())
                            .setTopicId(topicData.topicId());
            response.responses().add(topicResponse);
            for (final ProduceRequestData.PartitionProduceData partitionData : topicData.partitionData()) {
                final Optional<Partition> partition =
                        topic.flatMap(t -> partitions.partition(new TopicPartition(t.name(), partitionData.index())));
                final ProduceResponseData.PartitionProduceResponse partitionResponse =
                        new ProduceResponseData.PartitionProduceResponse()
                                .setIndex(partitionData.index())
                                .setLogAppendTimeMs(-1);
                topicResponse.partitionResponses().add(partitionResponse);
                if (refused != null) {
                    partitionResponse.setErrorCode(refused.code());
                    continue;
                }
                if (topic.isPresent() && Topic.isInternal(topic.get().name())) {
                    // As Kafka: only the broker writes its internal topics (a client's record in the transaction
                    // state would be loaded as a coordinator's state).
                    partitionResponse
                            .setErrorCode(Errors.INVALID_TOPIC_EXCEPTION.code())
                            .setErrorMessage("cannot append to internal topic "
                                    + topic.get().name());
                    continue;
                }
                if (partition.isEmpty()) {
                    final boolean elsewhere = topic.isPresent()
                            && leadership.heldElsewhere(
                                    new TopicPartition(topic.get().name(), partitionData.index()));
                    partitionResponse.setErrorCode(
                            elsewhere
                                    ? Errors.NOT_LEADER_OR_FOLLOWER.code()
                                    : TopicResolver.unknownTopicError(topicData.topicId())
                                            .code());
                    continue;
                }
                final Errors notLeader = leadership.check(partition.get(), -1);
                if (notLeader != Errors.NONE) {
                    partitionResponse.setErrorCode(notLeader.code());
                    continue;
                }
                final boolean acksAll = data.acks() == -1;
                final Optional<String> tooFew = acksAll
                        ? partition.get().tooFewInSync(minInsyncReplicas, "min.insync.replicas")
                        : Optional.empty();
                if (tooFew.isPresent()) {
                    partitionResponse
                            .setErrorCode(Errors.NOT_ENOUGH_REPLICAS.code())
                            .setErrorMessage(tooFew.get());
                    continue;
                }
                CompletableFuture<ProduceOutcome> appended;
                try {
                    appended = verifiedAppend(data.transactionalId(), partition.get(), partitionData);
                } catch (final RuntimeException e) {
                    // Thrown at once (an append with no shared order runs here): answered below like a late failure.
                    appended = CompletableFuture.failedFuture(e);
                }
                final CompletableFuture<ProduceOutcome> outcome = acksAll
                        ? appended.thenCompose(done ->
                                partition.get().awaitReplicated(done, minInsyncReplicas, Math.max(0, data.timeoutMs())))
                        : appended;
                if (outcome.isDone() && !outcome.isCompletedExceptionally()) {
                    answer(context, partition.get(), partitionResponse, outcome.join());
                } else {
                    if (pending == null) {
                        pending = new ArrayList<>();
                    }
                    // A failure is this partition's answer, never the request's: the request's frame must stay
                    // until every append queued from it is done, and the other partitions' answers still count.
                    pending.add(outcome.handle((done, failure) -> {
                        answer(
                                context,
                                partition.get(),
                                partitionResponse,
                                failure == null ? done : unexpected(partition.get(), failure));
                        return null;
                    }));
                }
            }
        }
        final Response answer = data.acks() == 0 ? Response.NONE : Response.of(response);
        return pending == null
                ? CompletableFuture.completedFuture(answer)
                : CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                        .thenApply(done -> answer);
    }

    /**
     * The append, for a transactional producer once {@link #verification} let its batches in, and after the producer's
     * earlier append to the partition is done ({@link #verifiedAppends}).
     */
    private CompletableFuture<ProduceOutcome> verifiedAppend(
            final String transactionalId,
            final Partition partition,
            final ProduceRequestData.PartitionProduceData data) {
        if (transactionalId == null || !(data.records() instanceof MemoryRecords records)) {
            return append(partition, data);
        }
        final ProducerPartition key = new ProducerPartition(producerIdOf(records), partition.topicPartition());
        final CompletableFuture<ProduceOutcome> outcome = new CompletableFuture<>();
        final CompletableFuture<ProduceOutcome> earlier = verifiedAppends.put(key, outcome);
        final CompletableFuture<?> turn =
                earlier == null ? CompletableFuture.completedFuture(null) : earlier.handle((done, failure) -> null);
        // The coordinator is asked at once (a check may take its whole timeout while the coordinator is away, and
        // checks in a queue would add up); only the append waits its turn.
        CompletableFuture<Errors> verified;
        try {
            verified = verification.verify(transactionalId, records, partition.topicPartition());
        } catch (final RuntimeException e) {
            verified = CompletableFuture.failedFuture(e); // still completes this turn, so later batches go on
        }
        final CompletableFuture<Errors> answer = verified;
        // Whatever the check says, failures included, is looked at in turn: a batch refused early must not let the
        // one behind it overtake the one before it.
        turn.thenCompose(ignored -> answer)
                .thenCompose(error -> error == Errors.NONE
                        ? append(partition, data)
                        : CompletableFuture.completedFuture(new ProduceOutcome(
                                error,
                                -1,
                                "the transaction's coordinator did not confirm " + partition.topicPartition()
                                        + " in the open transaction of transactionalId=" + transactionalId)))
                .whenComplete((done, failure) -> {
                    // In the log (or refused) by now: a later batch may go, and needs no turn if none waits.
                    verifiedAppends.remove(key, outcome);
                    if (failure != null) {
                        outcome.completeExceptionally(failure);
                    } else {
                        outcome.complete(done);
                    }
                });
        return outcome;
    }

    /** The producer id of the request's first batch, or -1 if it has none (the log refuses it then). */
    private static long producerIdOf(final MemoryRecords records) {
        for (final RecordBatch batch : records.batches()) {
            return batch.producerId();
        }
        return RecordBatch.NO_PRODUCER_ID;
    }

    private static CompletableFuture<ProduceOutcome> append(
            final Partition partition, final ProduceRequestData.PartitionProduceData data) {
        if (!(data.records() instanceof MemoryRecords records) || records.sizeInBytes() == 0) {
            return CompletableFuture.completedFuture(
                    new ProduceOutcome(Errors.INVALID_RECORD, -1, "a produce request must carry record batches"));
        }
        // A view of the request frame, no copy: the log validates it and copies it once, into the segment. The frame
        // stays valid until the response future completes (shared RDMA produce commits later, in the shared order).
        return partition.appendFromClientAsync(MemorySegment.ofBuffer(records.buffer()));
    }

    /** Kafka's answer to what should not have failed: the error its exception maps to, logged with the partition. */
    private static ProduceOutcome unexpected(final Partition partition, final Throwable failure) {
        final Throwable cause =
                failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        LOG.error("produce to {} failed unexpectedly", partition.topicPartition(), cause);
        return new ProduceOutcome(Errors.forException(cause), -1, cause.toString());
    }

    private static void answer(
            final RequestContext context,
            final Partition partition,
            final ProduceResponseData.PartitionProduceResponse partitionResponse,
            final ProduceOutcome outcome) {
        partitionResponse
                .setErrorCode(outcome.error().code())
                .setErrorMessage(outcome.message())
                .setBaseOffset(outcome.baseOffset());
        if (context.apiVersion() >= FIRST_VERSION_WITH_LOG_START_OFFSET) {
            partitionResponse.setLogStartOffset(partition.logStartOffset());
        }
    }
}
