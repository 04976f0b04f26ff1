package io.isthmus.broker.cluster;

import io.isthmus.broker.transaction.MarkerWriter;
import io.isthmus.broker.transaction.TransactionMetadata;
import io.isthmus.metadata.image.ClusterImage;
import io.isthmus.metadata.image.PartitionState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cluster's transaction coordinators write their markers with Kafka's WriteTxnMarkers, one request per leader of
 * the transaction's partitions (this broker included, over its own listener: one path, and a marker is written by
 * whichever broker leads its partition at that moment). Each leader answers once the partition's in-sync replicas hold
 * the marker. A partition that has no leader, or whose leader refuses or cannot be reached, fails the write: the
 * coordinator keeps the transaction prepared and writes its markers again later, which changes nothing where they
 * were written already. A partition whose topic was deleted needs no marker.
 *
 * <p>Requests go over the broker's {@link BrokerChannels}: coordinators of several state partitions write
 * concurrently.
 */
final class ClusterMarkerWriter implements MarkerWriter {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterMarkerWriter.class);

    private final Supplier<ClusterImage> image;
    private final BrokerChannels channels;
    private final Duration requestTimeout;

    ClusterMarkerWriter(
            final Supplier<ClusterImage> image, final BrokerChannels channels, final Duration requestTimeout) {
        this.image = image;
        this.channels = channels;
        this.requestTimeout = requestTimeout;
    }

    @Override
    public void write(final TransactionMetadata metadata, final boolean commit, final int coordinatorEpoch) {
        final ClusterImage current = image.get();
        final Map<Integer, List<TopicPartition>> byLeader = new LinkedHashMap<>();
        final List<String> failures = new ArrayList<>();
        for (final TopicPartition partition : metadata.partitions()) {
            final Optional<PartitionState> state = stateOf(current, partition);
            if (state.isEmpty()) {
                LOG.info(
                        "no marker for deleted partition={} transactionalId={}", partition, metadata.transactionalId());
            } else if (!state.get().hasLeader()) {
                failures.add(partition + ": no leader");
            } else {
                byLeader.computeIfAbsent(state.get().leader(), id -> new ArrayList<>())
                        .add(partition);
            }
        }
        for (final Map.Entry<Integer, List<TopicPartition>> leader : byLeader.entrySet()) {
            try {
                failures.addAll(send(leader.getKey(), request(metadata, commit, coordinatorEpoch, leader.getValue())));
            } catch (final RuntimeException e) {
                failures.add("broker " + leader.getKey() + " " + leader.getValue() + ": " + e.getMessage());
            }
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("markers of transactionalId=" + metadata.transactionalId() + " producerId="
                    + metadata.producerId() + " commit=" + commit + " not all written: " + failures);
        }
    }

    private static Optional<PartitionState> stateOf(final ClusterImage image, final TopicPartition partition) {
        return image.topic(partition.topic())
                .filter(topic -> partition.partition() < topic.partitions().size())
                .map(topic -> topic.partition(partition.partition()));
    }

    private static WriteTxnMarkersRequestData request(
            final TransactionMetadata metadata,
            final boolean commit,
            final int coordinatorEpoch,
            final List<TopicPartition> partitions) {
        final Map<String, WriteTxnMarkersRequestData.WritableTxnMarkerTopic> byTopic = new LinkedHashMap<>();
        for (final TopicPartition partition : partitions) {
            byTopic.computeIfAbsent(partition.topic(), name -> new WriteTxnMarkersRequestData.WritableTxnMarkerTopic()
                            .setName(name))
                    .partitionIndexes()
                    .add(partition.partition());
        }
        final WriteTxnMarkersRequestData.WritableTxnMarker marker = new WriteTxnMarkersRequestData.WritableTxnMarker()
                .setProducerId(metadata.producerId())
                .setProducerEpoch(metadata.producerEpoch())
                .setTransactionResult(commit)
                .setCoordinatorEpoch(coordinatorEpoch)
                .setTopics(new ArrayList<>(byTopic.values()));
        return new WriteTxnMarkersRequestData().setMarkers(new ArrayList<>(List.of(marker)));
    }

    /** Sends one request to {@code leader}; returns the partitions it did not write, with the reason. */
    private List<String> send(final int leader, final WriteTxnMarkersRequestData request) {
        final WriteTxnMarkersResponseData response = (WriteTxnMarkersResponseData)
                channels.request(leader, ApiKeys.WRITE_TXN_MARKERS, request, requestTimeout);
        final List<String> failures = new ArrayList<>();
        final ClusterImage current = image.get();
        for (final WriteTxnMarkersResponseData.WritableTxnMarkerResult marker : response.markers()) {
            for (final WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult topic : marker.topics()) {
                for (final WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult partition :
                        topic.partitions()) {
                    final Errors error = Errors.forCode(partition.errorCode());
                    final TopicPartition tp = new TopicPartition(topic.name(), partition.partitionIndex());
                    if (error == Errors.NONE
                            || (error == Errors.UNKNOWN_TOPIC_OR_PARTITION
                                    && stateOf(current, tp).isEmpty())) {
                        continue;
                    }
                    failures.add(tp + " at broker " + leader + ": " + error);
                }
            }
        }
        return failures;
    }

    @Override
    public void close() {
        // The channels are the broker's, closed with its other cluster resources.
    }
}
