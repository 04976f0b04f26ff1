package io.isthmus.broker.shm;

import io.isthmus.broker.slots.AbortedArrayMemory;
import io.isthmus.protocol.control.ShmDirectoryLayout;
import io.isthmus.protocol.control.ShmSlotFileDescriptor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's shared-memory directory ({@link ShmDirectoryLayout}) for one broker life: a new token, readable by the
 * broker's OS user only, and a new slot file ({@link ShmSlotFileDescriptor}) of a new generation, mapped read-write
 * here for the whole life. Opening it first marks the previous life's slot file CLOSED, so clients still mapping it
 * (the previous broker may have been killed) learn that it is dead; {@link #close()} marks this one CLOSED.
 */
final class ShmDirectory implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ShmDirectory.class);

    private final Path directory;
    private final byte[] token;
    private final long generation;
    /** Owns the slot file's mapping for the broker's life. */
    private final Arena arena;

    private final MemorySegment file;
    private final AtomicLong abortedArrayIds = new AtomicLong();
    private final AtomicInteger stagingIds = new AtomicInteger();

    private ShmDirectory(
            final Path directory,
            final byte[] token,
            final long generation,
            final Arena arena,
            final MemorySegment file) {
        this.directory = directory;
        this.token = token;
        this.generation = generation;
        this.arena = arena;
        this.file = file;
    }

    /**
     * Opens {@code directory} for a new broker life with room for {@code ranges} sessions of {@code slotsPerRange}
     * slots.
     *
     * @throws UncheckedIOException if the directory or its files cannot be written
     */
    static ShmDirectory open(final Path directory, final int ranges, final int slotsPerRange) {
        final SecureRandom random = new SecureRandom();
        final byte[] token = new byte[ShmDirectoryLayout.TOKEN_LENGTH];
        random.nextBytes(token);
        final long generation = random.nextLong();
        final Arena arena = Arena.ofShared();
        try {
            Files.createDirectories(directory);
            final Path slots = directory.resolve(ShmDirectoryLayout.SLOT_FILE);
            closePrevious(slots);
            removeFiles(directory, ShmDirectoryLayout.ABORTED_FILE_PREFIX);
            removeFiles(directory, ShmDirectoryLayout.STAGING_FILE_PREFIX);
            writeToken(directory, token);
            // A new inode: clients of the previous life keep their mapping of the old file, marked CLOSED.
            final Path fresh = directory.resolve(ShmDirectoryLayout.SLOT_FILE + ".new");
            Files.deleteIfExists(fresh);
            final long length = ShmSlotFileDescriptor.fileLength(ranges, slotsPerRange);
            final MemorySegment mapping;
            try (FileChannel channel = FileChannel.open(
                    fresh, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                channel.write(ByteBuffer.allocate(1), length - 1);
                mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, length, arena);
            }
            ShmSlotFileDescriptor.initialise(mapping, generation, slotsPerRange, ranges);
            Files.move(fresh, slots, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            LOG.info(
                    "shared-memory directory ready: dir={} generation={} sessions={} slotsPerSession={}",
                    directory,
                    Long.toHexString(generation),
                    ranges,
                    slotsPerRange);
            return new ShmDirectory(directory, token, generation, arena, mapping);
        } catch (final IOException e) {
            arena.close();
            throw new UncheckedIOException("cannot prepare the shared-memory directory: dir=" + directory, e);
        } catch (final RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /** Marks the slot file a previous broker life left CLOSED (its broker may have died without doing so). */
    private static void closePrevious(final Path slots) throws IOException {
        if (!Files.exists(slots) || Files.size(slots) < ShmSlotFileDescriptor.HEADER_LENGTH) {
            return;
        }
        try (Arena arena = Arena.ofConfined();
                FileChannel channel = FileChannel.open(slots, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final MemorySegment header =
                    channel.map(FileChannel.MapMode.READ_WRITE, 0, ShmSlotFileDescriptor.HEADER_LENGTH, arena);
            if (ShmSlotFileDescriptor.magic(header) == ShmSlotFileDescriptor.MAGIC) {
                ShmSlotFileDescriptor.close(header);
                LOG.info(
                        "marked the previous broker's slot file closed: file={} generation={}",
                        slots,
                        Long.toHexString(ShmSlotFileDescriptor.generation(header)));
            }
        }
    }

    /**
     * A previous life's aborted-transaction arrays and staging files: its clients keep their mappings, nobody opens the
     * files again.
     */
    private static void removeFiles(final Path directory, final String prefix) throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, prefix + "*")) {
            for (final Path file : files) {
                Files.deleteIfExists(file);
            }
        }
    }

    /**
     * Aborted-transaction arrays in files of this directory ({@link ShmDirectoryLayout#abortedFile}), each mapped
     * read-write here, numbered from 1 in this broker life, and deleted when freed.
     */
    AbortedArrayMemory abortedArrays() {
        return new AbortedArrayMemory() {
            @Override
            public Block allocate(final long bytes) {
                return allocateAbortedArray(bytes);
            }

            @Override
            public boolean keepsReplacedArrays() {
                return false; // clients map the file themselves; their mapping outlives it
            }
        };
    }

    private AbortedArrayMemory.Block allocateAbortedArray(final long bytes) {
        final long id = abortedArrayIds.incrementAndGet();
        final Path path = directory.resolve(ShmDirectoryLayout.abortedFile(id));
        final Arena arena = Arena.ofShared();
        try (FileChannel channel = FileChannel.open(
                path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(1), bytes - 1);
            final MemorySegment memory = channel.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
            return new AbortedArrayMemory.Block(memory, id, () -> {
                arena.close();
                try {
                    Files.deleteIfExists(path);
                } catch (final IOException e) {
                    LOG.warn("cannot delete a freed aborted-transaction array: file={}", path, e);
                }
            });
        } catch (final IOException e) {
            arena.close();
            throw new UncheckedIOException("cannot create an aborted-transaction array: file=" + path, e);
        } catch (final RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * A new staging file ({@link ShmDirectoryLayout#stagingFile}) of {@code bytes} bytes, written out (no holes),
     * readable and writable by this OS user only (the producer proved with the token that it is this user), mapped read-only here: the broker only
     * copies out of it.
     */
    ShmStagingFile createStaging(final long bytes) {
        final int id = stagingIds.incrementAndGet();
        final Path path = directory.resolve(ShmDirectoryLayout.stagingFile(id));
        final Arena mappingArena = Arena.ofShared();
        try (FileChannel channel = FileChannel.open(
                path,
                Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            preallocate(channel, bytes);
            final MemorySegment memory = channel.map(FileChannel.MapMode.READ_ONLY, 0, bytes, mappingArena);
            return new ShmStagingFile(id, path, memory, mappingArena);
        } catch (final IOException e) {
            mappingArena.close();
            deleteQuietly(path);
            throw new UncheckedIOException("cannot create a staging file: file=" + path + " bytes=" + bytes, e);
        } catch (final RuntimeException e) {
            mappingArena.close();
            deleteQuietly(path);
            throw e;
        }
    }

    /**
     * Writes the whole file: a sparse one would get its blocks when the producer first writes a slot, and a full disk
     * then is SIGBUS in the producer's copy, not an error anyone can answer.
     */
    private static void preallocate(final FileChannel channel, final long bytes) throws IOException {
        final ByteBuffer zeros = ByteBuffer.allocate((int) Math.min(bytes, 1 << 20));
        long position = 0;
        while (position < bytes) {
            zeros.clear().limit((int) Math.min(zeros.capacity(), bytes - position));
            position += channel.write(zeros, position);
        }
    }

    private static void deleteQuietly(final Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (final IOException e) {
            LOG.warn("cannot delete a staging file: file={}", path, e);
        }
    }

    /** Writes the token readable by this OS user only, replacing the previous one in one rename. */
    private static void writeToken(final Path directory, final byte[] token) throws IOException {
        final Path temporary = directory.resolve(ShmDirectoryLayout.TOKEN_FILE + ".new");
        Files.deleteIfExists(temporary);
        Files.createFile(temporary, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(temporary, token);
        Files.move(
                temporary,
                directory.resolve(ShmDirectoryLayout.TOKEN_FILE),
                StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }

    /** Whether {@code presented} is this life's token (compared in constant time). */
    boolean accepts(final byte[] presented) {
        return presented != null && MessageDigest.isEqual(token, presented);
    }

    Path directory() {
        return directory;
    }

    long generation() {
        return generation;
    }

    /** The slots after the header page: what {@link io.isthmus.broker.slots.MetadataSlotRegion} lays ranges over. */
    MemorySegment slotMemory() {
        return file.asSlice(ShmSlotFileDescriptor.HEADER_LENGTH);
    }

    @Override
    public void close() {
        ShmSlotFileDescriptor.close(file);
        Arrays.fill(token, (byte) 0);
        arena.close();
    }
}
