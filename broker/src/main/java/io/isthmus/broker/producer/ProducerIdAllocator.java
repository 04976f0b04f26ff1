package io.isthmus.broker.producer;

import io.isthmus.broker.storage.CrashSafeFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single broker's producer ids, never reused, not even after a crash: ids come in blocks, and the end of
 * the current block is written durably ({@link CrashSafeFile}) before any id from it is handed out. A restart skips
 * the rest of the block, as Kafka's producer-id manager does.
 *
 * <p>A file that cannot be read (empty or torn, as an unsynced write of an older version could leave it after a power
 * loss) is set aside and the ids go on from a floor derived from the clock, {@link #CLOCK_FLOOR_IDS_PER_MS} ids per
 * millisecond since the epoch: above every id handed out before unless the broker reserved blocks faster than that
 * over its life, a thousand times the rate of a broker that opens a new idempotent producer every microsecond.
 */
public final class ProducerIdAllocator implements ProducerIds {
    static final long BLOCK_SIZE = 1000;
    /** See the class comment: the floor after an unreadable file is this many ids per millisecond of the clock. */
    static final long CLOCK_FLOOR_IDS_PER_MS = 1000;

    private static final Logger LOG = LoggerFactory.getLogger(ProducerIdAllocator.class);
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
            if (!CrashSafeFile.prepareToRead(file)) {
                return new ProducerIdAllocator(file, 0L);
            }
            final String text = Files.readString(file, StandardCharsets.UTF_8).trim();
            try {
                final long reservedEnd = Long.parseLong(text);
                if (reservedEnd >= 0) {
                    return new ProducerIdAllocator(file, reservedEnd);
                }
            } catch (final NumberFormatException unreadable) {
                // set aside below
            }
            final Path aside = CrashSafeFile.setAside(file);
            final long floor = System.currentTimeMillis() * CLOCK_FLOOR_IDS_PER_MS;
            LOG.warn(
                    "producer id block file={} is unreadable ('{}'), kept as {}; producer ids go on from {}",
                    file,
                    text,
                    aside,
                    floor);
            return new ProducerIdAllocator(file, floor);
        } catch (final IOException e) {
            throw new IllegalStateException("cannot read producer id block file=" + file + ": " + e, e);
        }
    }

    @Override
    public synchronized long nextId() {
        if (next == blockEnd) {
            reserve(blockEnd + BLOCK_SIZE);
        }
        return next++;
    }

    private void reserve(final long end) {
        try {
            CrashSafeFile.replace(file, Long.toString(end));
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot reserve producer ids up to " + end + " in file=" + file, e);
        }
        blockEnd = end;
    }
}
