package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class ConsumeAccessResponseTest {
    @Test
    void shouldPutEveryFieldAtItsDocumentedOffsetBigEndian() {
        final byte[] bytes = new byte[5 + ConsumeAccessResponse.LENGTH];
        final ConsumeAccessResponse response = new ConsumeAccessResponse()
                .wrapForEncode(MemorySegment.ofArray(bytes), 5)
                .errorCode(ControlErrorCodes.NONE)
                .segmentId(40000)
                .rkey(11)
                .segmentAddress(0x1000)
                .startPosition(64)
                .readablePosition(4096)
                .capacity(1 << 20)
                .segmentBaseOffset(300)
                .slotRegionAddress(0x2000)
                .slotRegionRkey(12)
                .slotIndex(3)
                .slotCount(4)
                .flags(ConsumeAccessResponse.SEALED)
                .abortedAddress(0x3000)
                .abortedRkey(13)
                .abortedCapacity(256)
                .abortedBase(1L << 40);

        final ByteBuffer wire =
                ByteBuffer.wrap(bytes, 5, ConsumeAccessResponse.LENGTH).slice();
        assertThat(response.encodedLength()).isEqualTo(ConsumeAccessResponse.LENGTH);
        assertThat(wire.getShort(ConsumeAccessResponse.ERROR_CODE_OFFSET)).isZero();
        assertThat(wire.getShort(ConsumeAccessResponse.SEGMENT_ID_OFFSET)).isEqualTo((short) 40000);
        assertThat(wire.getInt(ConsumeAccessResponse.RKEY_OFFSET)).isEqualTo(11);
        assertThat(wire.getLong(ConsumeAccessResponse.SEGMENT_ADDRESS_OFFSET)).isEqualTo(0x1000);
        assertThat(wire.getLong(ConsumeAccessResponse.START_POSITION_OFFSET)).isEqualTo(64);
        assertThat(wire.getLong(ConsumeAccessResponse.READABLE_POSITION_OFFSET)).isEqualTo(4096);
        assertThat(wire.getLong(ConsumeAccessResponse.CAPACITY_OFFSET)).isEqualTo(1 << 20);
        assertThat(wire.getLong(ConsumeAccessResponse.SEGMENT_BASE_OFFSET_OFFSET))
                .isEqualTo(300);
        assertThat(wire.getLong(ConsumeAccessResponse.SLOT_REGION_ADDRESS_OFFSET))
                .isEqualTo(0x2000);
        assertThat(wire.getInt(ConsumeAccessResponse.SLOT_REGION_RKEY_OFFSET)).isEqualTo(12);
        assertThat(wire.getInt(ConsumeAccessResponse.SLOT_INDEX_OFFSET)).isEqualTo(3);
        assertThat(wire.getInt(ConsumeAccessResponse.SLOT_COUNT_OFFSET)).isEqualTo(4);
        assertThat(wire.getInt(ConsumeAccessResponse.FLAGS_OFFSET)).isEqualTo(ConsumeAccessResponse.SEALED);
        assertThat(wire.getLong(ConsumeAccessResponse.ABORTED_ADDRESS_OFFSET)).isEqualTo(0x3000);
        assertThat(wire.getInt(ConsumeAccessResponse.ABORTED_RKEY_OFFSET)).isEqualTo(13);
        assertThat(wire.getInt(ConsumeAccessResponse.ABORTED_CAPACITY_OFFSET)).isEqualTo(256);
        assertThat(wire.getLong(ConsumeAccessResponse.ABORTED_BASE_OFFSET)).isEqualTo(1L << 40);

        final ConsumeAccessResponse read = new ConsumeAccessResponse().wrap(MemorySegment.ofArray(bytes), 5);
        assertThat(read.segmentId()).as("unsigned").isEqualTo(40000);
        assertThat(read.rkey()).isEqualTo(11);
        assertThat(read.segmentAddress()).isEqualTo(0x1000);
        assertThat(read.startPosition()).isEqualTo(64);
        assertThat(read.readablePosition()).isEqualTo(4096);
        assertThat(read.capacity()).isEqualTo(1 << 20);
        assertThat(read.segmentBaseOffset()).isEqualTo(300);
        assertThat(read.slotRegionAddress()).isEqualTo(0x2000);
        assertThat(read.slotRegionRkey()).isEqualTo(12);
        assertThat(read.slotIndex()).isEqualTo(3);
        assertThat(read.slotCount()).isEqualTo(4);
        assertThat(read.sealed()).isTrue();
        assertThat(read.abortedAddress()).isEqualTo(0x3000);
        assertThat(read.abortedRkey()).isEqualTo(13);
        assertThat(read.abortedCapacity()).isEqualTo(256);
        assertThat(read.abortedBase()).isEqualTo(1L << 40);
    }

    @Test
    void shouldRejectATruncatedBody() {
        assertThatThrownBy(() -> new ConsumeAccessResponse().wrap(MemorySegment.ofArray(new byte[95]), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated ConsumeAccess response: length=95 needed=96");
    }
}
