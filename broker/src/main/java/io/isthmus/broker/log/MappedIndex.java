package io.isthmus.broker.log;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A preallocated, memory-mapped file of fixed-length entries with one writer and lock-free readers (Kafka's {@code
 * AbstractIndex}, minus the locks).
 *
 * <p>The writer stores an entry and then publishes the new entry count with release semantics; readers load the count
 * with acquire semantics and never look past it, so they never see a half-written entry. The mapping lives in the
 * owning segment's {@link Arena}: when a sealed index is trimmed, the trimmed file is mapped again read-only and
 * published, and the old mapping stays valid (for readers that still use it) until the segment is unmapped as a whole.
 *
 * <p>Entry count on open: the file length divided by the entry length. A trimmed index (sealed segment, or the active
 * segment after a clean shutdown) has exactly its entries; an untrimmed one is preallocated and mostly zero, which the
 * sanity checks of the subclasses reject (positions and timestamps must strictly increase), so it gets rebuilt.
 */
abstract sealed class MappedIndex permits OffsetIndex, TimeIndex {
    private static final VarHandle ENTRY_COUNT;

    static {
        try {
            ENTRY_COUNT = MethodHandles.lookup().findVarHandle(MappedIndex.class, "entryCount", int.class);
        } catch (final ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /** Index bytes reserved on disk at a time: a posix_fallocate per 4096 offset-index entries. */
    private static final long INDEX_RESERVE_CHUNK = 64L << 10;

    protected final Path file;
    protected final long baseOffset;
    private final int entryLength;
    private final int maxEntries;
    private final Arena arena;
    private final boolean lengthWasMisaligned;
    private final boolean wasMissing;
    private volatile MemorySegment entries;
    /** The file's disk, reserved ahead of the entries written into its mapping. */
    private final DiskReservation space;

    @SuppressWarnings("unused") // accessed through ENTRY_COUNT
    private int entryCount;

    /**
     * Opens (or creates) the index file and maps it read-write at its preallocated size in {@code arena}. The entry
     * count is taken from the length the file had before it was mapped.
     */
    protected MappedIndex(
            final Path file, final long baseOffset, final int entryLength, final int maxEntries, final Arena arena)
            throws IOException {
        this.file = file;
        this.baseOffset = baseOffset;
        this.entryLength = entryLength;
        this.maxEntries = maxEntries;
        this.arena = arena;
        this.space = new DiskReservation(file, (long) maxEntries * entryLength, INDEX_RESERVE_CHUNK);
        this.wasMissing = !Files.exists(file);
        final long existingLength = wasMissing ? 0 : Files.size(file);
        this.lengthWasMisaligned = existingLength % entryLength != 0;
        final int existingEntries = (int) Math.min(existingLength / entryLength, maxEntries);
        try (FileChannel channel =
                FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            this.entries = channel.map(FileChannel.MapMode.READ_WRITE, 0, (long) maxEntries * entryLength, arena);
        }
        ENTRY_COUNT.setRelease(this, existingEntries);
    }

    /**
     * Reserves the disk of {@code more} entries past the published ones (as far as the index reaches).
     *
     * @throws org.apache.kafka.common.errors.KafkaStorageException on a full disk
     */
    final void reserveEntries(final int more) {
        space.reserveUpTo(Math.min((long) maxEntries, (long) entryCount() + more) * entryLength);
    }

    /** The index is no longer written (its segment is gone): gives the reservation's descriptor back. */
    final void closeReservation() {
        space.close();
    }

    /** Published entry count (acquire). */
    public final int entryCount() {
        return (int) ENTRY_COUNT.getAcquire(this);
    }

    public final boolean isFull() {
        return entryCount() >= maxEntries;
    }

    public final Path file() {
        return file;
    }

    /** The current mapping; read it once per operation together with {@link #entryCount()}. */
    protected final MemorySegment entries() {
        return entries;
    }

    /** Called by the writer after storing entry number {@code entryCount()}. */
    protected final void publishAppendedEntry() {
        ENTRY_COUNT.setRelease(this, entryCount() + 1);
    }

    /** Forgets all entries (before a rebuild). Only while no reader can see the segment. */
    final void clear() {
        ENTRY_COUNT.setRelease(this, 0);
    }

    /** Throws {@link CorruptIndexException} if the file is not what a healthy index looks like. */
    final void sanityCheck(final long segmentCapacity) {
        if (wasMissing) {
            throw new CorruptIndexException("index file was missing: file=" + file);
        }
        if (lengthWasMisaligned) {
            throw new CorruptIndexException("index file length is not a multiple of the entry length: file=" + file
                    + " entryLength=" + entryLength);
        }
        checkEntries(entries, entryCount(), segmentCapacity);
    }

    /** Subclass invariants over the first {@code count} entries. */
    protected abstract void checkEntries(MemorySegment entries, int count, long segmentCapacity);

    /** Forces written entries to the storage device. */
    final void flush() {
        final MemorySegment current = entries;
        if (!current.isReadOnly()) {
            current.force();
        }
    }

    /**
     * Makes the index final: forces it, cuts the file to its entries and maps that read-only. The preallocated mapping
     * stays mapped (readers may hold it) until the owning arena closes.
     */
    final void trimAndSeal() throws IOException {
        final MemorySegment current = entries;
        if (current.isReadOnly()) {
            return;
        }
        current.force();
        space.close();
        final long validLength = (long) entryCount() * entryLength;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            channel.truncate(validLength);
            channel.force(true);
            entries = validLength == 0
                    ? MemorySegment.ofArray(new byte[0]).asReadOnly()
                    : channel.map(FileChannel.MapMode.READ_ONLY, 0, validLength, arena);
        }
    }

    /** Cuts the file to its entries without remapping: for a clean shutdown, when nothing reads any more. */
    final void trimOnClose() throws IOException {
        final MemorySegment current = entries;
        if (current.isReadOnly()) {
            return;
        }
        current.force();
        space.close();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            channel.truncate((long) entryCount() * entryLength);
            channel.force(true);
        }
    }
}
