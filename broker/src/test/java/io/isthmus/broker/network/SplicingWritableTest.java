package io.isthmus.broker.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordsSend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SplicingWritableTest {
    private static final int[] INTS = {
        0,
        1,
        -1,
        63,
        64,
        -64,
        -65,
        127,
        128,
        8191,
        8192,
        16383,
        16384,
        2097151,
        2097152,
        268435455,
        268435456,
        Integer.MAX_VALUE,
        Integer.MIN_VALUE,
        Integer.MAX_VALUE - 1,
        Integer.MIN_VALUE + 1
    };
    private static final long[] LONGS = {
        0,
        1,
        -1,
        63,
        64,
        -64,
        -65,
        127,
        128,
        Integer.MAX_VALUE,
        Integer.MIN_VALUE,
        1L << 35,
        -(1L << 35),
        (1L << 62) - 1,
        1L << 62,
        Long.MAX_VALUE,
        Long.MIN_VALUE,
        Long.MAX_VALUE - 1,
        Long.MIN_VALUE + 1
    };

    @TempDir
    Path tmp;

    /** The bytes SplicingWritable writes, and what kafka-clients' own ByteBufferAccessor writes, for the same calls. */
    private static void assertSameBytesAsKafka(final Consumer<Writable> writes) {
        final ByteBuffer expected = ByteBuffer.allocate(1024);
        writes.accept(new ByteBufferAccessor(expected));
        expected.flip();

        final SplicingWritable writable = new SplicingWritable(ByteBufAllocator.DEFAULT, 1);
        writes.accept(writable);
        final List<Object> parts = writable.finish();

        assertThat(parts).hasSize(1);
        final ByteBuf buf = (ByteBuf) parts.getFirst();
        try {
            final byte[] actual = new byte[buf.readableBytes()];
            buf.getBytes(buf.readerIndex(), actual);
            final byte[] expectedBytes = new byte[expected.remaining()];
            expected.get(expectedBytes);
            assertThat(actual).isEqualTo(expectedBytes);
        } finally {
            buf.release();
        }
    }

    @Test
    void shouldWriteUnsignedVarintsAsKafkaDoes() {
        for (final int value : INTS) {
            assertSameBytesAsKafka(w -> w.writeUnsignedVarint(value));
        }
    }

    @Test
    void shouldWriteVarintsAsKafkaDoes() {
        for (final int value : INTS) {
            assertSameBytesAsKafka(w -> w.writeVarint(value));
        }
    }

    @Test
    void shouldWriteVarlongsAsKafkaDoes() {
        for (final long value : LONGS) {
            assertSameBytesAsKafka(w -> w.writeVarlong(value));
        }
    }

    @Test
    void shouldWriteFixedWidthFieldsAsKafkaDoes() {
        final Uuid uuid = Uuid.randomUuid();
        assertSameBytesAsKafka(w -> {
            w.writeByte((byte) -7);
            w.writeShort((short) -2);
            w.writeInt(0xCAFEBABE);
            w.writeLong(Long.MIN_VALUE + 3);
            w.writeDouble(Math.PI);
            w.writeByteArray(new byte[] {1, 2, 3});
            w.writeByteBuffer(ByteBuffer.wrap(new byte[] {4, 5}));
            w.writeUuid(uuid);
            w.writeUnsignedShort(65535);
            w.writeUnsignedInt(4294967295L);
        });
    }

    @Test
    void shouldGrowPastItsInitialCapacity() {
        final byte[] big = new byte[10_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) i;
        }
        final SplicingWritable writable = new SplicingWritable(ByteBufAllocator.DEFAULT, 16);

        writable.writeByteArray(big);

        final ByteBuf buf = (ByteBuf) writable.finish().getFirst();
        try {
            final byte[] actual = new byte[buf.readableBytes()];
            buf.getBytes(buf.readerIndex(), actual);
            assertThat(actual).isEqualTo(big);
        } finally {
            buf.release();
        }
    }

    @Test
    void shouldNotConsumeTheCallersBuffers() {
        final ByteBuffer buffer = ByteBuffer.wrap(new byte[] {1, 2, 3});
        final MemoryRecords records = MemoryRecords.readableRecords(ByteBuffer.wrap(new byte[] {9, 8}));
        final SplicingWritable writable = new SplicingWritable(ByteBufAllocator.DEFAULT, 16);

        writable.writeByteBuffer(buffer);
        writable.writeRecords(records);

        assertThat(buffer.remaining()).isEqualTo(3);
        assertThat(records.buffer().remaining()).isEqualTo(2);
        final ByteBuf buf = (ByteBuf) writable.finish().getFirst();
        assertThat(buf.readableBytes()).isEqualTo(5);
        buf.release();
    }

    @Test
    void shouldEndWithTheFileRegionWhenNothingFollowsIt() throws Exception {
        final Path path = tmp.resolve("segment");
        Files.write(path, new byte[100]);
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            final SplicingWritable writable = new SplicingWritable(ByteBufAllocator.DEFAULT, 200);
            writable.writeInt(100);
            writable.writeRecords(new FileRegionRecords(channel, 0, 100));

            final List<Object> parts = writable.finish();

            assertThat(parts).hasSize(2);
            assertThat(parts.get(0)).isInstanceOf(ByteBuf.class);
            assertThat(parts.get(1)).isInstanceOf(SegmentFileRegion.class);
            parts.forEach(ReferenceCountUtil::release);
        }
    }

    @Test
    void shouldRefuseRecordsItCannotSend() {
        final BaseRecords unknown = new BaseRecords() {
            @Override
            public int sizeInBytes() {
                return 0;
            }

            @Override
            public RecordsSend<? extends BaseRecords> toSend() {
                throw new UnsupportedOperationException();
            }
        };
        final SplicingWritable writable = new SplicingWritable(ByteBufAllocator.DEFAULT, 16);

        assertThatThrownBy(() -> writable.writeRecords(unknown)).isInstanceOf(IllegalArgumentException.class);
        writable.finish().forEach(ReferenceCountUtil::release);
    }
}
