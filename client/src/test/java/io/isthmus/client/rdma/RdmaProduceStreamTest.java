package io.isthmus.client.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ProduceAccessResponse;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class RdmaProduceStreamTest {
    private static final InetSocketAddress BROKER = InetSocketAddress.createUnresolved("broker", 9092);

    /** An exclusive grant, in a response frame as a connection returns it. */
    private static ProduceAccessResponse exclusive(
            final int segmentId, final long tail, final long capacity, final int firstOrder) {
        return new ProduceAccessResponse()
                .wrapForEncode(MemorySegment.ofArray(new byte[ProduceAccessResponse.LENGTH]), 0)
                .errorCode(ControlErrorCodes.NONE)
                .segmentId(segmentId)
                .stagingRkey(77)
                .stagingAddress(0x4000)
                .stagingSlotBytes(1 << 20)
                .tailPosition(tail)
                .capacity(capacity)
                .segmentBaseOffset(500)
                .firstOrder(firstOrder);
    }

    @Test
    void shouldKeepTheGrantedTailOrderAndStagingSlots() {
        final RdmaProduceStream stream = new RdmaProduceStream("t", 2, BROKER);
        assertThat(stream.needsAccess).isTrue();

        final ProduceAccessResponse access = exclusive(9, 1234, 65536, 17);
        stream.granted(access);
        access.segment().fill((byte) 0); // the connection's next request reuses the response frame

        assertThat(stream.needsAccess).isFalse();
        assertThat(stream.segmentId).isEqualTo(9);
        assertThat(stream.tail).isEqualTo(1234);
        assertThat(stream.capacity).isEqualTo(65536);
        assertThat(stream.nextOrder).isEqualTo(17);
        assertThat(stream.stagingRkey).isEqualTo(77);
        assertThat(stream.stagingAddress).isEqualTo(0x4000);
        assertThat(stream.stagingSlotBytes).isEqualTo(1 << 20);
    }

    @Test
    void shouldAskForAccessAgainOnlyWhenTheLeaderMoves() {
        final RdmaProduceStream stream = new RdmaProduceStream("t", 0, BROKER);
        stream.granted(exclusive(1, 0, 100, 0));

        stream.leader(InetSocketAddress.createUnresolved("broker", 9092));
        assertThat(stream.needsAccess).isFalse();

        stream.leader(InetSocketAddress.createUnresolved("other", 9092));
        assertThat(stream.needsAccess).isTrue();
    }
}
