package io.isthmus.broker.shm;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.slots.AbortedArrayMemory;
import io.isthmus.protocol.control.ShmDirectoryLayout;
import io.isthmus.protocol.control.ShmSlotFileDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShmDirectoryTest {
    @TempDir
    Path dir;

    /** Maps the slot file read-only, as a client does. */
    private static MemorySegment mapAsClient(final Path file, final Arena arena) throws Exception {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            return channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
        }
    }

    @Test
    void shouldWriteAnOwnerOnlyTokenAndAnOpenSlotFileOfItsGeneration() throws Exception {
        try (ShmDirectory shm = ShmDirectory.open(dir, 4, 8);
                Arena arena = Arena.ofConfined()) {
            final Path token = dir.resolve(ShmDirectoryLayout.TOKEN_FILE);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(token)))
                    .isEqualTo("rw-------");
            final byte[] bytes = Files.readAllBytes(token);
            assertThat(bytes).hasSize(ShmDirectoryLayout.TOKEN_LENGTH);
            assertThat(shm.accepts(bytes)).isTrue();
            final byte[] other = bytes.clone();
            other[3] ^= 1;
            assertThat(shm.accepts(other)).isFalse();
            assertThat(shm.accepts(new byte[3])).isFalse();
            assertThat(shm.accepts(null)).isFalse();

            final MemorySegment file = mapAsClient(dir.resolve(ShmDirectoryLayout.SLOT_FILE), arena);
            assertThat(file.byteSize()).isEqualTo(ShmSlotFileDescriptor.fileLength(4, 8));
            assertThat(ShmSlotFileDescriptor.magic(file)).isEqualTo(ShmSlotFileDescriptor.MAGIC);
            assertThat(ShmSlotFileDescriptor.generation(file)).isEqualTo(shm.generation());
            assertThat(ShmSlotFileDescriptor.state(file)).isEqualTo(ShmSlotFileDescriptor.OPEN);
            assertThat(ShmSlotFileDescriptor.ranges(file)).isEqualTo(4);
            assertThat(ShmSlotFileDescriptor.slotsPerRange(file)).isEqualTo(8);
            assertThat(shm.slotMemory().byteSize()).isEqualTo(4L * 8 * 40);
        }
    }

    @Test
    void shouldTellClientsOfAKilledPredecessorThatItIsGoneAndStartANewFile() throws Exception {
        final ShmDirectory first = ShmDirectory.open(dir, 2, 2);
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment old = mapAsClient(dir.resolve(ShmDirectoryLayout.SLOT_FILE), arena);
            final byte[] oldToken = Files.readAllBytes(dir.resolve(ShmDirectoryLayout.TOKEN_FILE));
            // The first broker "dies": it never closes, and a successor opens the same directory.
            final ShmDirectory second = ShmDirectory.open(dir, 2, 2);
            assertThat(ShmSlotFileDescriptor.state(old))
                    .as("the dead broker's file, still mapped by its clients")
                    .isEqualTo(ShmSlotFileDescriptor.CLOSED);
            assertThat(second.generation()).isNotEqualTo(first.generation());
            assertThat(second.accepts(oldToken)).as("the old token").isFalse();
            final MemorySegment fresh = mapAsClient(dir.resolve(ShmDirectoryLayout.SLOT_FILE), arena);
            assertThat(ShmSlotFileDescriptor.generation(fresh)).isEqualTo(second.generation());
            assertThat(ShmSlotFileDescriptor.state(fresh)).isEqualTo(ShmSlotFileDescriptor.OPEN);
            second.close();
            assertThat(ShmSlotFileDescriptor.state(fresh)).as("closed cleanly").isEqualTo(ShmSlotFileDescriptor.CLOSED);
        } finally {
            first.close();
        }
    }

    @Test
    void shouldKeepAbortedTransactionArraysInFilesRemovedWhenFreedAndAtTheNextStart() throws Exception {
        final ShmDirectory first = ShmDirectory.open(dir, 1, 1);
        final AbortedArrayMemory.Block freed = first.abortedArrays().allocate(24 * 4);
        final AbortedArrayMemory.Block left = first.abortedArrays().allocate(24 * 8);
        assertThat(freed.id()).isEqualTo(1);
        assertThat(left.id()).isEqualTo(2);
        final Path freedFile = dir.resolve(ShmDirectoryLayout.abortedFile(1));
        final Path leftFile = dir.resolve(ShmDirectoryLayout.abortedFile(2));
        assertThat(Files.size(leftFile)).isEqualTo(24 * 8);
        freed.memory().set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 42L);
        try (Arena arena = Arena.ofConfined();
                FileChannel channel = FileChannel.open(freedFile, StandardOpenOption.READ)) {
            assertThat(channel.map(FileChannel.MapMode.READ_ONLY, 0, 8, arena)
                            .get(java.lang.foreign.ValueLayout.JAVA_LONG, 0))
                    .as("what a client maps")
                    .isEqualTo(42L);
        }
        freed.close();
        assertThat(freedFile).doesNotExist();
        // The broker dies with an array in use: its successor removes the file.
        try (ShmDirectory second = ShmDirectory.open(dir, 1, 1)) {
            assertThat(leftFile).doesNotExist();
            assertThat(second.abortedArrays().allocate(24).id()).isEqualTo(1);
        }
        left.close();
        first.close();
    }
}
