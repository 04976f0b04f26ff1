package io.isthmus.broker.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.apache.kafka.common.network.TransferableChannel;
import org.apache.kafka.common.record.internal.RecordsSend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileRegionRecordsTest {
    @TempDir
    Path tmp;

    /** A socket stand-in that takes at most {@code chunk} bytes per call, as a full socket buffer would. */
    private static final class ChunkedChannel implements TransferableChannel {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final WritableByteChannel sink = Channels.newChannel(out);
        final int chunk;

        ChunkedChannel(final int chunk) {
            this.chunk = chunk;
        }

        @Override
        public boolean hasPendingWrites() {
            return false;
        }

        @Override
        public long transferFrom(final FileChannel file, final long position, final long count) throws IOException {
            return file.transferTo(position, Math.min(count, chunk), sink);
        }

        @Override
        public long write(final ByteBuffer[] srcs, final int offset, final int length) throws IOException {
            long written = 0;
            for (int i = offset; i < offset + length; i++) {
                written += write(srcs[i]);
            }
            return written;
        }

        @Override
        public long write(final ByteBuffer[] srcs) throws IOException {
            return write(srcs, 0, srcs.length);
        }

        @Override
        public int write(final ByteBuffer src) throws IOException {
            return sink.write(src);
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {}
    }

    private FileChannel file(final byte[] content) throws IOException {
        final Path path = tmp.resolve("segment.log");
        Files.write(path, content);
        return FileChannel.open(path, StandardOpenOption.READ);
    }

    @Test
    void shouldDescribeItsRegion() throws Exception {
        try (FileChannel channel = file(new byte[64])) {
            final FileRegionRecords records = new FileRegionRecords(channel, 8, 32);

            assertThat(records.channel()).isSameAs(channel);
            assertThat(records.position()).isEqualTo(8);
            assertThat(records.sizeInBytes()).isEqualTo(32);
        }
    }

    @Test
    void shouldRefuseANegativePositionOrSize() throws Exception {
        try (FileChannel channel = file(new byte[64])) {
            assertThatThrownBy(() -> new FileRegionRecords(channel, -1, 10))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> new FileRegionRecords(channel, 0, -10))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void shouldSendItsRegionThroughKafkasSendPathAcrossPartialWrites() throws Exception {
        final byte[] content = new byte[500];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) i;
        }
        try (FileChannel channel = file(content)) {
            final RecordsSend<FileRegionRecords> send = new FileRegionRecords(channel, 50, 300).toSend();
            final ChunkedChannel socket = new ChunkedChannel(64);

            int calls = 0;
            while (!send.completed()) {
                send.writeTo(socket);
                calls++;
            }

            assertThat(send.size()).isEqualTo(300);
            assertThat(calls).isGreaterThan(1);
            assertThat(socket.out.toByteArray()).isEqualTo(Arrays.copyOfRange(content, 50, 350));
            assertThat(channel.isOpen()).isTrue();
        }
    }
}
