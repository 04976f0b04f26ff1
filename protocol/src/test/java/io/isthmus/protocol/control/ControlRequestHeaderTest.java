package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.junit.jupiter.api.Test;

class ControlRequestHeaderTest {
    @Test
    void shouldPutEveryFieldAtItsDocumentedOffsetBigEndian() {
        final byte[] bytes = new byte[20];
        final ControlRequestHeader header = new ControlRequestHeader()
                .wrapForEncode(MemorySegment.ofArray(bytes), 3)
                .apiKey(ControlApiKeys.PRODUCE_ACCESS)
                .apiVersion((short) 0)
                .correlationId(77)
                .clientId("me");

        final ByteBuffer wire = ByteBuffer.wrap(bytes, 3, bytes.length - 3).slice();
        assertThat(header.bodyOffset()).isEqualTo(header.encodedLength()).isEqualTo(8 + 2 + 2 + 1);
        assertThat(wire.getShort(ControlHeaderDescriptor.API_KEY_OFFSET)).isEqualTo(ControlApiKeys.PRODUCE_ACCESS);
        assertThat(wire.getShort(ControlHeaderDescriptor.API_VERSION_OFFSET)).isZero();
        assertThat(wire.getInt(ControlHeaderDescriptor.CORRELATION_ID_OFFSET)).isEqualTo(77);
        assertThat(wire.getShort(ControlHeaderDescriptor.CLIENT_ID_OFFSET)).isEqualTo((short) 2);
        assertThat(wire.get(ControlHeaderDescriptor.CLIENT_ID_OFFSET + 4))
                .as("no tagged fields")
                .isZero();

        final ControlRequestHeader read = new ControlRequestHeader().wrap(MemorySegment.ofArray(bytes), 3);
        assertThat(read.apiKey()).isEqualTo(ControlApiKeys.PRODUCE_ACCESS);
        assertThat(read.apiVersion()).isZero();
        assertThat(read.correlationId()).isEqualTo(77);
        assertThat(read.clientId()).isEqualTo("me");
        assertThat(read.bodyOffset()).isEqualTo(header.bodyOffset());
    }

    @Test
    void shouldBeReadableAsAKafkaRequestHeaderV2() {
        final byte[] bytes = new byte[32];
        final int length = new ControlRequestHeader()
                .wrapForEncode(MemorySegment.ofArray(bytes), 0)
                .apiKey(ControlApiKeys.RDMA_CONNECT)
                .correlationId(5)
                .clientId("client-1")
                .encodedLength();

        final RequestHeaderData kafka =
                new RequestHeaderData(new ByteBufferAccessor(ByteBuffer.wrap(bytes, 0, length)), (short) 2);

        assertThat(kafka.requestApiKey()).isEqualTo(ControlApiKeys.RDMA_CONNECT);
        assertThat(kafka.correlationId()).isEqualTo(5);
        assertThat(kafka.clientId()).isEqualTo("client-1");
    }

    @Test
    void shouldSkipTaggedFieldsWrittenByKafkasEncoder() {
        final RequestHeaderData kafka = new RequestHeaderData()
                .setRequestApiKey(ControlApiKeys.CONSUME_ACCESS)
                .setRequestApiVersion((short) 0)
                .setCorrelationId(9)
                .setClientId(null);
        kafka.unknownTaggedFields()
                .add(new org.apache.kafka.common.protocol.types.RawTaggedField(3, new byte[] {1, 2, 3, 4, 5}));
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final ByteBuffer buffer = ByteBuffer.allocate(kafka.size(cache, (short) 2) + 1);
        kafka.write(new ByteBufferAccessor(buffer), cache, (short) 2);
        buffer.put((byte) 42);

        final MemorySegment segment = MemorySegment.ofArray(buffer.array());
        final ControlRequestHeader decoded = new ControlRequestHeader().wrap(segment, 0);

        assertThat(decoded.clientId()).isNull();
        assertThat(decoded.correlationId()).isEqualTo(9);
        assertThat(segment.get(ValueLayout.JAVA_BYTE, decoded.bodyOffset())).isEqualTo((byte) 42);
    }

    @Test
    void shouldRejectATruncatedHeader() {
        final MemorySegment segment = MemorySegment.ofArray(new byte[] {0x7d, 0x00, 0, 0, 0, 0, 0, 1, 0, 9, 'a'});

        assertThatThrownBy(() -> new ControlRequestHeader().wrap(segment, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated request header: clientId runs past the message");
    }

    @Test
    void shouldRejectAHeaderWithoutItsTaggedFieldCountOrWithATaggedFieldRunningPastIt() {
        final MemorySegment noCount = MemorySegment.ofArray(new byte[] {0x7d, 0x00, 0, 0, 0, 0, 0, 1, 0, 1, 'a'});
        final MemorySegment pastEnd =
                MemorySegment.ofArray(new byte[] {0x7d, 0x00, 0, 0, 0, 0, 0, 1, 0, 1, 'a', 1, 3, 9, 1, 2});

        assertThatThrownBy(() -> new ControlRequestHeader().wrap(noCount, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated varint");
        assertThatThrownBy(() -> new ControlRequestHeader().wrap(pastEnd, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a tagged field runs past the message");
    }
}
