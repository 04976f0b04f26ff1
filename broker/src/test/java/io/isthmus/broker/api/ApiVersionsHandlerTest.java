package io.isthmus.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ApiVersionsHandlerTest {
    private final ApiVersionsHandler handler = new ApiVersionsHandler(() -> new ApiVersionsResponseData()
            .setApiKeys(new ApiVersionsResponseData.ApiVersionCollection(
                    java.util.List.of(new ApiVersionsResponseData.ApiVersion()
                                    .setApiKey(ApiKeys.API_VERSIONS.id)
                                    .setMinVersion((short) 0)
                                    .setMaxVersion((short) 4))
                            .iterator())));

    @Test
    void shouldAnswerTheServedVersions() throws Exception {
        final ApiVersionsResponseData response = Requests.body(
                handler,
                ApiKeys.API_VERSIONS,
                (short) 3,
                new ApiVersionsRequestData()
                        .setClientSoftwareName("isthmus-test")
                        .setClientSoftwareVersion("1.0"));

        assertThat(response.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(response.apiKeys().find(ApiKeys.API_VERSIONS.id).maxVersion())
                .isEqualTo((short) 4);
    }

    @Test
    void shouldAnswerInvalidRequestForAnInvalidClientSoftwareName() throws Exception {
        final ApiVersionsResponseData response = Requests.body(
                handler,
                ApiKeys.API_VERSIONS,
                (short) 3,
                new ApiVersionsRequestData().setClientSoftwareName("bad name!").setClientSoftwareVersion("1.0"));

        assertThat(response.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
        assertThat(response.apiKeys()).isNotEmpty();
    }
}
