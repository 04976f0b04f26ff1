package io.isthmus.broker.api;

import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.Response;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiVersionsRequest;

/** ApiVersions: the first request of every client, telling it which versions of each API it may use. */
public final class ApiVersionsHandler implements ApiHandler {
    private final Supplier<ApiVersionsResponseData> versions;

    /** @param versions the served versions, usually {@link RequestRouter#apiVersions()} */
    public ApiVersionsHandler(final Supplier<ApiVersionsResponseData> versions) {
        this.versions = versions;
    }

    @Override
    public Set<ApiKeys> apiKeys() {
        return Set.of(ApiKeys.API_VERSIONS);
    }

    @Override
    public CompletableFuture<Response> handle(final RequestContext context, final AbstractRequest request) {
        final ApiVersionsRequest apiVersions = (ApiVersionsRequest) request;
        if (!apiVersions.isValid()) {
            return CompletableFuture.completedFuture(
                    Response.of(versions.get().setErrorCode(Errors.INVALID_REQUEST.code())));
        }
        return CompletableFuture.completedFuture(Response.of(versions.get()));
    }
}
