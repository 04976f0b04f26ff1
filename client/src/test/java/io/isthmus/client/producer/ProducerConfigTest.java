package io.isthmus.client.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.protocol.record.CompressionType;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProducerConfigTest {
    @Test
    void shouldUseKafkaDefaults() {
        final ProducerConfig config = new ProducerConfig(Map.of("bootstrap.servers", "localhost:9092"));
        assertThat(config.acks()).isEqualTo((short) -1);
        assertThat(config.idempotence()).isTrue();
        assertThat(config.batchSize()).isEqualTo(16384);
        assertThat(config.lingerMs()).isEqualTo(5);
        assertThat(config.maxInFlight()).isEqualTo(5);
        assertThat(config.compression()).isEqualTo(CompressionType.NONE);
        assertThat(config.deliveryTimeoutMs()).isEqualTo(120_000);
        assertThat(config.metadataMaxAgeMs()).isEqualTo(300_000);
    }

    @Test
    void shouldReadKafkaNames() {
        final ProducerConfig config = new ProducerConfig(Map.of(
                "bootstrap.servers", "h:1",
                "acks", "1",
                "enable.idempotence", "false",
                "compression.type", "zstd",
                "linger.ms", 20,
                "batch.size", "65536",
                "metadata.max.age.ms", "1000"));
        assertThat(config.acks()).isEqualTo((short) 1);
        assertThat(config.compression()).isEqualTo(CompressionType.ZSTD);
        assertThat(config.lingerMs()).isEqualTo(20);
        assertThat(config.batchSize()).isEqualTo(65536);
        assertThat(config.metadataMaxAgeMs()).isEqualTo(1000);
    }

    @Test
    void shouldRejectIdempotenceWithoutAcksAll() {
        assertThatThrownBy(() -> new ProducerConfig(Map.of("bootstrap.servers", "h:1", "acks", "1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("enable.idempotence=true needs acks=all");
    }

    @Test
    void shouldRejectUnknownSettingsByName() {
        assertThatThrownBy(() -> new ProducerConfig(Map.of("bootstrap.servers", "h:1", "linger.msec", "5")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key=linger.msec");
    }
}
