package io.isthmus.broker.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SegmentFileRegionTest {
    @TempDir
    Path tmp;

    private final byte[] content = new byte[1000];
    private FileChannel file;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final WritableByteChannel target = Channels.newChannel(out);

    @BeforeEach
    void setUp() throws Exception {
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i * 7);
        }
        final Path path = tmp.resolve("segment.log");
        Files.write(path, content);
        file = FileChannel.open(path, StandardOpenOption.READ);
    }

    @AfterEach
    void tearDown() throws Exception {
        file.close();
    }

    @Test
    void shouldSendItsPartOfTheFile() throws Exception {
        final SegmentFileRegion region = new SegmentFileRegion(file, 100, 300);

        long sent = 0;
        while (sent < region.count()) {
            sent += region.transferTo(target, sent);
        }

        assertThat(out.toByteArray()).isEqualTo(Arrays.copyOfRange(content, 100, 400));
        assertThat(region.transferred()).isEqualTo(300);
        assertThat(region.position()).isEqualTo(100);
    }

    @Test
    void shouldContinueFromTheGivenOffset() throws Exception {
        final SegmentFileRegion region = new SegmentFileRegion(file, 100, 300);

        final long written = region.transferTo(target, 250);

        assertThat(written).isEqualTo(50);
        assertThat(out.toByteArray()).isEqualTo(Arrays.copyOfRange(content, 350, 400));
    }

    @Test
    void shouldSendNothingOnceComplete() throws Exception {
        final SegmentFileRegion region = new SegmentFileRegion(file, 0, 10);

        assertThat(region.transferTo(target, 10)).isZero();
        assertThat(out.size()).isZero();
    }

    @Test
    void shouldNeverCloseTheSegmentFile() {
        final SegmentFileRegion region = new SegmentFileRegion(file, 0, 10);
        region.retain();

        assertThat(region.release()).isFalse();
        assertThat(region.release()).isTrue();

        assertThat(region.refCnt()).isZero();
        assertThat(file.isOpen()).isTrue();
    }

    @Test
    void shouldFailWhenTheFileIsShorterThanTheRegion() throws Exception {
        final SegmentFileRegion region = new SegmentFileRegion(file, 900, 200);

        final long written = region.transferTo(target, 0);
        assertThat(written).isEqualTo(100);

        assertThatThrownBy(() -> region.transferTo(target, written))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("fileSize=1000");
    }
}
