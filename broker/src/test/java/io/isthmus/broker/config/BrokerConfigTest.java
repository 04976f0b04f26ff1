package io.isthmus.broker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.log.LogConfig;
import io.isthmus.broker.producer.ProducerStateTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerConfigTest {
    @TempDir
    Path tmp;

    @Test
    void shouldUseDefaultsWhenNothingIsSet() {
        final BrokerConfig config = BrokerConfig.load(null, List.of());

        assertThat(config.nodeId()).isZero();
        assertThat(config.listeners()).containsExactly(new Endpoint("PLAINTEXT", "127.0.0.1", 9092));
        assertThat(config.advertisedListeners()).isEmpty();
        assertThat(config.logDirs()).containsExactly(Path.of("/tmp/isthmus-logs"));
        assertThat(config.numPartitions()).isEqualTo(1);
        assertThat(config.autoCreateTopics()).isTrue();
        assertThat(config.socketRequestMaxBytes()).isEqualTo(100 * 1024 * 1024);
        assertThat(config.networkThreads()).isPositive();
        assertThat(config.clusterId()).isEqualTo("isthmus-cluster");
        assertThat(config.groupInitialRebalanceDelayMs()).isZero();
        assertThat(config.groupMinSessionTimeoutMs()).isEqualTo(6000);
        assertThat(config.groupMaxSessionTimeoutMs()).isEqualTo(1800000);
        assertThat(config.maxInflightRequestsPerConnection()).isEqualTo(64);
    }

    @Test
    void shouldReadFileThenApplyOverridesInOrder() throws Exception {
        final Path file = tmp.resolve("broker.properties");
        Files.writeString(
                file,
                """
                # comment
                node.id = 7
                num.partitions=3
                log.dirs=/data/a, /data/b
                log.segment.bytes=4096
                auto.create.topics.enable=false
                """);

        final BrokerConfig config =
                BrokerConfig.load(file, List.of("num.partitions=5", " cluster.id = blue ", "num.partitions=6"));

        assertThat(config.nodeId()).isEqualTo(7);
        assertThat(config.numPartitions()).isEqualTo(6);
        assertThat(config.clusterId()).isEqualTo("blue");
        assertThat(config.autoCreateTopics()).isFalse();
        assertThat(config.logDirs()).containsExactly(Path.of("/data/a"), Path.of("/data/b"));
        // Log settings are interpreted by the log's own configuration, so they must survive verbatim.
        assertThat(config.originalsStrings()).containsEntry("log.segment.bytes", "4096");
    }

    @Test
    void shouldKeepTheEqualsSignsOfAValue() {
        final BrokerConfig config = BrokerConfig.load(null, List.of("cluster.id=a=b"));

        assertThat(config.clusterId()).isEqualTo("a=b");
    }

    @Test
    void shouldRefuseAnOverrideWithoutKey() {
        assertThatThrownBy(() -> BrokerConfig.load(null, List.of("node.id")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("node.id");
        assertThatThrownBy(() -> BrokerConfig.load(null, List.of("=5")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("=5");
    }

    @Test
    void shouldRefuseMoreRdmaCreditsThanTheBrokerRemembersBatchesPerProducer() {
        // Each unacknowledged RDMA write may be retried after a lost connection; an older one than the producer state
        // remembers could not be recognised as a duplicate.
        assertThat(BrokerConfig.load(null, List.of("rdma.produce.credits=" + ProducerStateTable.CACHED_BATCHES))
                        .getInt(BrokerConfig.RDMA_PRODUCE_CREDITS))
                .isEqualTo(ProducerStateTable.CACHED_BATCHES);
        assertThatThrownBy(() -> BrokerConfig.load(
                        null, List.of("rdma.produce.credits=" + (ProducerStateTable.CACHED_BATCHES + 1))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("rdma.produce.credits");
    }

    @Test
    void shouldNameAMissingFile() {
        final Path missing = tmp.resolve("missing.properties");

        assertThatThrownBy(() -> BrokerConfig.load(missing, List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(missing.toString());
    }

    @Test
    void shouldNameTheKeyOfABadValue() {
        assertThatThrownBy(() -> BrokerConfig.load(null, List.of("node.id=seven")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("node.id");
        assertThatThrownBy(() -> BrokerConfig.load(null, List.of("num.partitions=0")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("num.partitions");
        assertThatThrownBy(() -> BrokerConfig.load(null, List.of("socket.request.max.bytes=10")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("socket.request.max.bytes");
        assertThatThrownBy(() -> BrokerConfig.load(null, List.of("auto.create.topics.enable=maybe")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("auto.create.topics.enable");
    }

    @Test
    void shouldNameTheKeyOfABadListener() {
        final BrokerConfig listeners = BrokerConfig.of(Map.of(BrokerConfig.LISTENERS, "PLAINTEXT://host"));
        final BrokerConfig advertised =
                BrokerConfig.of(Map.of(BrokerConfig.ADVERTISED_LISTENERS, "PLAINTEXT://host:port"));

        assertThatThrownBy(listeners::listeners)
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(BrokerConfig.LISTENERS);
        assertThatThrownBy(advertised::advertisedListeners)
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(BrokerConfig.ADVERTISED_LISTENERS);
    }

    @Test
    void shouldParseSeveralListenersAndAdvertisedListeners() {
        final BrokerConfig config = BrokerConfig.of(Map.of(
                BrokerConfig.LISTENERS, "PLAINTEXT://0.0.0.0:0,INTERNAL://[::1]:9093",
                BrokerConfig.ADVERTISED_LISTENERS, "PLAINTEXT://broker.example:19092"));

        assertThat(config.listeners())
                .containsExactly(new Endpoint("PLAINTEXT", "0.0.0.0", 0), new Endpoint("INTERNAL", "::1", 9093));
        assertThat(config.advertisedListeners()).containsExactly(new Endpoint("PLAINTEXT", "broker.example", 19092));
    }

    @Test
    void shouldRefuseAnEmptyListOfListenersOrLogDirs() {
        final BrokerConfig noListeners = BrokerConfig.of(Map.of(BrokerConfig.LISTENERS, ""));
        final BrokerConfig noLogDirs = BrokerConfig.of(Map.of(BrokerConfig.LOG_DIRS, ""));

        assertThatThrownBy(noListeners::listeners)
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(BrokerConfig.LISTENERS);
        assertThatThrownBy(noLogDirs::logDirs)
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(BrokerConfig.LOG_DIRS);
    }

    @Test
    void aSettingNeitherTheBrokerNorItsLogKnowsIsReportedAndTheKnownOnesAreNot() {
        final BrokerConfig config = BrokerConfig.of(Map.of(
                BrokerConfig.LOG_DIRS,
                "/tmp/x",
                LogConfig.RETENTION_MS,
                "1000",
                "log.retention.hour",
                "1",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                "x",
                "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config",
                "y",
                "zookeeper.connect",
                "localhost:2181"));

        assertThat(config.unknownSettings())
                .containsExactly(
                        "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config",
                        "log.retention.hour",
                        "zookeeper.connect");
    }

    @Test
    void theLogsTableHasEverySettingTheLogReadsWithTheSameDefaults() {
        final Map<String, String> defaults = new java.util.HashMap<>();
        LogConfig.DEFINITION.defaultValues().forEach((name, value) -> defaults.put(name, String.valueOf(value)));

        assertThat(LogConfig.from(defaults)).isEqualTo(LogConfig.defaults());
        assertThat(LogConfig.DEFINITION.names())
                .as("one setting per component of the log's configuration")
                .hasSize(LogConfig.class.getRecordComponents().length);
        for (final String name : LogConfig.DEFINITION.names()) {
            // Refused with its name: the log reads it, under this name.
            assertThatThrownBy(() -> LogConfig.from(Map.of(name, "-2")))
                    .as(name)
                    .hasMessageContaining(name);
        }
    }
}
