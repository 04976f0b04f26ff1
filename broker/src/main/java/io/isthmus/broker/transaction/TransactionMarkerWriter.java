package io.isthmus.broker.transaction;

import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.Partition.ProduceOutcome;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.producer.ProducerRejectedException;
import io.isthmus.protocol.record.EndTransactionMarker;
import io.isthmus.protocol.record.RecordBatchBuilder;
import java.lang.foreign.MemorySegment;
import java.time.InstantSource;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a transaction's COMMIT or ABORT marker into each of its partitions, through each partition's append gateway.
 * On this single broker every partition is local, so a marker is an append, not a WriteTxnMarkers request.
 *
 * <p>Not thread-safe: the coordinator calls it under its lock.
 */
public final class TransactionMarkerWriter implements MarkerWriter {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionMarkerWriter.class);

    private final PartitionManager partitions;
    private final InstantSource clock;
    private final RecordBatchBuilder builder = new RecordBatchBuilder();
    private final MemorySegment buffer = MemorySegment.ofArray(new byte[EndTransactionMarker.MAX_BATCH_LENGTH]);

    TransactionMarkerWriter(final PartitionManager partitions, final InstantSource clock) {
        this.partitions = partitions;
        this.clock = clock;
    }

    /**
     * {@inheritDoc}
     *
     * <p>A partition whose producer state is at a newer epoch already had the transaction ended by a newer marker.
     */
    @Override
    public void write(final TransactionMetadata metadata, final boolean commit, final int coordinatorEpoch) {
        final int size = EndTransactionMarker.write(
                builder,
                buffer,
                0,
                metadata.producerId(),
                metadata.producerEpoch(),
                commit,
                coordinatorEpoch,
                clock.millis());
        final MemorySegment marker = buffer.asSlice(0, size);
        for (final TopicPartition topicPartition : metadata.partitions()) {
            final Optional<Partition> partition = partitions.partition(topicPartition);
            if (partition.isEmpty()) {
                LOG.info(
                        "no marker for deleted partition={} transactionalId={}",
                        topicPartition,
                        metadata.transactionalId());
                continue;
            }
            final ProduceOutcome outcome = appendTo(partition.get(), marker, metadata.transactionalId());
            if (outcome.error() != Errors.NONE) {
                throw new IllegalStateException("marker not written: partition=" + topicPartition + " transactionalId="
                        + metadata.transactionalId() + " error=" + outcome.error());
            }
        }
    }

    /**
     * Appends {@code marker} to {@code partition} as its leader (a single broker's own write, or a WriteTxnMarkers
     * request's). A partition whose producer state is at a newer epoch already had the transaction ended by a newer
     * marker: answered NONE with offset -1, nothing to wait for. A marker of a coordinator older than one whose
     * marker the partition holds is refused: TRANSACTION_COORDINATOR_FENCED.
     */
    public static ProduceOutcome appendTo(final Partition partition, final MemorySegment marker, final String owner) {
        try {
            return partition.appendMarker(marker);
        } catch (final ProducerRejectedException e) {
            if (e.error() == Errors.TRANSACTION_COORDINATOR_FENCED) {
                LOG.warn(
                        "marker refused: partition={} transaction={} reason={}",
                        partition.topicPartition(),
                        owner,
                        e.getMessage());
                return new ProduceOutcome(e.error(), -1, e.getMessage());
            }
            LOG.warn(
                    "marker not needed: partition={} transaction={} reason={}",
                    partition.topicPartition(),
                    owner,
                    e.getMessage());
            return new ProduceOutcome(Errors.NONE, -1, null);
        }
    }

    @Override
    public void close() {
        builder.close();
    }
}
