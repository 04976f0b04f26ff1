package io.isthmus.client.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.client.consumer.ConsumerConfig;
import io.isthmus.client.producer.ProducerConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaSettingsTest {
    @Test
    void shouldKeepIsthmusSettingsAndDropKafkaOnesWithoutMeaningHere() {
        final KafkaSettings.Translated t = KafkaSettings.forConsumer(Map.of(
                "bootstrap.servers", "localhost:9092",
                "transport", "tcp",
                "max.partition.fetch.bytes", 4_194_304,
                "metadata.max.age.ms", "2000",
                "key.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer",
                "reconnect.backoff.ms", "50",
                "security.protocol", "plaintext"));
        assertThat(t.settings())
                .containsOnlyKeys(
                        "bootstrap.servers",
                        "transport",
                        "max.partition.fetch.bytes",
                        "metadata.max.age.ms",
                        "security.protocol")
                .containsEntry("max.partition.fetch.bytes", 4_194_304);
        assertThat(t.ignored()).containsExactly("key.deserializer", "reconnect.backoff.ms");
        final ConsumerConfig config = new ConsumerConfig(t.settings());
        assertThat(config.maxPartitionFetchBytes()).isEqualTo(4_194_304);
        assertThat(config.transport()).isEqualTo(Transport.TCP);
        assertThat(config.metadataMaxAgeMs()).isEqualTo(2000);
    }

    @Test
    void shouldTranslateProducerSettingsAgainstTheProducersNames() {
        final KafkaSettings.Translated t = KafkaSettings.forProducer(Map.of(
                "bootstrap.servers", "localhost:9092",
                "linger.ms", "7",
                "value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer",
                "partitioner.ignore.keys", "false"));
        assertThat(t.settings()).containsOnlyKeys("bootstrap.servers", "linger.ms");
        assertThat(t.ignored()).containsExactly("partitioner.ignore.keys", "value.serializer");
        assertThat(new ProducerConfig(t.settings()).lingerMs()).isEqualTo(7);
    }

    @Test
    void shouldIgnoreTheOtherClientsKafkaSettingsAsKafkaClientsDoes() {
        // One property set for both clients, as a Flink SQL table's properties.* are.
        final KafkaSettings.Translated producer =
                KafkaSettings.forProducer(Map.of("bootstrap.servers", "b:1", "isolation.level", "read_committed"));
        final KafkaSettings.Translated consumer =
                KafkaSettings.forConsumer(Map.of("bootstrap.servers", "b:1", "transactional.id", "t"));

        assertThat(producer.settings()).containsOnlyKeys("bootstrap.servers");
        assertThat(producer.ignored()).containsExactly("isolation.level");
        assertThat(consumer.settings()).containsOnlyKeys("bootstrap.servers");
        assertThat(consumer.ignored()).containsExactly("transactional.id");
    }

    @Test
    void shouldRefuseATypoAsTheClientWould() {
        assertThatThrownBy(() -> KafkaSettings.forConsumer(Map.of("bootstrap.servers", "b:1", "fetch.max.wiat.ms", 5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key=fetch.max.wiat.ms")
                .hasMessageContaining("neither an isthmus nor a Kafka consumer setting");
        assertThatThrownBy(() -> KafkaSettings.forProducer(Map.of("bootstrap.servers", "b:1", "lingr.ms", 5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key=lingr.ms")
                .hasMessageContaining("neither an isthmus nor a Kafka producer setting");
    }

    @Test
    void shouldRefuseSecurityItCannotProvideRatherThanDropIt() {
        final KafkaSettings.Translated tls =
                KafkaSettings.forConsumer(Map.of("bootstrap.servers", "b:1", "security.protocol", "SASL_SSL"));
        assertThatThrownBy(() -> new ConsumerConfig(tls.settings()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key=security.protocol")
                .hasMessageContaining("no TLS");
    }

    @Test
    void shouldCarrySaslSettingsOverToTheIsthmusClient() {
        final KafkaSettings.Translated sasl = KafkaSettings.forProducer(Map.of(
                "bootstrap.servers",
                "b:1",
                "security.protocol",
                "SASL_PLAINTEXT",
                "sasl.mechanism",
                "SCRAM-SHA-256",
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" password=\"p\";"));
        assertThat(new io.isthmus.client.producer.ProducerConfig(sasl.settings())
                        .security()
                        .username())
                .isEqualTo("u");
    }
}
