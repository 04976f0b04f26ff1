package io.isthmus.broker.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.protocol.control.ControlApiKeys;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ControlFrame;
import io.isthmus.protocol.control.ProduceAccessResponse;
import io.isthmus.protocol.control.ReleaseAccessResponse;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;

class ControlExchangeTest {
    /** Hands out direct buffers full of garbage, as a pool's reused ones are, and keeps them for the test. */
    private static final class RecordingAllocator extends AbstractByteBufAllocator {
        final List<ByteBuf> allocated = new ArrayList<>();

        RecordingAllocator() {
            super(true);
        }

        @Override
        protected ByteBuf newHeapBuffer(final int initialCapacity, final int maxCapacity) {
            return Unpooled.buffer(initialCapacity, maxCapacity);
        }

        @Override
        protected ByteBuf newDirectBuffer(final int initialCapacity, final int maxCapacity) {
            final byte[] garbage = new byte[initialCapacity];
            Arrays.fill(garbage, (byte) 0x5a);
            final ByteBuf buffer = Unpooled.directBuffer(initialCapacity, maxCapacity);
            buffer.setBytes(0, garbage);
            allocated.add(buffer);
            return buffer;
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }
    }

    private final RecordingAllocator allocator = new RecordingAllocator();
    private final ControlExchange exchange = new ControlExchange(
            allocator,
            ControlApiKeys.PRODUCE_ACCESS,
            ControlApiKeys.VERSION,
            77,
            MemorySegment.ofArray(new byte[20]),
            KafkaPrincipal.ANONYMOUS,
            null);

    @Test
    void shouldFrameTheAnswerWithItsSizeAndCorrelationIdOverAZeroedBody() {
        exchange.answer(new ProduceAccessResponse(), ProduceAccessResponse.LENGTH)
                .errorCode(ControlErrorCodes.ACCESS_HELD);
        exchange.complete();

        final ByteBuf frame = exchange.answered().join();
        final byte[] bytes = ByteBufUtil.getBytes(frame);
        frame.release();
        final MemorySegment segment = MemorySegment.ofArray(bytes);
        assertThat(bytes).hasSize(ControlFrame.RESPONSE_BODY_OFFSET + ProduceAccessResponse.LENGTH);
        assertThat(ControlFrame.size(segment, 0)).isEqualTo(4 + ProduceAccessResponse.LENGTH);
        assertThat(ControlFrame.responseCorrelationId(segment, 0)).isEqualTo(77);
        final ProduceAccessResponse answer =
                new ProduceAccessResponse().wrap(segment, ControlFrame.RESPONSE_BODY_OFFSET);
        assertThat(answer.errorCode()).isEqualTo(ControlErrorCodes.ACCESS_HELD);
        assertThat(answer.stagingAddress()).isZero();
        assertThat(answer.wordRkey()).isZero();
    }

    @Test
    void shouldFreeTheAnswerBegunWhenFailedOrAskedForAgain() {
        exchange.answer(new ReleaseAccessResponse(), ReleaseAccessResponse.LENGTH);
        exchange.answer(new ProduceAccessResponse(), ProduceAccessResponse.LENGTH);
        assertThat(allocator.allocated.getFirst().refCnt()).isZero();

        exchange.fail(new IllegalStateException("datapath closed"));

        assertThat(allocator.allocated.get(1).refCnt()).isZero();
        assertThat(exchange.answered()).isCompletedExceptionally();
    }

    @Test
    void shouldFreeAnAnswerCompletedAfterTheExchangeFailed() {
        exchange.fail(new IllegalStateException("connection gave up"));

        exchange.answer(new ReleaseAccessResponse(), ReleaseAccessResponse.LENGTH);
        exchange.complete();

        assertThat(allocator.allocated.getFirst().refCnt()).isZero();
    }

    @Test
    void shouldRefuseToCompleteWithoutAnAnswer() {
        assertThatThrownBy(exchange::complete)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("without an answer: apiKey=32001 correlationId=77");
    }
}
