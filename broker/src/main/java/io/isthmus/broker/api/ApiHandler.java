package io.isthmus.broker.api;

import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.Response;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;

/**
 * Serves one family of Kafka APIs. A handler does quick work on the calling network thread and returns a
 * completed future; work that waits (long-poll fetches, group rebalances) completes the future later.
 */
public interface ApiHandler {
    /** The APIs this handler serves, at every version kafka-clients knows. */
    Set<ApiKeys> apiKeys();

    CompletableFuture<Response> handle(RequestContext context, AbstractRequest request);
}
