package io.isthmus.broker.api;

import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.Response;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/** Requests as the network layer hands them to handlers: parsed from their wire encoding at one version. */
final class Requests {
    private Requests() {}

    static RequestContext context(final ApiKeys apiKey, final short version) {
        return new RequestContext(
                new RequestHeader(apiKey, version, "test-client", 1),
                1,
                new InetSocketAddress("127.0.0.1", 50_000),
                "PLAINTEXT",
                System.nanoTime(),
                KafkaPrincipal.ANONYMOUS);
    }

    /** Encodes {@code data} at {@code version} and parses it back, so only the fields of that version survive. */
    @SuppressWarnings("unchecked")
    static <T extends AbstractRequest> T parse(final ApiKeys apiKey, final short version, final ApiMessage data) {
        return (T)
                AbstractRequest.parseRequest(apiKey, version, MessageUtil.toByteBufferAccessor(data, version)).request;
    }

    static Response handle(final ApiHandler handler, final ApiKeys apiKey, final short version, final ApiMessage data)
            throws Exception {
        return await(handler.handle(context(apiKey, version), parse(apiKey, version, data)));
    }

    @SuppressWarnings("unchecked")
    static <T extends ApiMessage> T body(
            final ApiHandler handler, final ApiKeys apiKey, final short version, final ApiMessage data)
            throws Exception {
        return (T) handle(handler, apiKey, version, data).body();
    }

    static Response await(final CompletableFuture<Response> future) throws Exception {
        return future.get(10, TimeUnit.SECONDS);
    }
}
