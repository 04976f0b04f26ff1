package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

class ControlApiKeysTest {
    @Test
    void shouldLieOutsideEveryKafkaApiKey() {
        for (final ApiKeys key : ApiKeys.values()) {
            assertThat(ControlApiKeys.isControlApiKey(key.id)).as(key.name()).isFalse();
        }
        assertThat(ControlApiKeys.isControlApiKey(ControlApiKeys.RDMA_CONNECT)).isTrue();
        assertThat(ControlApiKeys.isControlApiKey(ControlApiKeys.RELEASE_ACCESS))
                .isTrue();
    }

    @Test
    void shouldNameTheKnownKeys() {
        assertThat(ControlApiKeys.name(ControlApiKeys.CONSUME_ACCESS)).isEqualTo("ConsumeAccess");
        assertThat(ControlApiKeys.name((short) 32050)).isEqualTo("IsthmusControl(32050)");
    }
}
