package io.isthmus.client.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.client.security.SecuritySettings;
import org.junit.jupiter.api.Test;

class RdmaClientSettingsTest {
    @Test
    void shouldDefaultToTheFirstDevicePortOneAndTheIpv4MappedGid() {
        final RdmaClientSettings settings = RdmaClientSettings.defaults(30_000);

        assertThat(settings.device()).isNull();
        assertThat(settings.port()).isEqualTo(1);
        assertThat(settings.gidIndex()).isEqualTo(1);
        assertThat(settings.readBytes()).isEqualTo(1024 * 1024);
        assertThat(settings.requestTimeoutMs()).isEqualTo(30_000);
        assertThat(settings.sharedProduce()).isFalse();
    }

    @Test
    void shouldParseTheProduceModeAndRejectAnythingElseByName() {
        assertThat(RdmaClientSettings.parseSharedProduce(null)).isFalse();
        assertThat(RdmaClientSettings.parseSharedProduce("exclusive")).isFalse();
        assertThat(RdmaClientSettings.parseSharedProduce("SHARED")).isTrue();
        assertThatThrownBy(() -> RdmaClientSettings.parseSharedProduce("both"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rdma.produce.mode")
                .hasMessageContaining("both");
    }

    @Test
    void shouldRejectAReadBufferSmallerThanAPageWithContext() {
        assertThatThrownBy(
                        () -> new RdmaClientSettings("rxe0", 1, 1, 1024, 32, 1000, false, SecuritySettings.PLAINTEXT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("readBytes=1024")
                .hasMessageContaining("device=rxe0");
    }
}
