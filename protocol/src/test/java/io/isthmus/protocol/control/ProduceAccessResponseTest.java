package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ProduceAccessResponseTest {
    @Test
    void shouldPutEveryFieldAtItsDocumentedOffsetBigEndian() {
        final byte[] bytes = new byte[5 + ProduceAccessResponse.LENGTH];
        Arrays.fill(bytes, (byte) 0x5a); // what a reused buffer held before
        final ProduceAccessResponse response = new ProduceAccessResponse()
                .wrapForEncode(MemorySegment.ofArray(bytes), 5)
                .errorCode(ControlErrorCodes.NONE)
                .segmentId(65000)
                .stagingRkey(0x1234)
                .stagingAddress(0x7f00_0000_1000L)
                .tailPosition(4096)
                .capacity(1 << 30)
                .segmentBaseOffset(500)
                .firstOrder(17)
                .flags(ProduceAccessResponse.SHARED)
                .wordAddress(0x7f11_2222_3338L)
                .wordRkey(0xbeef)
                .stagingSlotBytes(1_048_640);

        final ByteBuffer wire =
                ByteBuffer.wrap(bytes, 5, ProduceAccessResponse.LENGTH).slice();
        assertThat(response.encodedLength()).isEqualTo(ProduceAccessResponse.LENGTH);
        assertThat(wire.getShort(ProduceAccessResponse.ERROR_CODE_OFFSET)).isZero();
        assertThat(wire.getShort(ProduceAccessResponse.SEGMENT_ID_OFFSET)).isEqualTo((short) 65000);
        assertThat(wire.getInt(ProduceAccessResponse.STAGING_RKEY_OFFSET)).isEqualTo(0x1234);
        assertThat(wire.getLong(ProduceAccessResponse.STAGING_ADDRESS_OFFSET)).isEqualTo(0x7f00_0000_1000L);
        assertThat(wire.getLong(ProduceAccessResponse.TAIL_POSITION_OFFSET)).isEqualTo(4096);
        assertThat(wire.getLong(ProduceAccessResponse.CAPACITY_OFFSET)).isEqualTo(1 << 30);
        assertThat(wire.getLong(ProduceAccessResponse.SEGMENT_BASE_OFFSET_OFFSET))
                .isEqualTo(500);
        assertThat(wire.getInt(ProduceAccessResponse.FIRST_ORDER_OFFSET)).isEqualTo(17);
        assertThat(wire.getInt(ProduceAccessResponse.FLAGS_OFFSET)).isEqualTo(ProduceAccessResponse.SHARED);
        assertThat(wire.getLong(ProduceAccessResponse.WORD_ADDRESS_OFFSET)).isEqualTo(0x7f11_2222_3338L);
        assertThat(wire.getInt(ProduceAccessResponse.WORD_RKEY_OFFSET)).isEqualTo(0xbeef);
        assertThat(wire.getInt(ProduceAccessResponse.STAGING_SLOT_BYTES_OFFSET)).isEqualTo(1_048_640);
        assertThat(ProduceAccessResponse.STAGING_SLOT_BYTES_OFFSET + 4).isEqualTo(ProduceAccessResponse.LENGTH);

        final ProduceAccessResponse read = new ProduceAccessResponse().wrap(MemorySegment.ofArray(bytes), 5);
        assertThat(read.segmentId()).as("unsigned").isEqualTo(65000);
        assertThat(read.stagingRkey()).isEqualTo(0x1234);
        assertThat(read.stagingAddress()).isEqualTo(0x7f00_0000_1000L);
        assertThat(read.stagingSlotBytes()).isEqualTo(1_048_640);
        assertThat(read.tailPosition()).isEqualTo(4096);
        assertThat(read.capacity()).isEqualTo(1 << 30);
        assertThat(read.segmentBaseOffset()).isEqualTo(500);
        assertThat(read.firstOrder()).isEqualTo(17);
        assertThat(read.shared()).isTrue();
        assertThat(read.wordAddress()).isEqualTo(0x7f11_2222_3338L);
        assertThat(read.wordRkey()).isEqualTo(0xbeef);
    }

    @Test
    void shouldCarryOnlyTheCodeOfAnError() {
        final byte[] bytes = new byte[ProduceAccessResponse.LENGTH];
        Arrays.fill(bytes, (byte) -1);

        new ProduceAccessResponse()
                .wrapForEncode(MemorySegment.ofArray(bytes), 0)
                .errorCode(ControlErrorCodes.ACCESS_HELD);

        final ProduceAccessResponse read = new ProduceAccessResponse().wrap(MemorySegment.ofArray(bytes), 0);
        assertThat(read.errorCode()).isEqualTo(ControlErrorCodes.ACCESS_HELD);
        assertThat(Arrays.copyOfRange(bytes, 2, bytes.length)).containsOnly(0);
    }

    @Test
    void shouldRejectATruncatedBody() {
        assertThatThrownBy(() -> new ProduceAccessResponse().wrap(MemorySegment.ofArray(new byte[64]), 8))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated ProduceAccess response: length=56 needed=64");
    }
}
