package io.isthmus.broker.transaction;

import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.producer.ProducerRejectedException;
import io.isthmus.protocol.record.EndTransactionMarker;
import io.isthmus.protocol.record.RecordBatchBuilder;
import java.lang.foreign.MemorySegment;
import java.time.InstantSource;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a transaction's COMMIT or ABORT marker into each of its partitions, through each partition's append gateway.
 * On this single broker every partition is local, so a marker is an append, not a WriteTxnMarkers request.
 *
 * <p>Not thread-safe: the coordinator calls it under its lock.
 */
final class TransactionMarkerWriter implements AutoCloseable {
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
     * Writes the marker ending {@code metadata}'s transaction (at its current epoch) into every partition of it. A
     * partition deleted meanwhile needs none; a partition whose producer state is at a newer epoch already had the
     * transaction ended by a newer marker. Anything else (a closed or failing log) throws, and the transaction stays
     * in its prepare state for the coordinator to finish later.
     */
    void write(final TransactionMetadata metadata, final boolean commit) {
        final int size = EndTransactionMarker.write(
                builder,
                buffer,
                0,
                metadata.producerId(),
                metadata.producerEpoch(),
                commit,
                TransactionCoordinator.COORDINATOR_EPOCH,
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
            try {
                partition.get().appendMarker(marker);
            } catch (final ProducerRejectedException e) {
                LOG.warn(
                        "marker not needed: partition={} transactionalId={} reason={}",
                        topicPartition,
                        metadata.transactionalId(),
                        e.getMessage());
            }
        }
    }

    @Override
    public void close() {
        builder.close();
    }
}
