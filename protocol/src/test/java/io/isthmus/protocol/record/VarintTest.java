package io.isthmus.protocol.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Random;
import org.apache.kafka.common.utils.internals.ByteUtils;
import org.junit.jupiter.api.Test;

/** Varints against Kafka's ByteUtils, byte for byte. */
class VarintTest {
    private static final int[] INT_EDGES = {
        0, 1, -1, 63, -64, 64, -65, 8191, -8192, 8192, 1 << 20, -(1 << 20), Integer.MAX_VALUE, Integer.MIN_VALUE
    };
    private static final long[] LONG_EDGES = {
        0, 1, -1, 63, -64, 64, 8191, -8192, 8192, -8193, 1L << 40, -(1L << 40), Long.MAX_VALUE, Long.MIN_VALUE
    };

    @Test
    void shouldMatchKafkaVarintsByteForByte() {
        final Random random = new Random(3);
        final MemorySegment ours = MemorySegment.ofArray(new byte[16]);
        for (int i = 0; i < 20_000; i++) {
            final int v = i < INT_EDGES.length ? INT_EDGES[i] : random.nextInt() >> random.nextInt(32);
            final ByteBuffer kafka = ByteBuffer.allocate(16);
            ByteUtils.writeVarint(v, kafka);
            final int n = Varint.writeVarint(ours, 0, v);
            assertThat(n)
                    .isEqualTo(kafka.position())
                    .isEqualTo(Varint.sizeOfVarint(v))
                    .isEqualTo(ByteUtils.sizeOfVarint(v));
            assertThat(ours.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo(java.util.Arrays.copyOf(kafka.array(), n));
            assertThat(Varint.readVarint(ours, 0, n)).isEqualTo(v);
            assertThat(Varint.lengthOfVarintAt(ours, 0, 16)).isEqualTo(n);
            assertThat(new Varint.Reader().reset(ours, 0, n).readVarint()).isEqualTo(v);
        }
    }

    @Test
    void shouldMatchKafkaVarlongsByteForByte() {
        final Random random = new Random(4);
        final MemorySegment ours = MemorySegment.ofArray(new byte[16]);
        for (int i = 0; i < 20_000; i++) {
            final long v = i < LONG_EDGES.length ? LONG_EDGES[i] : random.nextLong() >> random.nextInt(64);
            final ByteBuffer kafka = ByteBuffer.allocate(16);
            ByteUtils.writeVarlong(v, kafka);
            final int n = Varint.writeVarlong(ours, 0, v);
            assertThat(n)
                    .isEqualTo(kafka.position())
                    .isEqualTo(Varint.sizeOfVarlong(v))
                    .isEqualTo(ByteUtils.sizeOfVarlong(v));
            assertThat(ours.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo(java.util.Arrays.copyOf(kafka.array(), n));
            assertThat(Varint.readVarlong(ours, 0, n)).isEqualTo(v);
            final Varint.Reader reader = new Varint.Reader().reset(ours, 0, 16);
            assertThat(reader.readVarlong()).isEqualTo(v);
            assertThat(reader.position()).isEqualTo(n);
        }
    }

    @Test
    void shouldSizeUnsignedVarints() {
        assertThat(Varint.sizeOfUnsignedVarint(0)).isEqualTo(1);
        assertThat(Varint.sizeOfUnsignedVarint(127)).isEqualTo(1);
        assertThat(Varint.sizeOfUnsignedVarint(128)).isEqualTo(2);
        assertThat(Varint.sizeOfUnsignedVarint(-1)).isEqualTo(5);
        assertThat(Varint.sizeOfUnsignedVarlong(-1L)).isEqualTo(10);
    }

    @Test
    void shouldAcceptNonCanonicalEncodingsLikeKafka() {
        // 0 padded to three bytes.
        final MemorySegment s = MemorySegment.ofArray(new byte[] {(byte) 0x80, (byte) 0x80, 0x00});
        assertThat(Varint.readVarint(s, 0, 3)).isZero();
        assertThat(Varint.lengthOfVarintAt(s, 0, 3)).isEqualTo(3);
        assertThat(ByteUtils.readVarint(ByteBuffer.wrap(new byte[] {(byte) 0x80, (byte) 0x80, 0x00})))
                .isZero();
    }

    @Test
    void shouldRejectOverlongAndTruncatedVarints() {
        final MemorySegment six = MemorySegment.ofArray(
                new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x00});
        assertThatThrownBy(() -> Varint.readVarint(six, 0, 6))
                .isInstanceOfSatisfying(InvalidRecordBatchException.class, e -> {
                    assertThat(e.reason()).isEqualTo(InvalidRecordBatchException.Reason.INVALID_VARINT);
                    assertThat(e.expected()).isEqualTo("at most 5 bytes");
                });
        assertThatThrownBy(() -> Varint.lengthOfVarintAt(six, 0, 6)).isInstanceOf(InvalidRecordBatchException.class);
        assertThatThrownBy(() -> Varint.readVarint(six, 0, 3)).isInstanceOf(InvalidRecordBatchException.class);
        final byte[] elevenBytes = new byte[11];
        java.util.Arrays.fill(elevenBytes, 0, 10, (byte) 0x80);
        final MemorySegment eleven = MemorySegment.ofArray(elevenBytes);
        assertThatThrownBy(() -> Varint.readVarlong(eleven, 0, 11))
                .isInstanceOfSatisfying(InvalidRecordBatchException.class, e -> assertThat(e.expected())
                        .isEqualTo("at most 10 bytes"));
        assertThatThrownBy(() -> new Varint.Reader().reset(eleven, 0, 4).readVarlong())
                .isInstanceOf(InvalidRecordBatchException.class);
        // Reading at the segment's end, whatever the limit says.
        assertThatThrownBy(() -> Varint.readVarint(MemorySegment.ofArray(new byte[] {(byte) 0x81}), 0, 100))
                .isInstanceOf(InvalidRecordBatchException.class);
    }
}
