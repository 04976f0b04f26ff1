package io.isthmus.broker.network;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.nio.channels.FileChannel;
import java.util.List;

/**
 * On a TLS connection, turns a fetch answer's file regions into buffers the TLS engine can encrypt: bytes must pass
 * through the CPU to be encrypted, so the zero-copy {@code sendfile} path does not apply there, in Kafka either. The
 * region is read in chunks of at most {@value #CHUNK} bytes into pooled buffers.
 */
final class FileRegionCopier extends MessageToMessageEncoder<SegmentFileRegion> {
    private static final int CHUNK = 256 * 1024;

    FileRegionCopier() {
        super(SegmentFileRegion.class);
    }

    @Override
    protected void encode(final ChannelHandlerContext ctx, final SegmentFileRegion region, final List<Object> out)
            throws Exception {
        final FileChannel file = region.file();
        long position = region.position();
        long remaining = region.count();
        while (remaining > 0) {
            final int length = (int) Math.min(CHUNK, remaining);
            final ByteBuf chunk = ctx.alloc().directBuffer(length);
            try {
                int read = 0;
                while (read < length) {
                    final int n = chunk.writeBytes(file, position + read, length - read);
                    if (n <= 0) {
                        throw new java.io.IOException("log segment shorter than the region being sent: position="
                                + region.position() + " count=" + region.count());
                    }
                    read += n;
                }
            } catch (final Exception e) {
                chunk.release();
                throw e;
            }
            out.add(chunk);
            position += length;
            remaining -= length;
        }
    }
}
