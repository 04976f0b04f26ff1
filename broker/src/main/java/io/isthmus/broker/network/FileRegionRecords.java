package io.isthmus.broker.network;

import java.io.IOException;
import java.nio.channels.FileChannel;
import org.apache.kafka.common.network.TransferableChannel;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.RecordsSend;

/**
 * Record batches that stay in a log segment file and are sent from it with {@code sendfile}
 * ({@link FileChannel#transferTo}), never copied through the Java heap.
 *
 * <p>Handed to kafka-clients' generated {@code FetchResponseData} as its records field; the network layer's
 * {@link SplicingWritable} recognises it and splices the file region into the response.
 */
public final class FileRegionRecords implements BaseRecords {
    private final FileChannel channel;
    private final long position;
    private final int sizeInBytes;

    public FileRegionRecords(final FileChannel channel, final long position, final int sizeInBytes) {
        if (position < 0 || sizeInBytes < 0) {
            throw new IllegalArgumentException("bad file region: position=" + position + ", size=" + sizeInBytes);
        }
        this.channel = channel;
        this.position = position;
        this.sizeInBytes = sizeInBytes;
    }

    public FileChannel channel() {
        return channel;
    }

    public long position() {
        return position;
    }

    @Override
    public int sizeInBytes() {
        return sizeInBytes;
    }

    /** Kafka's own send path, for a caller that uses kafka-clients' {@code SendBuilder}. */
    @Override
    public RecordsSend<FileRegionRecords> toSend() {
        return new RecordsSend<>(this, sizeInBytes) {
            @Override
            protected int writeTo(final TransferableChannel target, final int previouslyWritten, final int remaining)
                    throws IOException {
                return (int) target.transferFrom(channel, position + previouslyWritten, remaining);
            }
        };
    }
}
