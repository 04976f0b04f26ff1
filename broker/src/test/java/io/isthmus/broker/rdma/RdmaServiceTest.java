package io.isthmus.broker.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.Broker;
import io.isthmus.broker.config.BrokerConfig;
import io.isthmus.broker.security.Authorizer;
import io.isthmus.protocol.control.ControlApiKeys;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ControlFrame;
import io.isthmus.protocol.control.ControlRequestHeader;
import io.isthmus.protocol.control.RdmaConnectRequest;
import io.isthmus.protocol.control.RdmaConnectResponse;
import java.io.DataInputStream;
import java.lang.foreign.MemorySegment;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RdmaServiceTest {
    @TempDir
    Path tmp;

    @Test
    void shouldBeOffWithAReasonWhenDisabled() {
        final RdmaService service = RdmaService.start(
                RdmaSettings.from(BrokerConfig.of(Map.of())),
                null,
                Authorizer.ALLOW_ALL,
                io.isthmus.broker.partition.LeaderAccess.SOLE_BROKER,
                io.isthmus.broker.replication.PushAcceptance.NONE);

        assertThat(service.isRunning()).isFalse();
        assertThat(service.unavailableReason()).contains("RDMA is disabled (rdma.enabled=false)");
        assertThat(service.advertise(new ApiVersionsResponseData()).apiKeys()).isEmpty();
        service.close();
    }

    @Test
    void shouldKeepServingTcpAndSayWhyWhenTheDeviceIsMissing() throws Exception {
        final Broker broker = Broker.start(BrokerConfig.of(Map.of(
                BrokerConfig.LISTENERS, "PLAINTEXT://127.0.0.1:0",
                BrokerConfig.LOG_DIRS, tmp.toString(),
                BrokerConfig.NUM_NETWORK_THREADS, "1",
                BrokerConfig.RDMA_ENABLED, "true",
                BrokerConfig.RDMA_DEVICE, "no-such-rdma-device")));
        try (Socket socket =
                new Socket("127.0.0.1", broker.endpoints().getFirst().port())) {
            assertThat(broker.rdma().isRunning()).isFalse();
            assertThat(broker.rdma().unavailableReason())
                    .hasValueSatisfying(reason -> assertThat(reason).startsWith("RDMA is"));
            final DataInputStream in = new DataInputStream(socket.getInputStream());

            final byte[] connectRequest = new byte[64];
            final MemorySegment requestFrame = MemorySegment.ofArray(connectRequest);
            final long body = ControlFrame.REQUEST_HEADER_OFFSET
                    + new ControlRequestHeader()
                            .wrapForEncode(requestFrame, ControlFrame.REQUEST_HEADER_OFFSET)
                            .apiKey(ControlApiKeys.RDMA_CONNECT)
                            .apiVersion(ControlApiKeys.VERSION)
                            .correlationId(1)
                            .clientId("t")
                            .bodyOffset();
            final int requestLength = (int) body
                    + new RdmaConnectRequest()
                            .wrapForEncode(requestFrame, body)
                            .qpNumber(1)
                            .packetSequenceNumber(2)
                            .ackCredits(8)
                            .mtu(3)
                            .encodedLength();
            ControlFrame.putSize(requestFrame, 0, requestLength);
            socket.getOutputStream().write(connectRequest, 0, requestLength);
            final int size = in.readInt();
            final byte[] connect = new byte[4 + size];
            in.readFully(connect, 4, size);
            final MemorySegment responseFrame = MemorySegment.ofArray(connect);
            final RdmaConnectResponse response =
                    new RdmaConnectResponse().wrap(responseFrame, ControlFrame.RESPONSE_BODY_OFFSET);
            assertThat(ControlFrame.responseCorrelationId(responseFrame, 0)).isEqualTo(1);
            assertThat(response.errorCode()).isEqualTo(ControlErrorCodes.RDMA_UNAVAILABLE);
            assertThat(response.reason())
                    .isEqualTo(broker.rdma().unavailableReason().orElseThrow());

            final short version = 3;
            final ByteBuffer request = new ApiVersionsRequest(
                            new ApiVersionsRequestData()
                                    .setClientSoftwareName("t")
                                    .setClientSoftwareVersion("1"),
                            version)
                    .serializeWithHeader(new RequestHeader(ApiKeys.API_VERSIONS, version, "t", 2));
            final byte[] frame = new byte[4 + request.remaining()];
            ByteBuffer.wrap(frame).putInt(request.remaining()).put(request);
            socket.getOutputStream().write(frame);
            final byte[] versions = new byte[in.readInt()];
            in.readFully(versions);
            final ByteBuffer buffer = ByteBuffer.wrap(versions);
            assertThat(ResponseHeader.parse(buffer, ApiKeys.API_VERSIONS.responseHeaderVersion(version))
                            .correlationId())
                    .as("the connection still serves Kafka requests after a control request")
                    .isEqualTo(2);
            final ApiVersionsResponseData data = new ApiVersionsResponseData(new ByteBufferAccessor(buffer), version);
            assertThat(data.apiKeys().find(ApiKeys.FETCH.id)).isNotNull();
            assertThat(data.apiKeys().find(ControlApiKeys.RDMA_CONNECT))
                    .as("control keys are advertised only while RDMA runs")
                    .isNull();
        } finally {
            broker.close();
        }
    }
}
