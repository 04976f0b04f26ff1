package io.isthmus.broker.network;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.requests.AbstractRequest;

/**
 * Turns a decoded request into its response. The network layer guarantees that responses leave each
 * connection in request order, however the futures complete.
 */
@FunctionalInterface
public interface RequestDispatcher {
    /**
     * @return the response, or {@link Response#NONE} for requests that take none (produce with acks=0)
     */
    CompletableFuture<Response> dispatch(RequestContext context, AbstractRequest request);
}
