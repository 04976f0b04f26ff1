package io.isthmus.client.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.client.network.SocketBuffers;
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
    void shouldReadSocketBufferSizesWithTheEarlierFixedSizesAsDefaults() {
        assertThat(new ProducerConfig(Map.of("bootstrap.servers", "h:1")).socketBuffers())
                .isEqualTo(SocketBuffers.DEFAULT);
        assertThat(new ProducerConfig(Map.of(
                                "bootstrap.servers", "h:1", "send.buffer.bytes", "4194304", "receive.buffer.bytes", -1))
                        .socketBuffers())
                .isEqualTo(new SocketBuffers(-1, 4 << 20));
    }

    @Test
    void shouldRejectIdempotenceWithoutAcksAll() {
        assertThatThrownBy(() -> new ProducerConfig(Map.of("bootstrap.servers", "h:1", "acks", "1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("enable.idempotence=true needs acks=all");
    }

    @Test
    void shouldReadTransactionSettingsWithKafkasDefaults() {
        final ProducerConfig plain = new ProducerConfig(Map.of("bootstrap.servers", "h:1"));
        assertThat(plain.transactionalId()).isNull();
        assertThat(plain.transactional()).isFalse();
        assertThat(plain.transactionTimeoutMs()).isEqualTo(60_000);

        final ProducerConfig config = new ProducerConfig(
                Map.of("bootstrap.servers", "h:1", "transactional.id", "tx-1", "transaction.timeout.ms", "15000"));
        assertThat(config.transactionalId()).isEqualTo("tx-1");
        assertThat(config.transactional()).isTrue();
        assertThat(config.transactionTimeoutMs()).isEqualTo(15_000);
    }

    @Test
    void shouldRefuseTransactionsOverRdmaAndSharedMemoryNamingWhy() {
        for (final String transport : new String[] {"rdma", "shm"}) {
            assertThatThrownBy(() -> new ProducerConfig(
                            Map.of("bootstrap.servers", "h:1", "transactional.id", "tx-1", "transport", transport)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("over RDMA or shared memory is not supported")
                    .hasMessageContaining("transactional.id=tx-1")
                    .hasMessageContaining("transport=" + transport);
        }
    }

    @Test
    void shouldRefuseTransactionsWithoutIdempotence() {
        assertThatThrownBy(() -> new ProducerConfig(
                        Map.of("bootstrap.servers", "h:1", "transactional.id", "tx-1", "enable.idempotence", "false")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("transactional.id needs enable.idempotence=true");
        assertThatThrownBy(() -> new ProducerConfig(Map.of("bootstrap.servers", "h:1", "transactional.id", "")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be empty");
    }

    @Test
    void shouldRejectUnknownSettingsByName() {
        assertThatThrownBy(() -> new ProducerConfig(Map.of("bootstrap.servers", "h:1", "linger.msec", "5")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key=linger.msec");
    }
}
