package io.isthmus.broker.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.api.ApiVersionsHandler;
import io.isthmus.broker.api.RequestRouter;
import io.isthmus.broker.config.ConnectionLimits;
import io.isthmus.broker.config.Endpoint;
import io.isthmus.broker.network.ControlRequestHandler;
import io.isthmus.broker.network.KafkaServer;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.testkit.KafkaBatches;
import io.isthmus.broker.testkit.TestPartitions;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.AttributeNotFoundException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerMetricsMBeanTest {
    private static final short VERSION = 3;

    @TempDir
    Path tmp;

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private PartitionManager partitions;
    private KafkaServer kafka;
    private BrokerMetricsMBean bean;
    private ObjectName name;

    @BeforeEach
    void setUp() throws Exception {
        partitions = TestPartitions.start(tmp);
        final AtomicReference<RequestRouter> router = new AtomicReference<>();
        router.set(new RequestRouter(
                List.of(new ApiVersionsHandler(() -> router.get().apiVersions()))));
        kafka = KafkaServer.start(
                List.of(new Endpoint("PLAINTEXT", "127.0.0.1", 0)),
                Map.of(),
                1,
                ConnectionLimits.of(1024 * 1024, 8),
                router.get(),
                router.get(),
                ControlRequestHandler.NONE);
        bean = BrokerMetricsMBean.register(kafka.metrics(), partitions);
        name = new ObjectName(BrokerMetricsMBean.OBJECT_NAME);
    }

    @AfterEach
    void tearDown() throws Exception {
        bean.close();
        kafka.close();
        partitions.close();
    }

    /** Sends one ApiVersions request and reads its whole response, so the broker has counted it. */
    private static void apiVersions(final Socket socket, final int correlationId) throws Exception {
        final ByteBuffer request = new ApiVersionsRequest.Builder()
                .build(VERSION)
                .serializeWithHeader(new RequestHeader(ApiKeys.API_VERSIONS, VERSION, "metrics-test", correlationId));
        final DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(request.remaining());
        out.write(request.array(), request.arrayOffset() + request.position(), request.remaining());
        out.flush();
        final DataInputStream in = new DataInputStream(socket.getInputStream());
        final byte[] response = new byte[in.readInt()];
        in.readFully(response);
        assertThat(ByteBuffer.wrap(response).getInt()).isEqualTo(correlationId);
    }

    private long attribute(final String attribute) throws Exception {
        return (Long) server.getAttribute(name, attribute);
    }

    @Test
    void shouldExposeRequestAndByteCountersOfServedRequests() throws Exception {
        final Endpoint bound = kafka.boundEndpoints().getFirst();
        try (Socket socket = new Socket(bound.host(), bound.port())) {
            apiVersions(socket, 1);
            apiVersions(socket, 2);

            assertThat(attribute("Requests.API_VERSIONS")).isEqualTo(2);
            assertThat(attribute("Errors.API_VERSIONS")).isZero();
            assertThat(attribute("Requests.PRODUCE")).isZero();
            assertThat(attribute("BytesIn")).isPositive();
            assertThat(attribute("BytesOut")).isPositive();
            assertThat(attribute("Connections")).isEqualTo(1);
            assertThat(attribute("RequestLatencyAvgMicros.API_VERSIONS")).isNotNegative();
            assertThat(attribute("ConnectionsClosedForBadInput")).isZero();
        }
    }

    @Test
    void shouldExposeTheLogEndOffsetOfEveryPartition() throws Exception {
        partitions.createTopic("orders", 1);
        partitions
                .partition(new TopicPartition("orders", 0))
                .orElseThrow()
                .appendFromClient(KafkaBatches.segment(KafkaBatches.plain("a", 3, 1L)));

        assertThat(attribute("LogEndOffset.orders-0")).isEqualTo(3);
        assertThat(server.getMBeanInfo(name).getAttributes())
                .extracting(javax.management.MBeanAttributeInfo::getName)
                .contains("LogEndOffset.orders-0", "Requests.FETCH", "BytesIn");
    }

    @Test
    void shouldAnswerAnUnknownAttributeAndReadOnlyAccess() {
        assertThatThrownBy(() -> server.getAttribute(name, "NoSuchThing"))
                .isInstanceOf(AttributeNotFoundException.class);
        assertThatThrownBy(() -> bean.setAttribute(new javax.management.Attribute("BytesIn", 5L)))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void shouldReplaceAnEarlierRegistrationAndUnregisterOnClose() throws Exception {
        final BrokerMetricsMBean second = BrokerMetricsMBean.register(kafka.metrics(), partitions);
        assertThat(server.isRegistered(name)).isTrue();

        second.close();

        assertThat(server.isRegistered(name)).isFalse();
    }
}
