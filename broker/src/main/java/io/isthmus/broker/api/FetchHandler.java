package io.isthmus.broker.api;

import io.isthmus.broker.log.AbortedTransaction;
import io.isthmus.broker.log.EpochDivergence;
import io.isthmus.broker.log.FetchIsolation;
import io.isthmus.broker.log.LeaderEpochCache;
import io.isthmus.broker.log.LogReadResult;
import io.isthmus.broker.log.OffsetOutOfRangeException;
import io.isthmus.broker.network.FileRegionRecords;
import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.Response;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.PartitionLeadership;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.replication.PushedReplicas;
import io.isthmus.broker.topic.TopicRegistry.TopicInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Fetch over TCP. Record bytes are never copied: each partition's batches are a leased region of its
 * segment file, spliced into the response and sent with {@code sendfile}; the lease ends when the socket
 * has taken the bytes.
 *
 * <p>Long poll: when fewer than {@code min.bytes} are available, the fetch waits for an append to one of its
 * partitions or for {@code max.wait.ms}, whichever comes first, and then reads again. Waiting costs a
 * listener per partition and a timer entry, no thread. Fetch sessions (KIP-227) are not kept: every answer
 * has session id 0, so clients send full fetch requests, which Kafka's protocol allows.
 *
 * <p>{@code isolation_level=1} (read_committed): batches only below each partition's last stable offset, with the
 * aborted transactions that overlap them listed, and a long poll waits for the last stable offset to move, not for
 * the log end.
 *
 * <p><b>Replica fetches</b> ({@code replica_id} &ge; 0, a follower of a partition led here; CLUSTER_ACTION): read up
 * to the log end, not the high watermark; each records the follower's progress, which moves the high watermark and the
 * ISR; a follower whose last fetched epoch the leader's log does not continue is answered with the diverging epoch and
 * no records (KIP-595's check), and truncates. A partition this leader pushes to the follower over RDMA ({@link
 * PushedReplicas}) is answered without records, and its progress comes from the push's acks (the fetch still says the
 * follower is caught up while nothing new is pushed).
 */
public final class FetchHandler implements ApiHandler {
    private static final byte READ_UNCOMMITTED = 0;
    private static final byte READ_COMMITTED = 1;
    /** The first Fetch version whose partitions carry the follower's last fetched epoch. */
    private static final short FIRST_VERSION_WITH_LAST_FETCHED_EPOCH = 12;

    private final PartitionManager partitions;
    private final TopicResolver topics;
    private final ScheduledExecutorService delayed;
    private final AccessControl access;
    private final PartitionLeadership leadership;
    private final PushedReplicas pushed;

    /** A single broker's handler: it leads every partition it has. */
    public FetchHandler(
            final PartitionManager partitions, final ScheduledExecutorService delayed, final AccessControl access) {
        this(partitions, delayed, access, PartitionLeadership.SOLE_BROKER, PushedReplicas.NONE);
    }

    /**
     * @param delayed runs the timeouts and re-reads of waiting fetches
     * @param access asked for READ on each topic at every read, so a long poll that outlives an ACL change obeys it
     * @param leadership asked at every read too: a long poll on a partition whose leadership moves meanwhile is
     *     answered NOT_LEADER_OR_FOLLOWER at its next read
     * @param pushed which followers take which partitions by RDMA push now: their fetches of those carry no records
     */
    public FetchHandler(
            final PartitionManager partitions,
            final ScheduledExecutorService delayed,
            final AccessControl access,
            final PartitionLeadership leadership,
            final PushedReplicas pushed) {
        this.partitions = partitions;
        this.access = access;
        this.topics = new TopicResolver(partitions.topics());
        this.delayed = delayed;
        this.leadership = leadership;
        this.pushed = pushed;
    }

    @Override
    public Set<ApiKeys> apiKeys() {
        return Set.of(ApiKeys.FETCH);
    }

    @Override
    public CompletableFuture<Response> handle(final RequestContext context, final AbstractRequest request) {
        final FetchRequestData data = ((FetchRequest) request).data();
        final boolean byTopicId = context.apiVersion() >= 13;
        final Attempt first = read(context, data, byTopicId);
        if (first.isAnswer(data)) {
            return CompletableFuture.completedFuture(first.toResponse());
        }
        first.release();
        return new WaitingFetch(
                        context, data, byTopicId, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(data.maxWaitMs()))
                .start();
    }

    /** One pass over the requested partitions. */
    private final class Attempt {
        final FetchResponseData body = new FetchResponseData().setSessionId(0);
        final List<AutoCloseable> leases = new ArrayList<>();
        final List<Waiting> waitOn = new ArrayList<>();
        long bytes;
        boolean anyError;

