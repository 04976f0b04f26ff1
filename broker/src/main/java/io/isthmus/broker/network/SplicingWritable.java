package io.isthmus.broker.network;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * A kafka-clients {@link Writable} that lays a response out as Netty messages in wire order: direct
 * {@link ByteBuf}s for the generated protocol fields, and a {@link SegmentFileRegion} wherever a records
 * field holds {@link FileRegionRecords}, so log bytes go from the segment file to the socket with
 * {@code sendfile}, never through the heap.
 */
final class SplicingWritable implements Writable {
    private static final int MAX_INITIAL_CAPACITY = 4096;

    private final ByteBufAllocator allocator;
    private final List<Object> parts = new ArrayList<>(2);
    private final int initialCapacity;
    private ByteBuf current;

    /**
     * @param sizeHint the whole response's size, spliced records included; buffers start at most
     *     {@link #MAX_INITIAL_CAPACITY} and grow, so a large fetch costs no large buffer
     */
    SplicingWritable(final ByteBufAllocator allocator, final int sizeHint) {
        this.allocator = allocator;
        this.initialCapacity = Math.min(Math.max(sizeHint, 16), MAX_INITIAL_CAPACITY);
        this.current = allocator.directBuffer(initialCapacity);
    }

    @Override
    public void writeByte(final byte value) {
        current.writeByte(value);
    }

    @Override
    public void writeShort(final short value) {
        current.writeShort(value);
    }

    @Override
    public void writeInt(final int value) {
        current.writeInt(value);
    }

    @Override
    public void writeLong(final long value) {
        current.writeLong(value);
    }

    @Override
    public void writeDouble(final double value) {
        current.writeDouble(value);
    }

    @Override
    public void writeByteArray(final byte[] bytes) {
        current.writeBytes(bytes);
    }

    @Override
    public void writeByteBuffer(final ByteBuffer buffer) {
        current.writeBytes(buffer.duplicate());
    }

    @Override
    public void writeUnsignedVarint(final int value) {
        int v = value;
        while ((v & 0xFFFFFF80) != 0) {
            current.writeByte((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        current.writeByte(v);
    }

    @Override
    public void writeVarint(final int value) {
        writeUnsignedVarint((value << 1) ^ (value >> 31));
    }

    @Override
    public void writeVarlong(final long value) {
        long v = (value << 1) ^ (value >> 63);
        while ((v & 0xFFFFFFFFFFFFFF80L) != 0L) {
            current.writeByte(((int) v & 0x7F) | 0x80);
            v >>>= 7;
        }
        current.writeByte((int) v);
    }

    @Override
    public void writeRecords(final BaseRecords records) {
        switch (records) {
            case FileRegionRecords file -> splice(file);
            case MemoryRecords memory -> current.writeBytes(memory.buffer().duplicate());
            default ->
                throw new IllegalArgumentException(
                        "records of type=" + records.getClass().getName() + " cannot be written to the network");
        }
    }

    private void splice(final FileRegionRecords file) {
        if (file.sizeInBytes() == 0) {
            return;
        }
        parts.add(current);
        parts.add(new SegmentFileRegion(file.channel(), file.position(), file.sizeInBytes()));
        current = allocator.directBuffer(initialCapacity);
    }

    /** The response's parts in wire order; the caller owns (and must write or release) each of them. */
    List<Object> finish() {
        if (current.isReadable() || parts.isEmpty()) {
            parts.add(current);
        } else {
            current.release();
        }
        current = null;
        return parts;
    }
}
