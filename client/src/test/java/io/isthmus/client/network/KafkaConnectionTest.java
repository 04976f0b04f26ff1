package io.isthmus.client.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.client.security.SecuritySettings;
import io.isthmus.client.testing.FakeKafkaBroker;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class KafkaConnectionTest {
    private FakeKafkaBroker broker;
    private ReceiveBufferPool pool;
    private KafkaConnection connection;

    @BeforeEach
    void connect() throws Exception {
        broker = new FakeKafkaBroker((short) 17);
        pool = new ReceiveBufferPool(64 * 1024);
        final String[] hostPort = broker.bootstrapServers().split(":");
        connection = KafkaConnection.open(
                new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])),
                "test",
                pool,
                Duration.ofSeconds(5),
                SecuritySettings.PLAINTEXT);
    }

    @AfterEach
    void close() throws Exception {
        connection.close();
        pool.close();
        broker.close();
    }

    /**
     * A consumer that looks an offset up (ListOffsets) at the broker it has a fetch outstanding at: the fetch response
     * arrives first and must still reach the fetcher afterwards, or the fetcher waits for a response nobody kept.
     */
    @Test
    void shouldKeepAPipelinedResponseThatARequestReadsBeforeItsOwn() {
        final int fetch = connection.send(
                ApiKeys.FETCH,
                new FetchRequestData()
                        .setReplicaId(-1)
                        .setMaxWaitMs(10)
                        .setMaxBytes(1 << 20)
                        .setTopics(List.of(new FetchRequestData.FetchTopic()
                                .setTopic(FakeKafkaBroker.TOPIC)
                                .setTopicId(FakeKafkaBroker.TOPIC_ID)
                                .setPartitions(List.of(new FetchRequestData.FetchPartition()
                                        .setPartition(0)
                                        .setFetchOffset(0)
                                        .setPartitionMaxBytes(1 << 20))))));

        final ListOffsetsResponseData offsets = (ListOffsetsResponseData) connection.request(
                ApiKeys.LIST_OFFSETS,
                new ListOffsetsRequestData()
                        .setReplicaId(-1)
                        .setTopics(List.of(new ListOffsetsRequestData.ListOffsetsTopic()
                                .setName(FakeKafkaBroker.TOPIC)
                                .setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                                        .setPartitionIndex(0)
                                        .setTimestamp(-2L))))),
                Duration.ofSeconds(5));

        assertThat(offsets.topics().get(0).partitions().get(0).offset()).isZero();
        assertThat(connection.inFlight())
                .as("the fetch, answered but not yet received")
                .isEqualTo(1);
        final Response response = connection.receive(0);
        try {
            assertThat(response).isNotNull();
            assertThat(response.apiKey()).isEqualTo(ApiKeys.FETCH);
            assertThat(response.correlationId()).isEqualTo(fetch);
            assertThat(((FetchResponseData) response.parse()).responses()).hasSize(1);
        } finally {
            response.release();
        }
        assertThat(connection.inFlight()).isZero();
    }

    @Test
    void shouldReleaseKeptResponsesOnClose() {
        connection.send(
                ApiKeys.LIST_OFFSETS,
                new ListOffsetsRequestData()
                        .setReplicaId(-1)
                        .setTopics(List.of(new ListOffsetsRequestData.ListOffsetsTopic()
                                .setName(FakeKafkaBroker.TOPIC)
                                .setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                                        .setPartitionIndex(0)
                                        .setTimestamp(-1L))))));
        connection.request(
                ApiKeys.LIST_OFFSETS,
                new ListOffsetsRequestData()
                        .setReplicaId(-1)
                        .setTopics(List.of(new ListOffsetsRequestData.ListOffsetsTopic()
                                .setName(FakeKafkaBroker.TOPIC)
                                .setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                                        .setPartitionIndex(0)
                                        .setTimestamp(-2L))))),
                Duration.ofSeconds(5));

        assertThat(pool.available()).as("one buffer holds the kept response").isEqualTo(pool.created() - 1);

        connection.close();

        assertThat(pool.available()).as("every buffer back in the pool").isEqualTo(pool.created());
    }
}
