package io.isthmus.broker.api;

import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;

/**
 * What a Metadata answer says about the cluster: its brokers, its controller, its topics with each partition's leader,
 * replicas and ISR. A single broker is the whole cluster; a broker of a cluster answers from the metadata its voter
 * applied.
 */
public interface MetadataView extends ClusterNodes {
    /** Every topic's name. */
    Collection<String> topicNames();

    /** The name of the topic with {@code id}. */
    Optional<String> topicName(Uuid id);

    /** The topic with its partitions described (leader, epochs, replicas, ISR), or empty if there is no such topic. */
    Optional<MetadataResponseTopic> describe(String name);

    /**
     * Creates a topic with the default partition count and replication factor (auto-creation). Completes when it is
     * created, or sent to be created where creation takes a round to a quorum, or failed with the
     * {@link org.apache.kafka.common.errors.ApiException} that refused it; a topic that exists already is not a
     * failure.
     */
    CompletableFuture<Void> createWithDefaults(String name);
}
