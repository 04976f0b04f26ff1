package io.isthmus.broker.cluster;

import io.isthmus.broker.transaction.MarkerWriter;
import io.isthmus.broker.transaction.TransactionMetadata;
import io.isthmus.client.network.KafkaConnection;
import io.isthmus.client.network.ReceiveBufferPool;
import io.isthmus.client.network.SocketBuffers;
import io.isthmus.client.security.SecuritySettings;
import io.isthmus.metadata.image.ClusterImage;
import io.isthmus.metadata.image.PartitionState;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.IntFunction;
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
 * <p>Connections to each broker are pooled: coordinators of several state partitions write concurrently, each
 * borrowing a connection for one request. A connection that failed is closed, not returned.
 */
final class ClusterMarkerWriter implements MarkerWriter {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterMarkerWriter.class);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

    private final int nodeId;
    private final Supplier<ClusterImage> image;
    private final IntFunction<Optional<InetSocketAddress>> addresses;
    private final Duration requestTimeout;
    private final ReceiveBufferPool buffers = new ReceiveBufferPool(64 << 10);
    private final Map<Integer, ConcurrentLinkedQueue<KafkaConnection>> idle = new ConcurrentHashMap<>();
    private volatile boolean closed;

    ClusterMarkerWriter(
            final int nodeId,
            final Supplier<ClusterImage> image,
            final IntFunction<Optional<InetSocketAddress>> addresses,
            final Duration requestTimeout) {
        this.nodeId = nodeId;
        this.image = image;
        this.addresses = addresses;
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
        WriteTxnMarkersResponseData response = null;
        final KafkaConnection pooled = pooled(leader);
        if (pooled != null) {
            try {
                response = exchange(leader, pooled, request);
            } catch (final org.apache.kafka.common.errors.TimeoutException slow) {
                // The broker took the request and did not answer in time: no second copy of the markers now.
                throw slow;
            } catch (final RuntimeException stale) {
                // A pooled connection to a broker that restarted since fails at once: one new try, then the error.
                LOG.debug("pooled connection to broker {} failed: {}", leader, stale.toString());
            }
        }
        if (response == null) {
            response = exchange(leader, open(leader), request);
        }
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

    /** Sends on {@code connection}, then returns it to the pool; closes it if the request fails. */
    private WriteTxnMarkersResponseData exchange(
            final int brokerId, final KafkaConnection connection, final WriteTxnMarkersRequestData request) {
        final WriteTxnMarkersResponseData response;
        try {
            response = (WriteTxnMarkersResponseData)
                    connection.request(ApiKeys.WRITE_TXN_MARKERS, request, requestTimeout);
        } catch (final RuntimeException e) {
            connection.close();
            throw e;
        }
        giveBack(brokerId, connection);
        return response;
    }

    /** An idle open connection to the broker, or null. */
    private KafkaConnection pooled(final int brokerId) {
        final ConcurrentLinkedQueue<KafkaConnection> pool = idle.get(brokerId);
        KafkaConnection connection = pool == null ? null : pool.poll();
        while (connection != null && connection.isClosed()) {
            connection = pool.poll();
        }
        return connection;
    }

    private KafkaConnection open(final int brokerId) {
        if (closed) {
            throw new IllegalStateException("the marker writer is closed");
        }
        final InetSocketAddress address = addresses
                .apply(brokerId)
                .orElseThrow(() -> new IllegalStateException("no PLAINTEXT endpoint known for broker " + brokerId));
        return KafkaConnection.open(
                address,
                "broker-" + nodeId + "-transaction-markers",
                buffers,
                CONNECT_TIMEOUT,
                SecuritySettings.PLAINTEXT,
                SocketBuffers.DEFAULT);
    }

    private void giveBack(final int brokerId, final KafkaConnection connection) {
        idle.computeIfAbsent(brokerId, id -> new ConcurrentLinkedQueue<>()).add(connection);
        if (closed) {
            connection.close();
        }
    }

    @Override
    public void close() {
        closed = true;
        for (final ConcurrentLinkedQueue<KafkaConnection> pool : idle.values()) {
            KafkaConnection connection;
            while ((connection = pool.poll()) != null) {
                connection.close();
            }
        }
        buffers.close();
    }
}
