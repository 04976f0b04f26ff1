package io.isthmus.broker.api;

import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.Response;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.Partition.ProduceOutcome;
import io.isthmus.broker.partition.PartitionLeadership;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.transaction.TransactionMarkerWriter;
import io.isthmus.protocol.record.EndTransactionMarker;
import io.isthmus.protocol.record.RecordBatchBuilder;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarker;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarkerTopic;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerResult;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;

/**
 * WriteTxnMarkers, the request a cluster's transaction coordinator sends each partition's leader to end a transaction
 * there (Kafka's inter-broker API): the leader appends the COMMIT or ABORT marker and answers once the partition's
 * in-sync replicas hold it (acks=all with {@code min.insync.replicas}), so a marker the coordinator counts as written
 * survives a failover of the partition. Per partition: NOT_LEADER_OR_FOLLOWER where this broker does not lead it (the
 * coordinator looks up the leader again and resends), UNKNOWN_TOPIC_OR_PARTITION where it has no such partition,
 * NOT_ENOUGH_REPLICAS while the ISR is below its minimum, REQUEST_TIMED_OUT if the replicas did not confirm in time. A
 * marker the partition no longer needs (its producer is at a newer epoch, whose marker ended the transaction already)
 * is answered NONE. As in Kafka, only a principal with CLUSTER_ACTION on the cluster may send it.
 */
public final class WriteTxnMarkersHandler implements ApiHandler {
    /**
     * Partitions whose coordinator writes their markers itself, because it acts on them: a cluster's {@code
     * __consumer_offsets}, whose group coordinator applies or drops the offsets a transaction committed there.
     */
    @FunctionalInterface
    public interface CoordinatedPartitions {
        /**
         * Writes the marker to {@code partition} if its coordinator takes it; empty for any other partition. The
         * future completes with the partition's answer once the in-sync replicas hold the marker.
         */
        Optional<CompletableFuture<Errors>> writeMarker(
                TopicPartition partition, MemorySegment marker, long producerId, short producerEpoch, boolean commit);
    }

    /** How long a marker waits for the in-sync replicas; the coordinator's request waits a little longer. */
    public static final long REPLICATION_TIMEOUT_MS = 10_000;

    private final PartitionManager partitions;
    private final PartitionLeadership leadership;
    private final AccessControl access;
    private final int minInsyncReplicas;
    private final long replicationTimeoutMs;
    private final ProduceVerification verification;
    private final CoordinatedPartitions coordinated;

    public WriteTxnMarkersHandler(
            final PartitionManager partitions,
            final PartitionLeadership leadership,
            final AccessControl access,
            final int minInsyncReplicas,
            final long replicationTimeoutMs,
            final ProduceVerification verification,
            final CoordinatedPartitions coordinated) {
        this.verification = verification;
        this.coordinated = coordinated;
        this.partitions = partitions;
        this.leadership = leadership;
        this.access = access;
        this.minInsyncReplicas = minInsyncReplicas;
        this.replicationTimeoutMs = replicationTimeoutMs;
    }

    @Override
    public Set<ApiKeys> apiKeys() {
        return Set.of(ApiKeys.WRITE_TXN_MARKERS);
    }

    @Override
    public CompletableFuture<Response> handle(final RequestContext context, final AbstractRequest request) {
        final boolean allowed = access.allowsOnCluster(context, AclOperation.CLUSTER_ACTION);
        final WriteTxnMarkersResponseData response = new WriteTxnMarkersResponseData();
        final List<CompletableFuture<Void>> pending = new ArrayList<>();
        final MemorySegment buffer = MemorySegment.ofArray(new byte[EndTransactionMarker.MAX_BATCH_LENGTH]);
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            for (final WritableTxnMarker marker :
                    ((WriteTxnMarkersRequest) request).data().markers()) {
                final WritableTxnMarkerResult markerResult =
                        new WritableTxnMarkerResult().setProducerId(marker.producerId());
                response.markers().add(markerResult);
                final MemorySegment batch = buffer.asSlice(
                        0,
                        EndTransactionMarker.write(
                                builder,
                                buffer,
                                0,
                                marker.producerId(),
                                marker.producerEpoch(),
                                marker.transactionResult(),
                                marker.coordinatorEpoch(),
                                System.currentTimeMillis()));
                for (final WritableTxnMarkerTopic topic : marker.topics()) {
                    final WritableTxnMarkerTopicResult topicResult =
                            new WritableTxnMarkerTopicResult().setName(topic.name());
                    markerResult.topics().add(topicResult);
                    for (final int index : topic.partitionIndexes()) {
                        final WritableTxnMarkerPartitionResult result =
                                new WritableTxnMarkerPartitionResult().setPartitionIndex(index);
                        topicResult.partitions().add(result);
                        if (!allowed) {
                            result.setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
                            continue;
                        }
                        final CompletableFuture<Errors> written = write(
                                new TopicPartition(topic.name(), index),
                                batch,
                                marker.producerId(),
                                marker.producerEpoch(),
                                marker.transactionResult());
                        if (written.isDone()) {
                            result.setErrorCode(written.join().code());
                        } else {
                            pending.add(written.thenAccept(error -> result.setErrorCode(error.code())));
                        }
                    }
                }
            }
        }
        final Response answer = Response.of(response);
        return pending.isEmpty()
                ? CompletableFuture.completedFuture(answer)
                : CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                        .thenApply(done -> answer);
    }

    /** Appends the marker as the partition's leader and completes once its in-sync replicas hold it. */
    private CompletableFuture<Errors> write(
            final TopicPartition topicPartition,
            final MemorySegment marker,
            final long producerId,
            final short producerEpoch,
            final boolean commit) {
        final Optional<CompletableFuture<Errors>> byCoordinator =
                coordinated.writeMarker(topicPartition, marker, producerId, producerEpoch, commit);
        if (byCoordinator.isPresent()) {
            return byCoordinator.get();
        }
        final Optional<Partition> found = partitions.partition(topicPartition);
        if (found.isEmpty()) {
            return CompletableFuture.completedFuture(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
        final Partition partition = found.get();
        final Errors leads = leadership.check(partition, -1);
        if (leads != Errors.NONE) {
            return CompletableFuture.completedFuture(leads);
        }
        if (partition.tooFewInSync(minInsyncReplicas, "min.insync.replicas").isPresent()) {
            return CompletableFuture.completedFuture(Errors.NOT_ENOUGH_REPLICAS);
        }
        final ProduceOutcome appended = TransactionMarkerWriter.appendTo(partition, marker, "producerId=" + producerId);
        if (appended.error() == Errors.NONE) {
            // The producer's transaction here is over: its next one's first batch is verified again.
            verification.markerWritten(producerId, topicPartition);
        }
        if (appended.error() != Errors.NONE || appended.lastOffset() < 0) {
            return CompletableFuture.completedFuture(appended.error());
        }
        return partition.awaitReplication(
                appended.lastOffset(), appended.leaderEpoch(), minInsyncReplicas, replicationTimeoutMs);
    }
}
