package io.isthmus.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.config.Endpoint;
import io.isthmus.broker.topic.TopicRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterHandlerTest {
    @TempDir
    Path tmp;

    private ClusterHandler handler;

    @BeforeEach
    void setUp() {
        final BrokerNode node = new BrokerNode(4, "cluster-y");
        node.advertise(List.of(new Endpoint("PLAINTEXT", "broker.example", 19092)));
        final TopicRegistry topics = TopicRegistry.open(tmp);
        topics.create("orders", 1);
        handler = new ClusterHandler(
                node,
                topics,
                Map.of("node.id", "4", "num.partitions", "1"),
                Map.of("retention.ms", "604800000", "cleanup.policy", "delete"),
                AccessControl.allowAll());
    }

    private DescribeConfigsResponseData.DescribeConfigsResult describe(
            final ConfigResource.Type type, final String name, final List<String> keys) throws Exception {
        final DescribeConfigsRequestData data = new DescribeConfigsRequestData();
        data.resources()
                .add(new DescribeConfigsRequestData.DescribeConfigsResource()
                        .setResourceType(type.id())
                        .setResourceName(name)
                        .setConfigurationKeys(keys));
        final DescribeConfigsResponseData response =
                Requests.body(handler, ApiKeys.DESCRIBE_CONFIGS, ApiKeys.DESCRIBE_CONFIGS.latestVersion(), data);
        return response.results().getFirst();
    }

    @Test
    void shouldDescribeTheClusterAsThisOneBroker() throws Exception {
        final DescribeClusterResponseData response = Requests.body(
                handler,
                ApiKeys.DESCRIBE_CLUSTER,
                ApiKeys.DESCRIBE_CLUSTER.latestVersion(),
                new DescribeClusterRequestData());

        assertThat(response.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(response.clusterId()).isEqualTo("cluster-y");
        assertThat(response.controllerId()).isEqualTo(4);
        assertThat(response.brokers()).singleElement().satisfies(broker -> {
            assertThat(broker.brokerId()).isEqualTo(4);
            assertThat(broker.host()).isEqualTo("broker.example");
            assertThat(broker.port()).isEqualTo(19092);
        });
    }

    @Test
    void shouldDescribeTheBrokersSettingsByIdOrEmptyName() throws Exception {
        for (final String name : new String[] {"4", ""}) {
            final DescribeConfigsResponseData.DescribeConfigsResult result =
                    describe(ConfigResource.Type.BROKER, name, null);

            assertThat(result.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(result.configs())
                    .extracting(DescribeConfigsResponseData.DescribeConfigsResourceResult::name)
                    .containsExactly("node.id", "num.partitions");
            assertThat(result.configs()).allSatisfy(config -> {
                assertThat(config.readOnly()).isTrue();
                assertThat(config.configSource())
                        .isEqualTo(DescribeConfigsResponse.ConfigSource.STATIC_BROKER_CONFIG.id());
            });
        }
    }

    @Test
    void shouldDescribeOnlyTheRequestedKeys() throws Exception {
        final DescribeConfigsResponseData.DescribeConfigsResult result =
                describe(ConfigResource.Type.TOPIC, "orders", List.of("retention.ms", "no.such.key"));

        assertThat(result.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(result.configs()).singleElement().satisfies(config -> {
            assertThat(config.name()).isEqualTo("retention.ms");
            assertThat(config.value()).isEqualTo("604800000");
            assertThat(config.configSource()).isEqualTo(DescribeConfigsResponse.ConfigSource.DEFAULT_CONFIG.id());
        });
    }

    @Test
    void shouldAnswerAnUnknownTopicOrBroker() throws Exception {
        final var topic = describe(ConfigResource.Type.TOPIC, "missing", null);
        final var broker = describe(ConfigResource.Type.BROKER, "9", null);

        assertThat(topic.errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(topic.configs()).isEmpty();
        assertThat(broker.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
        assertThat(broker.errorMessage()).contains("'9'");
    }
}
