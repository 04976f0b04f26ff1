package io.isthmus.broker.transaction;

import io.isthmus.broker.log.TransactionVerifier;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;

/**
 * The partitions of every open transaction, by producer id: what the logs ask before a producer's first transactional
 * batch enters a partition. Written by the coordinator as transactions open, grow and end; read without a lock, from
 * under the partitions' append locks, which the coordinator itself takes while it writes markers.
 *
 * <p>A transaction leaves this table when it starts to end, before its markers are written: a batch arriving after
 * that cannot enter a partition whose marker is on its way.
 */
final class OpenTransactionPartitions implements TransactionVerifier {
    private record Open(short epoch, Set<String> partitions) {}

    private final ConcurrentHashMap<Long, Open> byProducer = new ConcurrentHashMap<>();

    void open(final TransactionMetadata metadata) {
        final Set<String> names = new HashSet<>();
        for (final TopicPartition partition : metadata.partitions()) {
            names.add(partition.toString());
        }
        byProducer.put(metadata.producerId(), new Open(metadata.producerEpoch(), Set.copyOf(names)));
    }

    void close(final long producerId) {
        byProducer.remove(producerId);
    }

    @Override
    public boolean isPartitionInTransaction(final long producerId, final short producerEpoch, final String partition) {
        final Open open = byProducer.get(producerId);
        return open != null
                && open.epoch() == producerEpoch
                && open.partitions().contains(partition);
    }
}
