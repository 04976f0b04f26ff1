package io.isthmus.broker.log;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;

/**
 * Whole batches read from one segment, zero-copy: {@link #records()} is a slice of the mapped segment and {@link
 * #fileChannel()}/{@link #filePosition()}/{@link #sizeInBytes()} name the same bytes in the file for {@code
 * transferTo}. Holds a {@link SegmentLease}: the slice stays readable, even if retention deletes the segment, until
 * this result is closed; afterwards any access to it throws.
 *
 * <p>An empty result (the fetch offset equals the log end offset) holds no lease and an empty slice.
 */
public final class LogReadResult implements AutoCloseable {
    private final SegmentLease lease;
    private final MemorySegment records;
    private final long filePosition;
    private final long firstOffset;
    private final long nextOffset;
    private final long highWatermark;
    private final long logStartOffset;

    LogReadResult(
            final SegmentLease lease,
            final MemorySegment records,
            final long filePosition,
            final long firstOffset,
            final long nextOffset,
            final long highWatermark,
            final long logStartOffset) {
        this.lease = lease;
        this.records = records;
        this.filePosition = filePosition;
        this.firstOffset = firstOffset;
        this.nextOffset = nextOffset;
        this.highWatermark = highWatermark;
        this.logStartOffset = logStartOffset;
    }

    static LogReadResult empty(final long offset, final long highWatermark, final long logStartOffset) {
        return new LogReadResult(
                null, MemorySegment.ofArray(new byte[0]), 0, offset, offset, highWatermark, logStartOffset);
    }

    /** The batches, in place in the segment mapping. */
    public MemorySegment records() {
        return records;
    }

    public long sizeInBytes() {
        return records.byteSize();
    }

    public boolean isEmpty() {
        return records.byteSize() == 0;
    }

    /** Base offset of the first batch returned (it may be below the fetch offset: batches are never split). */
    public long firstOffset() {
        return firstOffset;
    }

    /** Offset after the last batch returned: where the next fetch continues. */
    public long nextOffset() {
        return nextOffset;
    }

    public long highWatermark() {
        return highWatermark;
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    /** The segment file holding {@link #records()}, or null for an empty result. */
    public FileChannel fileChannel() {
        return lease == null ? null : lease.channel();
    }

    public long filePosition() {
        return filePosition;
    }

    /** The segment the bytes come from, or null for an empty result. */
    public LogSegment segment() {
        return lease == null ? null : lease.segment();
    }

    /** Sends the bytes straight from the file ({@code sendfile} where the platform has it); returns bytes sent. */
    public long transferTo(final WritableByteChannel target) throws IOException {
        if (lease == null) {
            return 0;
        }
        if (lease.isClosed()) {
            throw new IllegalStateException("read result already closed: firstOffset=" + firstOffset);
        }
        long sent = 0;
        final long size = sizeInBytes();
        while (sent < size) {
            sent += lease.channel().transferTo(filePosition + sent, size - sent, target);
        }
        return sent;
    }

    @Override
    public void close() {
        if (lease != null) {
            lease.close();
        }
    }
}
