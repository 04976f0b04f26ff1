package io.isthmus.client.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.protocol.control.ProduceAccessResponse;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class RdmaProduceStreamTest {
    private static final InetSocketAddress BROKER = InetSocketAddress.createUnresolved("broker", 9092);

    @Test
    void shouldWriteAtTheGrantedTailWithTheGrantedOrder() {
        final RdmaProduceStream stream = new RdmaProduceStream("t", 2, BROKER);
        assertThat(stream.needsAccess).isTrue();

        stream.granted(ProduceAccessResponse.exclusive(9, 77, 0x4000, 1234, 65536, 500, 17));

        assertThat(stream.needsAccess).isFalse();
        assertThat(stream.segmentId).isEqualTo(9);
        assertThat(stream.tail).isEqualTo(1234);
        assertThat(stream.capacity).isEqualTo(65536);
        assertThat(stream.nextOrder).isEqualTo(17);
    }

    @Test
    void shouldAskForAccessAgainOnlyWhenTheLeaderMoves() {
        final RdmaProduceStream stream = new RdmaProduceStream("t", 0, BROKER);
        stream.granted(ProduceAccessResponse.exclusive(1, 2, 3, 0, 100, 0, 0));

        stream.leader(InetSocketAddress.createUnresolved("broker", 9092));
        assertThat(stream.needsAccess).isFalse();

        stream.leader(InetSocketAddress.createUnresolved("other", 9092));
        assertThat(stream.needsAccess).isTrue();
    }
}
