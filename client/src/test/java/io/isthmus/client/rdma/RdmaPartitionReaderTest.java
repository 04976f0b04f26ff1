package io.isthmus.client.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.protocol.control.ConsumeAccessResponse;
import io.isthmus.protocol.control.ControlErrorCodes;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class RdmaPartitionReaderTest {
    private static final InetSocketAddress BROKER = InetSocketAddress.createUnresolved("broker", 9092);

    private static ConsumeAccessResponse access(final long start, final long readable, final int flags) {
        return new ConsumeAccessResponse()
                .wrapForEncode(MemorySegment.ofArray(new byte[ConsumeAccessResponse.LENGTH]), 0)
                .errorCode(ControlErrorCodes.NONE)
                .segmentId(7)
                .rkey(42)
                .segmentAddress(0x1000)
                .startPosition(start)
                .readablePosition(readable)
                .capacity(65536)
                .segmentBaseOffset(100)
                .slotRegionAddress(0x2000)
                .slotRegionRkey(43)
                .slotIndex(3)
                .slotCount(4)
                .flags(flags);
    }

    @Test
    void shouldTakeTheGrantAndReadFromTheBatchHoldingTheOffset() {
        final RdmaPartitionReader reader = new RdmaPartitionReader("t", 0);
        reader.seek(105, BROKER);

        reader.granted(access(640, 4096, 0));

        assertThat(reader.needsAccess).isFalse();
        assertThat(reader.segmentId).isEqualTo(7);
        assertThat(reader.readPosition).isEqualTo(640);
        assertThat(reader.readable).isEqualTo(4096);
        assertThat(reader.slotIndex).isEqualTo(3);
        assertThat(reader.nextOffset()).isEqualTo(105);
        assertThat(reader.finishedSealedSegment()).isFalse();
    }

    @Test
    void shouldAskForTheNextSegmentOnlyOnceASealedOneIsReadToItsEnd() {
        final RdmaPartitionReader reader = new RdmaPartitionReader("t", 0);
        reader.seek(0, BROKER);
        reader.granted(access(0, 4096, ConsumeAccessResponse.SEALED));

        assertThat(reader.finishedSealedSegment()).isFalse();
        reader.readPosition = 4096;
        assertThat(reader.finishedSealedSegment()).isTrue();
    }

    @Test
    void shouldAskAgainAfterASeekAndForgetAnOutOfRangeAnswer() {
        final RdmaPartitionReader reader = new RdmaPartitionReader("t", 1);
        reader.seek(0, BROKER);
        reader.granted(access(0, 0, 0));
        reader.outOfRange = true;

        reader.seek(50, BROKER);

        assertThat(reader.needsAccess).isTrue();
        assertThat(reader.outOfRange()).isFalse();
        assertThat(reader.nextOffset()).isEqualTo(50);
        assertThatThrownBy(() -> reader.seek(-1, BROKER))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offset=-1");
    }
}