        boolean isAnswer(final FetchRequestData data) {
            return data.maxWaitMs() <= 0 || anyError || waitOn.isEmpty() || bytes >= Math.max(1, data.minBytes());
        }

        Response toResponse() {
            return new Response(body, List.copyOf(leases));
        }

        void release() {
            for (final AutoCloseable lease : leases) {
                ((LogReadResult) lease).close();
            }
            leases.clear();
        }
    }

    private record Waiting(Partition partition, long fetchOffset, FetchIsolation isolation) {}

    private Attempt read(final RequestContext context, final FetchRequestData data, final boolean byTopicId) {
        final Attempt attempt = new Attempt();
        final int replicaId = FetchRequest.replicaId(data);
        final boolean fromReplica = replicaId >= 0;
        final boolean replicationAllowed = fromReplica && access.allowsOnCluster(context, AclOperation.CLUSTER_ACTION);
        final FetchIsolation isolation = fromReplica
                ? FetchIsolation.LOG_END
                : data.isolationLevel() == READ_COMMITTED
                        ? FetchIsolation.TXN_COMMITTED
                        : FetchIsolation.HIGH_WATERMARK;
        final long nowMs = System.currentTimeMillis();
        // A limit of 0 or less is a limit, not "unlimited": the response then holds the one batch KIP-74 always
        // allows, as Kafka answers it.
        final long maxBytes = Math.max(0, data.maxBytes());
        for (final FetchRequestData.FetchTopic fetchTopic : data.topics()) {
            final Optional<TopicInfo> topic =
                    byTopicId ? topics.resolve(null, fetchTopic.topicId()) : topics.resolve(fetchTopic.topic(), null);
            final FetchResponseData.FetchableTopicResponse topicResponse =
                    new FetchResponseData.FetchableTopicResponse()
                            .setTopic(fetchTopic.topic())
                            .setTopicId(fetchTopic.topicId());
            attempt.body.responses().add(topicResponse);
            for (final FetchRequestData.FetchPartition fetchPartition : fetchTopic.partitions()) {
                final FetchResponseData.PartitionData partitionResponse = new FetchResponseData.PartitionData()
                        .setPartitionIndex(fetchPartition.partition())
                        .setRecords(MemoryRecords.EMPTY)
                        .setPreferredReadReplica(-1)
                        .setAbortedTransactions(data.isolationLevel() == READ_UNCOMMITTED ? null : List.of());
                topicResponse.partitions().add(partitionResponse);
                if (topic.isPresent()
                        && (fromReplica
                                ? !replicationAllowed
                                : !access.allows(
                                        context,
                                        AclOperation.READ,
                                        ResourceType.TOPIC,
                                        topic.get().name()))) {
                    partitionResponse
                            .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                            .setHighWatermark(-1)
                            .setLastStableOffset(-1);
                    attempt.anyError = true;
                    continue;
                }
                final Optional<Partition> partition = topic.flatMap(
                        t -> partitions.partition(new TopicPartition(t.name(), fetchPartition.partition())));
                if (partition.isEmpty()) {
                    final Errors error = byTopicId && topic.isEmpty()
                            ? Errors.UNKNOWN_TOPIC_ID
                            : topic.isPresent()
                                            && leadership.heldElsewhere(new TopicPartition(
                                                    topic.get().name(), fetchPartition.partition()))
                                    ? Errors.NOT_LEADER_OR_FOLLOWER
                                    : Errors.UNKNOWN_TOPIC_OR_PARTITION;
                    partitionResponse
                            .setErrorCode(error.code())
                            .setHighWatermark(-1)
                            .setLastStableOffset(-1);
                    attempt.anyError = true;
                    continue;
                }
                final Errors notLeader = leadership.check(partition.get(), fetchPartition.currentLeaderEpoch());
                if (notLeader != Errors.NONE) {
                    partitionResponse
                            .setErrorCode(notLeader.code())
                            .setHighWatermark(-1)
                            .setLastStableOffset(-1);
                    attempt.anyError = true;
                    continue;
                }
                final boolean byPush = fromReplica && pushed.pushes(replicaId, partition.get());
                if (fromReplica
                        && !followerMayRead(
                                context,
                                replicaId,
                                partition.get(),
                                fetchPartition,
                                partitionResponse,
                                nowMs,
                                byPush)) {
                    attempt.anyError = true;
                    continue;
                }
                if (byPush) {
                    // The push carries the records and its acks the follower's progress; the answer brings the high
                    // watermark and the log start (at the fetch's deadline, unless another partition answers it).
                    setOffsets(partitionResponse, partition.get());
                    attempt.waitOn.add(new Waiting(
                            partition.get(), partition.get().highWatermark(), FetchIsolation.HIGH_WATERMARK));
                    continue;
                }
                readPartition(attempt, partition.get(), fetchPartition, partitionResponse, maxBytes, isolation);
            }
        }
        return attempt;
    }

