package io.isthmus.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.isthmus.broker.config.Endpoint;
import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.testkit.TestPartitions;
import io.isthmus.broker.topic.TopicRegistry.TopicInfo;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetadataHandlerTest {
    private static final short LATEST = ApiKeys.METADATA.latestVersion();

    @TempDir
    Path tmp;

    private PartitionManager partitions;
    private final BrokerNode node = new BrokerNode(3, "cluster-x");
    private TopicInfo orders;

    @BeforeEach
    void setUp() throws Exception {
        partitions = TestPartitions.start(tmp);
        node.advertise(List.of(new Endpoint("PLAINTEXT", "broker.example", 9092), new Endpoint("SSL", "secure", 9093)));
        orders = partitions.createTopic("orders", 2);
        partitions.createTopic("payments", 1);
    }

    @AfterEach
    void tearDown() throws Exception {
        partitions.close();
    }

    private MetadataResponseData metadata(final boolean autoCreate, final short version, final MetadataRequestData data)
            throws Exception {
        return Requests.body(
                new MetadataHandler(partitions, node, autoCreate, 4, AccessControl.allowAll()),
                ApiKeys.METADATA,
                version,
                data);
    }

    private static MetadataRequestData byNames(final boolean allowAutoCreate, final String... names) {
        final MetadataRequestData data = new MetadataRequestData().setAllowAutoTopicCreation(allowAutoCreate);
        for (final String name : names) {
            data.topics().add(new MetadataRequestData.MetadataRequestTopic().setName(name));
        }
        return data;
    }

    @Test
    void shouldDescribeEveryTopicAndThisBrokerAsLeaderOfAll() throws Exception {
        final MetadataResponseData response = metadata(true, LATEST, new MetadataRequestData().setTopics(null));

        assertThat(response.clusterId()).isEqualTo("cluster-x");
        assertThat(response.controllerId()).isEqualTo(3);
        assertThat(response.brokers()).singleElement().satisfies(broker -> {
            assertThat(broker.nodeId()).isEqualTo(3);
            assertThat(broker.host()).isEqualTo("broker.example");
            assertThat(broker.port()).isEqualTo(9092);
        });
        assertThat(response.topics())
                .extracting(MetadataResponseData.MetadataResponseTopic::name)
                .containsExactlyInAnyOrder("orders", "payments");
        final MetadataResponseData.MetadataResponseTopic described =
                response.topics().find("orders");
        assertThat(described.topicId()).isEqualTo(orders.id());
        assertThat(described.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(described.partitions()).hasSize(2).allSatisfy(p -> {
            assertThat(p.leaderId()).isEqualTo(3);
            assertThat(p.replicaNodes()).containsExactly(3);
            assertThat(p.isrNodes()).containsExactly(3);
        });
        assertThat(described.partitions())
                .extracting(MetadataResponseData.MetadataResponsePartition::partitionIndex)
                .containsExactly(0, 1);
    }

    @Test
    void shouldTakeAnEmptyListInV0AsAllTopicsAndAsNoTopicsLater() throws Exception {
        assertThat(metadata(true, (short) 0, new MetadataRequestData()).topics())
                .hasSize(2);
        assertThat(metadata(true, (short) 1, new MetadataRequestData()).topics())
                .isEmpty();
    }

    @Test
    void aNullNameOrATopicIdBeforeVersion12IsInvalidRequestAndTheAnswerStillWrites() throws Exception {
        // Found by the fuzzer: v10 and v11 requests may carry them, their answers cannot carry a null name.
        for (final short version : new short[] {10, 11}) {
            final MetadataRequestData data = new MetadataRequestData().setAllowAutoTopicCreation(false);
            data.topics().add(new MetadataRequestData.MetadataRequestTopic().setName(null));
            data.topics()
                    .add(new MetadataRequestData.MetadataRequestTopic()
                            .setName("payments")
                            .setTopicId(Uuid.randomUuid()));
            final MetadataResponseData response = metadata(true, version, data);

            assertThat(response.topics())
                    .extracting(MetadataResponseData.MetadataResponseTopic::name)
                    .containsExactly("", "payments");
            assertThat(response.topics())
                    .allSatisfy(topic -> assertThat(topic.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code()));
            assertThatCode(() -> MessageUtil.toByteBufferAccessor(response, version))
                    .doesNotThrowAnyException();
        }
        final MetadataRequestData neither = new MetadataRequestData();
        neither.topics().add(new MetadataRequestData.MetadataRequestTopic().setName(null));
        assertThat(metadata(true, LATEST, neither).topics().iterator().next().errorCode())
                .isEqualTo(Errors.INVALID_REQUEST.code());
    }

    @Test
    void shouldDescribeTopicsByName() throws Exception {
        final MetadataResponseData response = metadata(false, LATEST, byNames(false, "payments"));

        assertThat(response.topics()).singleElement().satisfies(topic -> {
            assertThat(topic.name()).isEqualTo("payments");
            assertThat(topic.partitions()).hasSize(1);
        });
    }

    @Test
    void shouldDescribeTopicsById() throws Exception {
        final MetadataRequestData data = new MetadataRequestData();
        data.topics()
                .add(new MetadataRequestData.MetadataRequestTopic()
                        .setName(null)
                        .setTopicId(orders.id()));
        data.topics()
                .add(new MetadataRequestData.MetadataRequestTopic()
                        .setName(null)
                        .setTopicId(Uuid.randomUuid()));

        final MetadataResponseData response = metadata(false, LATEST, data);

        assertThat(response.topics()).hasSize(2);
        final List<MetadataResponseData.MetadataResponseTopic> topics = List.copyOf(response.topics());
        assertThat(topics.get(0).name()).isEqualTo("orders");
        assertThat(topics.get(0).partitions()).hasSize(2);
        assertThat(topics.get(1).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
    }

    @Test
    void shouldAnswerUnknownTopicWhenAutoCreationIsOff() throws Exception {
        final MetadataResponseData response = metadata(false, LATEST, byNames(true, "missing"));

        assertThat(response.topics().find("missing").errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(partitions.topics().byName("missing")).isEmpty();
    }

    @Test
    void shouldAnswerUnknownTopicWhenTheRequestDisallowsAutoCreation() throws Exception {
        final MetadataResponseData response = metadata(true, LATEST, byNames(false, "missing"));

        assertThat(response.topics().find("missing").errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(partitions.topics().byName("missing")).isEmpty();
    }

    @Test
    void shouldAutoCreateAMissingTopicWithTheDefaultPartitionCount() throws Exception {
        final MetadataResponseData response = metadata(true, LATEST, byNames(true, "orders", "fresh"));

        final MetadataResponseData.MetadataResponseTopic fresh =
                response.topics().find("fresh");
        assertThat(fresh.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(fresh.partitions()).hasSize(4);
        assertThat(fresh.topicId())
                .isEqualTo(partitions.topics().byName("fresh").orElseThrow().id());
        assertThat(response.topics().find("orders").partitions()).hasSize(2);
    }

    @Test
    void shouldAutoCreateForVersionsBeforeTheFlagExisted() throws Exception {
        metadata(true, (short) 3, byNames(true, "legacy"));

        assertThat(partitions.topics().byName("legacy")).isPresent();
    }

    @Test
    void shouldAnswerAnInvalidNameWithItsErrorInsteadOfCreating() throws Exception {
        final MetadataResponseData response = metadata(true, LATEST, byNames(true, "bad name"));

        assertThat(response.topics().find("bad name").errorCode()).isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());
    }

    @Test
    void shouldAdvertiseTheEndpointOfTheListenerTheClientCameIn() throws Exception {
        final RequestContext viaSsl = new RequestContext(
                new RequestHeader(ApiKeys.METADATA, LATEST, "c", 1),
                1,
                null,
                "SSL",
                System.nanoTime(),
                KafkaPrincipal.ANONYMOUS);

        final MetadataResponseData response = (MetadataResponseData) Requests.await(new MetadataHandler(
                                partitions, node, false, 1, AccessControl.allowAll())
                        .handle(
                                viaSsl,
                                Requests.parse(ApiKeys.METADATA, LATEST, new MetadataRequestData().setTopics(null))))
                .body();

        assertThat(response.brokers().find(3).host()).isEqualTo("secure");
        assertThat(response.brokers().find(3).port()).isEqualTo(9093);
    }
}
