package io.isthmus.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.Response;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.junit.jupiter.api.Test;

class RequestRouterTest {
    /** Answers a fixed body for its APIs. */
    private record FixedHandler(Set<ApiKeys> apiKeys, MetadataResponseData answer) implements ApiHandler {
        @Override
        public CompletableFuture<Response> handle(final RequestContext context, final AbstractRequest request) {
            return CompletableFuture.completedFuture(Response.of(answer));
        }
    }

    @Test
    void shouldRefuseTwoHandlersForOneApi() {
        final FixedHandler first = new FixedHandler(Set.of(ApiKeys.METADATA, ApiKeys.FETCH), null);
        final FixedHandler second = new FixedHandler(Set.of(ApiKeys.FETCH), null);

        assertThatThrownBy(() -> new RequestRouter(List.of(first, second)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("FETCH");
    }

    @Test
    void shouldRouteARequestToTheHandlerOfItsApi() throws Exception {
        final MetadataResponseData answer = new MetadataResponseData().setClusterId("routed");
        final RequestRouter router = new RequestRouter(List.of(new FixedHandler(Set.of(ApiKeys.METADATA), answer)));
        final short version = ApiKeys.METADATA.latestVersion();

        final Response response = Requests.await(router.dispatch(
                Requests.context(ApiKeys.METADATA, version),
                Requests.parse(ApiKeys.METADATA, version, new MetadataRequestData().setTopics(null))));

        assertThat(response.body()).isSameAs(answer);
    }

    @Test
    void shouldRefuseAnApiWithoutHandlerWithUnsupportedVersionForTheConnectionToAnswer() {
        final RequestRouter router = new RequestRouter(List.of(new FixedHandler(Set.of(ApiKeys.METADATA), null)));

        assertThatThrownBy(() -> router.dispatch(
                        Requests.context(ApiKeys.HEARTBEAT, (short) 4),
                        Requests.parse(
                                ApiKeys.HEARTBEAT,
                                (short) 4,
                                new HeartbeatRequestData().setGroupId("g").setMemberId("m"))))
                .isInstanceOf(UnsupportedVersionException.class)
                .hasMessageContaining("HEARTBEAT");
    }

    @Test
    void shouldListExactlyTheServedApisAtTheirFullRange() {
        final RequestRouter router = new RequestRouter(List.of(
                new FixedHandler(Set.of(ApiKeys.METADATA, ApiKeys.FETCH), null),
                new FixedHandler(Set.of(ApiKeys.API_VERSIONS), null)));

        final ApiVersionsResponseData versions = router.apiVersions();

        assertThat(versions.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(versions.apiKeys())
                .extracting(ApiVersionsResponseData.ApiVersion::apiKey)
                .containsExactlyInAnyOrder(
                        ApiKeys.METADATA.id,
                        ApiKeys.FETCH.id,
                        ApiKeys.API_VERSIONS.id,
                        // every connection serves its own SASL exchange
                        ApiKeys.SASL_HANDSHAKE.id,
                        ApiKeys.SASL_AUTHENTICATE.id);
        final ApiVersionsResponseData.ApiVersion fetch = versions.apiKeys().find(ApiKeys.FETCH.id);
        assertThat(fetch.minVersion()).isEqualTo(ApiKeys.FETCH.oldestVersion());
        assertThat(fetch.maxVersion()).isEqualTo(ApiKeys.FETCH.latestVersion());
    }

    @Test
    void shouldAnswerUnsupportedVersionWithTheServedApis() {
        final RequestRouter router = new RequestRouter(List.of(new FixedHandler(Set.of(ApiKeys.METADATA), null)));

        final ApiVersionsResponseData response = (ApiVersionsResponseData) router.unsupportedVersionResponse();

        assertThat(response.errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
        assertThat(response.apiKeys())
                .extracting(ApiVersionsResponseData.ApiVersion::apiKey)
                .containsExactlyInAnyOrder(
                        ApiKeys.METADATA.id, ApiKeys.SASL_HANDSHAKE.id, ApiKeys.SASL_AUTHENTICATE.id);
    }

    @Test
    void shouldSupportEveryVersionKafkaClientsKnowsAndNoOther() {
        final RequestRouter router = new RequestRouter(List.of(new FixedHandler(Set.of(ApiKeys.METADATA), null)));

        assertThat(router.supports(ApiKeys.METADATA, ApiKeys.METADATA.latestVersion()))
                .isTrue();
        assertThat(router.supports(ApiKeys.METADATA, ApiKeys.METADATA.oldestVersion()))
                .isTrue();
        assertThat(router.supports(ApiKeys.METADATA, (short) (ApiKeys.METADATA.latestVersion() + 1)))
                .isFalse();
        assertThat(router.supports(ApiKeys.PRODUCE, (short) (ApiKeys.PRODUCE.oldestVersion() - 1)))
                .isFalse();
        assertThat(router.describe(ApiKeys.METADATA))
                .isEqualTo(ApiKeys.METADATA.oldestVersion() + ".." + ApiKeys.METADATA.latestVersion());
        assertThat(router.describe(ApiKeys.FETCH)).isEqualTo("none");
    }
}
