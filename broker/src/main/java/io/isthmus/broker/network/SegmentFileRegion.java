package io.isthmus.broker.network;

import io.netty.channel.FileRegion;
import io.netty.util.AbstractReferenceCounted;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;

/**
 * A Netty {@link FileRegion} over part of a log segment file.
 *
 * <p>Unlike Netty's {@code DefaultFileRegion} it never closes the file: the log owns the channel, and many
 * fetches share it. Releasing the region releases nothing but the fetch's lease, which the response owns.
 */
final class SegmentFileRegion extends AbstractReferenceCounted implements FileRegion {
    private final FileChannel channel;
    private final long position;
    private final long count;
    private long transferred;

    SegmentFileRegion(final FileChannel channel, final long position, final long count) {
        this.channel = channel;
        this.position = position;
        this.count = count;
    }

    /** The segment file the region lies in (the log owns it). */
    FileChannel file() {
        return channel;
    }

    @Override
    public long position() {
        return position;
    }

    @Override
    @Deprecated
    public long transfered() {
        return transferred;
    }

    @Override
    public long transferred() {
        return transferred;
    }

    @Override
    public long count() {
        return count;
    }

    @Override
    public long transferTo(final WritableByteChannel target, final long offset) throws IOException {
        final long remaining = count - offset;
        if (remaining <= 0) {
            return 0;
        }
        final long written = channel.transferTo(position + offset, remaining, target);
        if (written > 0) {
            transferred += written;
        } else if (written == 0 && position + offset >= channel.size()) {
            throw new IOException("log segment shorter than the region being sent: position=" + position + ", offset="
                    + offset + ", count=" + count + ", fileSize=" + channel.size());
        }
        return written;
    }

    @Override
    public SegmentFileRegion retain() {
        super.retain();
        return this;
    }

    @Override
    public SegmentFileRegion retain(final int increment) {
        super.retain(increment);
        return this;
    }

    @Override
    public SegmentFileRegion touch() {
        return this;
    }

    @Override
    public SegmentFileRegion touch(final Object hint) {
        return this;
    }

    @Override
    protected void deallocate() {
        // The channel belongs to the log segment; nothing of ours to free.
    }
}
