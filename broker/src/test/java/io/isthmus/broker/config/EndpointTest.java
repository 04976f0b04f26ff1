package io.isthmus.broker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class EndpointTest {
    @Test
    void shouldParseNameHostAndPort() {
        assertThat(Endpoint.parse("PLAINTEXT://localhost:9092", "listeners"))
                .isEqualTo(new Endpoint("PLAINTEXT", "localhost", 9092));
    }

    @Test
    void shouldStripTheBracketsOfAnIpv6Host() {
        final Endpoint endpoint = Endpoint.parse("PLAINTEXT://[::1]:9092", "listeners");

        assertThat(endpoint.host()).isEqualTo("::1");
        assertThat(endpoint.port()).isEqualTo(9092);
        assertThat(Endpoint.parse("PLAINTEXT://[fe80::1:2]:0", "listeners").host())
                .isEqualTo("fe80::1:2");
    }

    @Test
    void shouldTakeAnEmptyHostAsTheWildcardAddress() {
        assertThat(Endpoint.parse("PLAINTEXT://:9092", "listeners"))
                .isEqualTo(new Endpoint("PLAINTEXT", "0.0.0.0", 9092));
    }

    @Test
    void shouldAcceptPortZeroAndReplaceItWithTheBoundPort() {
        final Endpoint endpoint = Endpoint.parse("PLAINTEXT://127.0.0.1:0", "listeners");

        assertThat(endpoint.port()).isZero();
        assertThat(endpoint.withPort(41234)).isEqualTo(new Endpoint("PLAINTEXT", "127.0.0.1", 41234));
    }

    @Test
    void shouldRefuseSpecsWithoutSchemeOrPort() {
        for (final String spec : new String[] {"localhost:9092", "://localhost:9092", "PLAINTEXT://localhost"}) {
            assertThatThrownBy(() -> Endpoint.parse(spec, "listeners"))
                    .as(spec)
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("listeners")
                    .hasMessageContaining(spec);
        }
    }

    @Test
    void shouldKeepTheListenerNameUpperCaseForTheSecurityProtocolMap() {
        assertThat(Endpoint.parse("sasl_ssl://localhost:9094", "listeners").listenerName())
                .isEqualTo("SASL_SSL");
        assertThat(Endpoint.parse("INTERNAL://localhost:9096", "listeners").listenerName())
                .isEqualTo("INTERNAL");
    }

    @Test
    void shouldRefuseABadPort() {
        assertThatThrownBy(() -> Endpoint.parse("PLAINTEXT://localhost:http", "listeners"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("not a number");
        assertThatThrownBy(() -> Endpoint.parse("PLAINTEXT://localhost:65536", "advertised.listeners"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("advertised.listeners")
                .hasMessageContaining("0..65535");
        assertThatThrownBy(() -> Endpoint.parse("PLAINTEXT://localhost:-1", "listeners"))
                .isInstanceOf(ConfigException.class);
        assertThatThrownBy(() -> new Endpoint("PLAINTEXT", "localhost", 70000))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldPrintAsItIsWritten() {
        assertThat(new Endpoint("PLAINTEXT", "localhost", 9092)).hasToString("PLAINTEXT://localhost:9092");
    }
}
