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
    void shouldRoundTripAHeader() {
        final ControlRequestHeader header = ControlRequestHeader.of(ControlApiKeys.PRODUCE_ACCESS, (short) 0, 77, "me");
        final MemorySegment segment = MemorySegment.ofArray(new byte[header.encodedLength() + 3]);

        final int written = header.encode(segment, 3);
        final ControlRequestHeader decoded = ControlRequestHeader.decode(segment, 3);

        assertThat(written).isEqualTo(header.encodedLength()).isEqualTo(8 + 2 + 2 + 1);
        assertThat(decoded).isEqualTo(header);
        assertThat(decoded.bodyOffset()).isEqualTo(written);
    }

    @Test
    void shouldBeReadableAsAKafkaRequestHeaderV2() {
        final ControlRequestHeader header =
                ControlRequestHeader.of(ControlApiKeys.RDMA_CONNECT, (short) 0, 5, "client-1");
        final byte[] bytes = new byte[header.encodedLength()];
        header.encode(MemorySegment.ofArray(bytes), 0);

        final RequestHeaderData kafka =
                new RequestHeaderData(new ByteBufferAccessor(ByteBuffer.wrap(bytes)), (short) 2);

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
        final ControlRequestHeader decoded = ControlRequestHeader.decode(segment, 0);

        assertThat(decoded.clientId()).isNull();
        assertThat(decoded.correlationId()).isEqualTo(9);
        assertThat(segment.get(ValueLayout.JAVA_BYTE, decoded.bodyOffset())).isEqualTo((byte) 42);
    }

    @Test
    void shouldRejectATruncatedHeader() {
        final MemorySegment segment = MemorySegment.ofArray(new byte[] {0x7d, 0x00, 0, 0, 0, 0, 0, 1, 0, 9, 'a'});

        assertThatThrownBy(() -> ControlRequestHeader.decode(segment, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("runs past the message");
    }
}
