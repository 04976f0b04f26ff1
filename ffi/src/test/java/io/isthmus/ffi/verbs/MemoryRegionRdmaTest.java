package io.isthmus.ffi.verbs;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("rdma")
class MemoryRegionRdmaTest {
    @TempDir
    Path dir;

    @Test
    void shouldLandARemoteWriteInAMemoryMappedFile() throws Exception {
        Path file = dir.resolve("segment.log");
        byte[] record = "record written by a remote peer".getBytes(StandardCharsets.US_ASCII);
        try (RdmaTestBed bed = new RdmaTestBed();
                FileChannel channel = FileChannel.open(
                        file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena mapping = Arena.ofShared()) {
            channel.truncate(0);
            channel.write(java.nio.ByteBuffer.allocate(1), 64 * 1024 - 1);
            MemorySegment mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, 64 * 1024, mapping);
            MemoryRegion region = bed.pd.registerMemory(mapped, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            try {
                MemorySegment.copy(record, 0, bed.bufferA, JAVA_BYTE, 0, record.length);
                bed.sends
                        .set(0, 1, Opcode.RDMA_WRITE, SendFlags.SIGNALED)
                        .sge(0, 0, bed.mrA, 0, record.length)
                        .rdma(0, region.address() + 4096, region.rkey());

                bed.qpA.postSend(bed.sends, 1);
                bed.awaitSuccess(bed.cqA);
                mapped.force();
            } finally {
                region.close();
            }
        }

        byte[] onDisk = Files.readAllBytes(file);
        assertThat(new String(onDisk, 4096, record.length, StandardCharsets.US_ASCII))
                .isEqualTo("record written by a remote peer");
    }
}
