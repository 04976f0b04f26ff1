package io.isthmus.broker.api;

import io.isthmus.broker.topic.TopicRegistry;
import io.isthmus.broker.topic.TopicRegistry.TopicInfo;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * Finds the topic a request names: by id where the request version carries ids (and the id is set), by
 * name otherwise. The error for an unknown topic follows the same rule.
 */
final class TopicResolver {
    private final TopicRegistry topics;

    TopicResolver(final TopicRegistry topics) {
        this.topics = topics;
    }

    Optional<TopicInfo> resolve(final String name, final Uuid id) {
        return usesId(id) ? topics.byId(id) : Optional.ofNullable(name).flatMap(topics::byName);
    }

    static Errors unknownTopicError(final Uuid id) {
        return usesId(id) ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION;
    }

    private static boolean usesId(final Uuid id) {
        return id != null && !Uuid.ZERO_UUID.equals(id);
    }
}
