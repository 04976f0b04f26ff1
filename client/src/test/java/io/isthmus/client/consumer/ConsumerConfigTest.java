package io.isthmus.client.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.client.config.KafkaSettings;
import io.isthmus.client.network.SocketBuffers;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConsumerConfigTest {
    @Test
    void shouldAskForAReceiveBufferThatHoldsAFetchResponseUnlessTold() {
        final ConsumerConfig defaults = new ConsumerConfig(Map.of("bootstrap.servers", "h:1"));
        assertThat(defaults.socketBuffers()).isEqualTo(new SocketBuffers(4 << 20, 1 << 20));
        assertThat(defaults.socketBuffers().receiveBytes()).isGreaterThanOrEqualTo(defaults.maxPartitionFetchBytes());

        final ConsumerConfig set = new ConsumerConfig(
                Map.of("bootstrap.servers", "h:1", "receive.buffer.bytes", "65536", "send.buffer.bytes", -1));
        assertThat(set.socketBuffers()).isEqualTo(new SocketBuffers(65536, -1));
    }

    @Test
    void shouldRefuseAZeroBufferNamingTheSetting() {
        assertThatThrownBy(() -> new ConsumerConfig(Map.of("bootstrap.servers", "h:1", "receive.buffer.bytes", 0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("receive.buffer.bytes");
    }

    @Test
    void shouldKeepKafkasBufferSettingsRatherThanIgnoreThem() {
        final KafkaSettings.Translated translated = KafkaSettings.forConsumer(
                Map.of("bootstrap.servers", "h:1", "receive.buffer.bytes", 65536, "send.buffer.bytes", 131072));
        assertThat(translated.ignored()).isEmpty();
        assertThat(new ConsumerConfig(translated.settings()).socketBuffers())
                .isEqualTo(new SocketBuffers(65536, 131072));
    }
}
