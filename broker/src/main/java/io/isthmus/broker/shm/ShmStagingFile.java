package io.isthmus.broker.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One producer's staging file in the shared-memory directory, mapped read-only here ({@code memory}, owned by {@code
 * arena}); {@link #close()} unmaps and deletes it. The producer's own mapping outlives the file's name, so deleting it
 * only stops anyone from opening it again.
 */
record ShmStagingFile(int id, Path path, MemorySegment memory, Arena arena) implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ShmStagingFile.class);

    @Override
    public void close() {
        arena.close();
        try {
            Files.deleteIfExists(path);
        } catch (final IOException e) {
            LOG.warn("cannot delete a staging file: file={}", path, e);
        }
    }
}
