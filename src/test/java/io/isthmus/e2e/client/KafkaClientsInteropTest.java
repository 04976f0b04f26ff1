package io.isthmus.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.Broker;
import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.e2e.EmbeddedBroker;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Both directions of interop through the isthmus broker: isthmus producer to kafka-clients consumer, kafka-clients
 * producer to isthmus consumer, and a consumer group shared by an isthmus consumer and a KafkaConsumer.
 */
class KafkaClientsInteropTest {
    @TempDir
    static Path logDir;

    private static Broker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = EmbeddedBroker.start(logDir);
    }

    @AfterAll
    static void stopBroker() throws Exception {
        broker.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "lz4", "zstd"})
    void shouldBeReadByKafkaConsumer(final String compression) {
        final String topic = "isthmus-to-kafka-" + compression;
        try (IsthmusAdmin admin = new IsthmusAdmin(broker.bootstrapServers())) {
            admin.createTopic(topic, 3, (short) 1);
        }
        assertThat(Interop.produceWithIsthmusConsumeWithKafka(broker.bootstrapServers(), topic, compression, 3, 5000))
                .isEqualTo(5000);
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "lz4", "zstd"})
    void shouldReadWhatKafkaProducerWrote(final String compression) {
        final String topic = "kafka-to-isthmus-" + compression;
        try (IsthmusAdmin admin = new IsthmusAdmin(broker.bootstrapServers())) {
            admin.createTopic(topic, 3, (short) 1);
        }
        assertThat(Interop.produceWithKafkaConsumeWithIsthmus(broker.bootstrapServers(), topic, compression, 3, 5000))
                .isEqualTo(5000);
    }

    @org.junit.jupiter.api.Test
    void shouldShareAGroupWithAKafkaConsumer() throws Exception {
        final String topic = "shared-group";
        try (IsthmusAdmin admin = new IsthmusAdmin(broker.bootstrapServers())) {
            admin.createTopic(topic, 4, (short) 1);
        }
        assertThat(Interop.shareGroupWithKafkaConsumer(broker.bootstrapServers(), topic, 4, 4000))
                .isEqualTo(4000);
    }
}
