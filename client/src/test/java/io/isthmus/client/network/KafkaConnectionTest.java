package io.isthmus.client.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.client.security.SecuritySettings;
import io.isthmus.client.testing.FakeKafkaBroker;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
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
        connection = open(SocketBuffers.DEFAULT);
    }

    private KafkaConnection open(final SocketBuffers buffers) throws Exception {
        final String[] hostPort = broker.bootstrapServers().split(":");
        return KafkaConnection.open(
                new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])),
                "test",
                pool,
                Duration.ofSeconds(5),
                SecuritySettings.PLAINTEXT,
                buffers);
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

    /**
     * The sizes asked for reach the connection's socket: what the kernel reports for it equals what it reports for a
     * plain socket given the same size (Linux caps it at {@code net.core.rmem_max} / {@code wmem_max}), and differs
     * from the system's default, which -1 keeps.
     */
    @Test
    void shouldAskTheKernelForTheConfiguredSocketBuffers() throws Exception {
        final int systemReceive = plainSocketOption(StandardSocketOptions.SO_RCVBUF, -1);
        final int systemSend = plainSocketOption(StandardSocketOptions.SO_SNDBUF, -1);
        for (final SocketBuffers buffers : List.of(
                new SocketBuffers(48 * 1024, 96 * 1024), new SocketBuffers(4 << 20, 1 << 20), SocketBuffers.DEFAULT)) {
            try (KafkaConnection set = open(buffers)) {
                final int receive = plainSocketOption(StandardSocketOptions.SO_RCVBUF, buffers.receiveBytes());
                final int send = plainSocketOption(StandardSocketOptions.SO_SNDBUF, buffers.sendBytes());
                assertThat(receive).isNotEqualTo(systemReceive);
                assertThat(send).isNotEqualTo(systemSend);
                assertThat(set.socketOption(StandardSocketOptions.SO_RCVBUF))
                        .as("SO_RCVBUF for %s", buffers)
                        .isEqualTo(receive);
                assertThat(set.socketOption(StandardSocketOptions.SO_SNDBUF))
                        .as("SO_SNDBUF for %s", buffers)
                        .isEqualTo(send);
            }
        }
        try (KafkaConnection system = open(new SocketBuffers(-1, -1))) {
            // The send buffer is left out: unset, the kernel grows it as soon as the socket connects.
            assertThat(system.socketOption(StandardSocketOptions.SO_RCVBUF)).isEqualTo(systemReceive);
        }
    }

    /** What the kernel reports for {@code option} on a fresh socket given {@code bytes} (-1: nothing set). */
    private static int plainSocketOption(final SocketOption<Integer> option, final int bytes) throws Exception {
        try (SocketChannel plain = SocketChannel.open()) {
            if (bytes != -1) {
                plain.setOption(option, bytes);
            }
            return plain.getOption(option);
        }
    }

    @Test
    void shouldRefuseABufferSizeThatIsNeitherPositiveNorMinusOne() {
        assertThatThrownBy(() -> new SocketBuffers(0, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("receive.buffer.bytes")
                .hasMessageContaining("value=0");
        assertThatThrownBy(() -> new SocketBuffers(-1, -2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("send.buffer.bytes")
                .hasMessageContaining("value=-2");
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