    /**
     * A follower's fetch before its read: a follower whose log diverged is answered with the diverging epoch (false,
     * answered now); otherwise its progress is recorded: as Kafka does, or, where the partition reaches it by push
     * ({@code byPush}), only as far as it is ahead of the push's acks, which may be newer than the offset
     * this fetch was sent at. A broker that is no replica of this leader's partition gets NOT_LEADER_OR_FOLLOWER.
     */
    private static boolean followerMayRead(
            final RequestContext context,
            final int replicaId,
            final Partition partition,
            final FetchRequestData.FetchPartition fetchPartition,
            final FetchResponseData.PartitionData response,
            final long nowMs,
            final boolean byPush) {
        if (context.apiVersion() >= FIRST_VERSION_WITH_LAST_FETCHED_EPOCH) {
            final Optional<LeaderEpochCache.EpochEndOffset> diverging = EpochDivergence.divergingEpoch(
                    partition.log(), fetchPartition.lastFetchedEpoch(), fetchPartition.fetchOffset());
            if (diverging.isPresent()) {
                response.setDivergingEpoch(new FetchResponseData.EpochEndOffset()
                        .setEpoch(diverging.get().epoch())
                        .setEndOffset(diverging.get().endOffset()));
                setOffsets(response, partition);
                return false;
            }
        }
        if (fetchPartition.fetchOffset() > partition.logEndOffset()
                || fetchPartition.fetchOffset() < partition.logStartOffset()) {
            // Out of range: not the follower's progress, which is recorded only for an offset this log has.
            response.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code());
            setOffsets(response, partition);
            return false;
        }
        final boolean replica = byPush
                ? partition.onPushedFollowerFetch(replicaId, fetchPartition.fetchOffset(), nowMs)
                : partition.onFollowerFetch(replicaId, fetchPartition.fetchOffset(), nowMs);
        if (!replica) {
            response.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code())
                    .setHighWatermark(-1)
                    .setLastStableOffset(-1);
            return false;
        }
        return true;
    }

    private static void readPartition(
            final Attempt attempt,
            final Partition partition,
            final FetchRequestData.FetchPartition fetchPartition,
            final FetchResponseData.PartitionData response,
            final long maxBytes,
            final FetchIsolation isolation) {
        final boolean committedOnly = isolation == FetchIsolation.TXN_COMMITTED;
        final long remaining = maxBytes - attempt.bytes;
        if (remaining <= 0 && attempt.bytes > 0) {
            // Over the response budget: the partition is reported without records and asked for again.
            setOffsets(response, partition);
            return;
        }
        // As the response's limit, a partition limit of 0 or less means one batch at most, never "unlimited".
        final int partitionMax = Math.max(0, fetchPartition.partitionMaxBytes());
        final LogReadResult result;
        try {
            // The log returns at least one whole batch however small the limit (KIP-74); the first partition with data
            // keeps it, later ones only if it fits.
            result = partition.read(
                    fetchPartition.fetchOffset(), (int) Math.max(1, Math.min(partitionMax, remaining)), isolation);
        } catch (final OffsetOutOfRangeException e) {
            response.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code());
            setOffsets(response, partition);
            attempt.anyError = true;
            return;
        }
        response.setHighWatermark(result.highWatermark())
                .setLastStableOffset(Math.min(result.highWatermark(), partition.lastStableOffset()))
                .setLogStartOffset(result.logStartOffset());
        if (result.isEmpty()) {
            result.close();
            attempt.waitOn.add(new Waiting(partition, fetchPartition.fetchOffset(), isolation));
            return;
        }
        if (attempt.bytes > 0 && result.sizeInBytes() > Math.min(partitionMax, remaining)) {
            // The log always returns at least one batch; only the response's first batch may exceed the limits
            // (KIP-74), so a later partition whose next batch does not fit gets no records.
            result.close();
            return;
        }
        response.setRecords(
                new FileRegionRecords(result.fileChannel(), result.filePosition(), (int) result.sizeInBytes()));
        if (committedOnly) {
            response.setAbortedTransactions(abortedTransactions(partition, result));
        }
        attempt.leases.add(result);
        attempt.bytes += result.sizeInBytes();
        // Still under min.bytes: only new data can help, so this partition waits at its log end (for read_committed,
        // its last stable offset), never at bytes it could already read (the partition limit held them back), which
        // would wake it at once.
        attempt.waitOn.add(new Waiting(
                partition,
                switch (isolation) {
                    case LOG_END -> partition.logEndOffset();
                    case HIGH_WATERMARK -> partition.highWatermark();
                    case TXN_COMMITTED -> partition.lastStableOffset();
                },
                isolation));
    }

    /** The aborted transactions with data among the batches returned, for the consumer to drop. */
    private static List<FetchResponseData.AbortedTransaction> abortedTransactions(
            final Partition partition, final LogReadResult result) {
        final List<AbortedTransaction> aborted =
                partition.log().abortedTransactions(result.firstOffset(), result.nextOffset());
        final List<FetchResponseData.AbortedTransaction> answer = new ArrayList<>(aborted.size());
        for (final AbortedTransaction transaction : aborted) {
            answer.add(new FetchResponseData.AbortedTransaction()
                    .setProducerId(transaction.producerId())
                    .setFirstOffset(transaction.firstOffset()));
        }
        return answer;
    }

    private static void setOffsets(final FetchResponseData.PartitionData response, final Partition partition) {
        response.setHighWatermark(partition.highWatermark())
                .setLastStableOffset(partition.lastStableOffset())
                .setLogStartOffset(partition.logStartOffset());
    }

    /** A fetch waiting for data: woken by an append to one of its partitions or by its deadline. */
    private final class WaitingFetch {
        private final RequestContext context;
        private final FetchRequestData data;
        private final boolean byTopicId;
        private final long deadlineNanos;
        private final CompletableFuture<Response> result = new CompletableFuture<>();
        private final AtomicBoolean woken = new AtomicBoolean();
        private final Runnable wake = this::onWake;
        private List<Waiting> waitingOn = List.of();
        private ScheduledFuture<?> timeout;

        WaitingFetch(
                final RequestContext context,
                final FetchRequestData data,
                final boolean byTopicId,
                final long deadlineNanos) {
            this.context = context;
            this.data = data;
            this.byTopicId = byTopicId;
            this.deadlineNanos = deadlineNanos;
        }

        CompletableFuture<Response> start() {
            // The connection cancels the answer when its client goes: stop listening at once instead of at the
            // deadline, which the client chose and may be far away. Run on the delayed-fetch thread, after any attempt
            // in progress, so listeners that attempt registers are removed too.
            result.whenComplete((answer, failure) -> {
                if (result.isCancelled()) {
                    try {
                        delayed.execute(this::stopWaiting);
                    } catch (final RejectedExecutionException shuttingDown) {
                        // The broker is closing, and its partitions with it.
                    }
                }
            });
            delayed.execute(this::attempt);
            return result;
        }

        private void stopWaiting() {
            for (final Waiting waiting : waitingOn) {
                waiting.partition().removeAppendListener(wake);
            }
            if (timeout != null) {
                timeout.cancel(false);
            }
        }

        private void attempt() {
            if (result.isDone()) {
                // A wake-up left over from an earlier round, after the answer went out.
                return;
            }
            final Attempt attempt;
            try {
                attempt = read(context, data, byTopicId);
            } catch (final RuntimeException e) {
                result.completeExceptionally(e);
                return;
            }
            final long remainingNanos = deadlineNanos - System.nanoTime();
            if (attempt.isAnswer(data) || remainingNanos <= 0) {
                if (!result.complete(attempt.toResponse())) {
                    attempt.release();
                }
                return;
            }
            attempt.release();
            woken.set(false);
            waitingOn = attempt.waitOn;
            timeout = delayed.schedule(wake, remainingNanos, TimeUnit.NANOSECONDS);
            for (final Waiting waiting : waitingOn) {
                waiting.partition().awaitAppend(waiting.fetchOffset(), waiting.isolation(), wake);
            }
        }

        private void onWake() {
            if (!woken.compareAndSet(false, true)) {
                return;
            }
            for (final Waiting waiting : waitingOn) {
                waiting.partition().removeAppendListener(wake);
            }
            if (timeout != null) {
                timeout.cancel(false);
            }
            try {
                delayed.execute(this::attempt);
            } catch (final RejectedExecutionException shuttingDown) {
                // The broker is closing: its server no longer answers anyone, so neither does this fetch.
                result.cancel(false);
            }
        }
    }
}
