package io.isthmus.broker.api;

import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.RequestDispatcher;
import io.isthmus.broker.network.Response;
import io.isthmus.broker.network.SupportedApis;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;

/**
 * Routes each request to the handler of its API and answers what versions are served.
 *
 * <p>The served range of an API is the whole range kafka-clients' generated classes encode: handlers read
 * every version's fields (topic names and, from the versions that carry them, topic ids). An API without a
 * handler is not advertised, so well-behaved clients never send it; one that does gets UNSUPPORTED_VERSION
 * in that API's own error response.
 */
public final class RequestRouter implements RequestDispatcher, SupportedApis {
    /** Served by the connection itself (its SASL exchange), advertised here with the rest. */
    private static final Set<ApiKeys> CONNECTION_APIS = Set.of(ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_AUTHENTICATE);

    private final Map<ApiKeys, ApiHandler> handlers = new EnumMap<>(ApiKeys.class);

    public RequestRouter(final List<ApiHandler> apiHandlers) {
        for (final ApiHandler handler : apiHandlers) {
            for (final ApiKeys key : handler.apiKeys()) {
                final ApiHandler previous = handlers.put(key, handler);
                if (previous != null) {
                    throw new IllegalArgumentException("two handlers for api=" + key + ": "
                            + previous.getClass().getSimpleName() + ", "
                            + handler.getClass().getSimpleName());
                }
            }
        }
    }

    @Override
    public CompletableFuture<Response> dispatch(final RequestContext context, final AbstractRequest request) {
        final ApiHandler handler = handlers.get(context.apiKey());
        if (handler == null) {
            // Thrown, not answered here: the connection answers it with the request's own error response, or closes
            // if kafka-clients cannot build one for this request.
            throw new UnsupportedVersionException("this broker does not serve " + context.apiKey());
        }
        return handler.handle(context, request);
    }

    @Override
    public boolean supports(final ApiKeys apiKey, final short version) {
        // Unserved APIs still parse, so the dispatcher can answer them with their own error response.
        return version >= apiKey.oldestVersion() && version <= apiKey.latestVersion();
    }

    @Override
    public ApiMessage unsupportedVersionResponse() {
        return apiVersions().setErrorCode(Errors.UNSUPPORTED_VERSION.code());
    }

    @Override
    public String describe(final ApiKeys apiKey) {
        return handlers.containsKey(apiKey) ? apiKey.oldestVersion() + ".." + apiKey.latestVersion() : "none";
    }

    /**
     * The ApiVersions answer: every API with a handler, and the SASL exchange every connection serves itself, at its
     * full version range.
     */
    public ApiVersionsResponseData apiVersions() {
        final ApiVersionCollection versions = new ApiVersionCollection();
        final Set<ApiKeys> served = java.util.EnumSet.copyOf(CONNECTION_APIS);
        served.addAll(handlers.keySet());
        for (final ApiKeys key : served) {
            versions.add(new ApiVersion()
                    .setApiKey(key.id)
                    .setMinVersion(key.oldestVersion())
                    .setMaxVersion(key.latestVersion()));
        }
        return new ApiVersionsResponseData()
                .setErrorCode(Errors.NONE.code())
                .setApiKeys(versions)
                .setThrottleTimeMs(0);
    }
}
