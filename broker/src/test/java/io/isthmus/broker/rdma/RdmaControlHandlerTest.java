package io.isthmus.broker.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.network.ControlExchange;
import io.isthmus.protocol.control.ConsumeAccessRequest;
import io.isthmus.protocol.control.ConsumeAccessResponse;
import io.isthmus.protocol.control.ControlApiKeys;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ControlFlyweight;
import io.isthmus.protocol.control.ControlFrame;
import io.isthmus.protocol.control.ProduceAccessRequest;
import io.isthmus.protocol.control.ProduceAccessResponse;
import io.isthmus.protocol.control.RdmaConnectRequest;
import io.isthmus.protocol.control.RdmaConnectResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.lang.foreign.MemorySegment;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;

class RdmaControlHandlerTest {
    private final RdmaControlHandler handler = new RdmaControlHandler(null, "RDMA is unavailable: no RDMA devices");

    private static ControlExchange exchange(final short apiKey, final short version, final MemorySegment body) {
        return new ControlExchange(
                UnpooledByteBufAllocator.DEFAULT, apiKey, version, 41, body, KafkaPrincipal.ANONYMOUS, null);
    }

    private static ControlExchange exchange(final short apiKey, final MemorySegment body) {
        return exchange(apiKey, ControlApiKeys.VERSION, body);
    }

    /** The answer's body, checked to be framed with its size and correlation id; frees the answer's frame. */
    private static <T extends ControlFlyweight<T>> T answer(final ControlExchange exchange, final T response) {
        final ByteBuf frame = exchange.answered().join();
        final byte[] bytes = ByteBufUtil.getBytes(frame);
        frame.release();
        final MemorySegment segment = MemorySegment.ofArray(bytes);
        assertThat(ControlFrame.size(segment, 0)).isEqualTo(bytes.length - 4);
        assertThat(ControlFrame.responseCorrelationId(segment, 0)).isEqualTo(41);
        return response.wrap(segment, ControlFrame.RESPONSE_BODY_OFFSET);
    }

    @Test
    void shouldHandleOnlyItsOwnKeys() {
        assertThat(handler.handles(ControlApiKeys.RDMA_CONNECT)).isTrue();
        assertThat(handler.handles(ControlApiKeys.RELEASE_ACCESS)).isTrue();
        assertThat(handler.handles((short) (ControlApiKeys.RELEASE_ACCESS + 1))).isFalse();
        assertThat(handler.handles(ApiKeys.FETCH.id)).isFalse();
    }

    @Test
    void shouldAnswerConnectWithTheReasonRdmaIsUnavailable() {
        final MemorySegment body = MemorySegment.ofArray(new byte[RdmaConnectRequest.LENGTH]);
        new RdmaConnectRequest()
                .wrapForEncode(body, 0)
                .qpNumber(1)
                .packetSequenceNumber(2)
                .ackCredits(8)
                .mtu(3);
        final ControlExchange exchange = exchange(ControlApiKeys.RDMA_CONNECT, body);

        handler.handle(3, exchange);

        final RdmaConnectResponse response = answer(exchange, new RdmaConnectResponse());
        assertThat(response.errorCode()).isEqualTo(ControlErrorCodes.RDMA_UNAVAILABLE);
        assertThat(response.reason()).isEqualTo("RDMA is unavailable: no RDMA devices");
        assertThat(response.capabilities()).isZero();
    }

    @Test
    void shouldAnswerAccessRequestsWithRdmaUnavailable() {
        final MemorySegment produceBody = MemorySegment.ofArray(new byte[64]);
        new ProduceAccessRequest().wrapForEncode(produceBody, 0).topic("t");
        final MemorySegment consumeBody = MemorySegment.ofArray(new byte[32]);
        new ConsumeAccessRequest().wrapForEncode(consumeBody, 0).topic("t");
        final ControlExchange produce = exchange(ControlApiKeys.PRODUCE_ACCESS, produceBody);
        final ControlExchange consume = exchange(ControlApiKeys.CONSUME_ACCESS, consumeBody);

        handler.handle(3, produce);
        handler.handle(3, consume);

        assertThat(answer(produce, new ProduceAccessResponse()).errorCode())
                .isEqualTo(ControlErrorCodes.RDMA_UNAVAILABLE);
        assertThat(answer(consume, new ConsumeAccessResponse()).errorCode())
                .isEqualTo(ControlErrorCodes.RDMA_UNAVAILABLE);
        assertThat(handler.invocations()).isEqualTo(2);
    }

    @Test
    void shouldRejectAMalformedBodyAndAnUnknownVersion() {
        final ControlExchange truncated = exchange(ControlApiKeys.RDMA_CONNECT, MemorySegment.ofArray(new byte[3]));
        final ControlExchange newer = exchange(
                ControlApiKeys.RELEASE_ACCESS,
                (short) (ControlApiKeys.VERSION + 1),
                MemorySegment.ofArray(new byte[16]));

        assertThatThrownBy(() -> handler.handle(3, truncated))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated RdmaConnect request: length=3 needed=36");
        assertThatThrownBy(() -> handler.handle(3, newer))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "version=" + (ControlApiKeys.VERSION + 1) + " supported=" + ControlApiKeys.VERSION);
        assertThat(truncated.answered()).isNotDone();
    }
}
