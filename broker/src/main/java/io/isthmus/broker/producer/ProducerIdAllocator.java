package io.isthmus.broker.producer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Hands out producer ids that are never reused, not even after a crash: ids come in blocks, and the end of
 * the current block is written (atomically replaced) before any id from it is handed out. A restart skips
 * the rest of the block, as Kafka's producer-id manager does.
 */
public final class ProducerIdAllocator {
    static final long BLOCK_SIZE = 1000;
    private static final String FILE_NAME = "isthmus-producer-ids";

    private final Path file;
    private long next;
    private long blockEnd;

    private ProducerIdAllocator(final Path file, final long next) {
        this.file = file;
        this.next = next;
        this.blockEnd = next;
    }

    /** Opens the allocator in {@code directory}; the first id after a restart follows the last block reserved. */
    public static ProducerIdAllocator open(final Path directory) {
        final Path file = directory.resolve(FILE_NAME);
        try {
            Files.createDirectories(directory);
            final long reservedEnd = Files.exists(file)
                    ? Long.parseLong(
                            Files.readString(file, StandardCharsets.UTF_8).trim())
                    : 0L;
            return new ProducerIdAllocator(file, reservedEnd);
        } catch (final IOException | NumberFormatException e) {
            throw new IllegalStateException("cannot read producer id block file=" + file + ": " + e, e);
        }
    }

    public synchronized long nextId() {
        if (next == blockEnd) {
            reserve(blockEnd + BLOCK_SIZE);
        }
        return next++;
    }

    private void reserve(final long end) {
        final Path temporary = file.resolveSibling(FILE_NAME + ".tmp");
        try {
            Files.writeString(temporary, Long.toString(end), StandardCharsets.UTF_8);
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot reserve producer ids up to " + end + " in file=" + file, e);
        }
        blockEnd = end;
    }
}
