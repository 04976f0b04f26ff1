package io.isthmus.broker.log;

import io.isthmus.ffi.Errno;
import io.isthmus.ffi.FileSpace;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.kafka.common.errors.KafkaStorageException;

/**
 * The disk blocks of one mapped log or index file, reserved ahead of the writes into its mapping.
 *
 * <p>Segments and indexes are sparse files written through memory mappings: the first store into a page allocates its
 * block, and on a full file system that store ends the JVM with {@code SIGBUS}. So every writer reserves the range it
 * is about to write first ({@link FileSpace}, {@code posix_fallocate}), in chunks so the call is rare; a full disk then
 * surfaces as a retriable {@link KafkaStorageException} before any byte is written, the partition stays readable, and
 * appends succeed again once space is freed (retention, a deleted topic).
 *
 * <p>The file is opened for reservations only when first needed, so sealed segments hold no descriptor. Thread-safe:
 * the appender and the pre-toucher both reserve.
 */
final class DiskReservation implements AutoCloseable {
    private final Path file;
    private final long limit;
    private final long chunk;
    private FileSpace space;
    private long reservedUpTo;
    private boolean closed;

    /**
     * @param limit the file's length: nothing past it is ever reserved
     * @param chunk how far past a request to reserve, so that most writes find their range reserved already
     */
    DiskReservation(final Path file, final long limit, final long chunk) {
        this.file = file;
        this.limit = limit;
        this.chunk = chunk;
    }

    /**
     * Makes sure the blocks of {@code [0, end)} are on disk.
     *
     * @throws KafkaStorageException if they cannot be had (a full file system, a quota): nothing was written
     */
    synchronized void reserveUpTo(final long end) {
        if (end <= reservedUpTo || closed) {
            return;
        }
        final long target = Math.min(limit, Math.max(end, reservedUpTo + chunk));
        final int error;
        try {
            if (space == null) {
                space = FileSpace.open(file);
            }
            error = space.reserve(reservedUpTo, target - reservedUpTo);
        } catch (final IOException e) {
            throw new KafkaStorageException("cannot reserve disk space in " + file + ": " + e.getMessage(), e);
        }
        if (error != 0) {
            throw new KafkaStorageException("cannot reserve disk space in " + file + " up to byte " + target + ": "
                    + Errno.name(error) + " (" + Errno.message(error) + "); nothing was written, the partition stays"
                    + " readable, and appends succeed again once space is freed");
        }
        reservedUpTo = target;
    }

    /** The file will not be written through its mapping any more (sealed, closed): gives the descriptor back. */
    @Override
    public synchronized void close() {
        closed = true;
        if (space != null) {
            space.close();
            space = null;
        }
    }
}
