package io.isthmus.broker.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.protocol.control.ConsumeAccessRequest;
import io.isthmus.protocol.control.ConsumeAccessResponse;
import io.isthmus.protocol.control.ControlApiKeys;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ControlMessage;
import io.isthmus.protocol.control.ControlRequestHeader;
import io.isthmus.protocol.control.ProduceAccessRequest;
import io.isthmus.protocol.control.ProduceAccessResponse;
import io.isthmus.protocol.control.RdmaConnectRequest;
import io.isthmus.protocol.control.RdmaConnectResponse;
import java.lang.foreign.MemorySegment;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

class RdmaControlHandlerTest {
    private final RdmaControlHandler handler = new RdmaControlHandler(null, "RDMA is unavailable: no RDMA devices");

    private static MemorySegment body(final ControlMessage message) {
        final MemorySegment segment = MemorySegment.ofArray(new byte[message.encodedLength()]);
        message.encode(segment, 0);
        return segment;
    }

    private static ControlRequestHeader header(final short apiKey) {
        return ControlRequestHeader.of(apiKey, ControlApiKeys.VERSION, 1, "test");
    }

    @Test
    void shouldHandleOnlyItsOwnKeys() {
        assertThat(handler.handles(ControlApiKeys.RDMA_CONNECT)).isTrue();
        assertThat(handler.handles(ControlApiKeys.RELEASE_ACCESS)).isTrue();
        assertThat(handler.handles((short) (ControlApiKeys.RELEASE_ACCESS + 1))).isFalse();
        assertThat(handler.handles(ApiKeys.FETCH.id)).isFalse();
    }

    @Test
    void shouldAnswerConnectWithTheReasonRdmaIsUnavailable() throws Exception {
        final ControlMessage answer = handler.handle(
                        3,
                        header(ControlApiKeys.RDMA_CONNECT),
                        body(new RdmaConnectRequest(1, 2, 0, new byte[16], 8, 3)))
                .get();

        assertThat(answer).isInstanceOf(RdmaConnectResponse.class);
        final RdmaConnectResponse response = (RdmaConnectResponse) answer;
        assertThat(response.errorCode()).isEqualTo(ControlErrorCodes.RDMA_UNAVAILABLE);
        assertThat(response.reason()).isEqualTo("RDMA is unavailable: no RDMA devices");
        assertThat(response.capabilities()).isZero();
    }

    @Test
    void shouldAnswerAccessRequestsWithRdmaUnavailable() throws Exception {
        final ProduceAccessResponse produce = (ProduceAccessResponse)
                handler.handle(3, header(ControlApiKeys.PRODUCE_ACCESS), body(ProduceAccessRequest.of("t", 0)))
                        .get();
        final ConsumeAccessResponse consume = (ConsumeAccessResponse)
                handler.handle(3, header(ControlApiKeys.CONSUME_ACCESS), body(new ConsumeAccessRequest("t", 0, 0)))
                        .get();

        assertThat(produce.errorCode()).isEqualTo(ControlErrorCodes.RDMA_UNAVAILABLE);
        assertThat(consume.errorCode()).isEqualTo(ControlErrorCodes.RDMA_UNAVAILABLE);
        assertThat(handler.invocations()).isEqualTo(2);
    }

    @Test
    void shouldRejectAMalformedBodyAndAnUnknownVersion() {
        assertThatThrownBy(() ->
                        handler.handle(3, header(ControlApiKeys.RDMA_CONNECT), MemorySegment.ofArray(new byte[3])))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated RdmaConnect request");
        assertThatThrownBy(() -> handler.handle(
                        3,
                        ControlRequestHeader.of(ControlApiKeys.RELEASE_ACCESS, (short) 1, 1, "x"),
                        MemorySegment.ofArray(new byte[16])))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("version=1");
    }
}
