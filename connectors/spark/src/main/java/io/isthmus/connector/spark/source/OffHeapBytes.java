package io.isthmus.connector.spark.source;

import java.lang.foreign.MemorySegment;
import org.apache.spark.sql.execution.vectorized.OffHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;

/**
 * The byte storage behind a binary or string column of off-heap column vectors, written straight from a record slice:
 * the one copy between the log's bytes and Spark's row memory. Holds a segment over the vector's native memory, made
 * again only when the vector grows or moves, so that an append allocates nothing.
 */
final class OffHeapBytes {
    private final OffHeapColumnVector bytes;
    private MemorySegment target = MemorySegment.NULL;
    private long address;

    /** @param column a binary or string column of {@link OffHeapColumnVector}s */
    OffHeapBytes(final WritableColumnVector column) {
        if (!(column.arrayData() instanceof OffHeapColumnVector storage)) {
            throw new IllegalArgumentException("expected off-heap column storage, got "
                    + column.arrayData().getClass().getName());
        }
        this.bytes = storage;
    }

    /**
     * Puts {@code length} bytes of {@code source} at {@code offset} as the value of {@code column}'s row {@code rowId}.
     */
    void put(
            final WritableColumnVector column,
            final int rowId,
            final MemorySegment source,
            final long offset,
            final int length) {
        final int start = bytes.getElementsAppended();
        final long end = (long) start + length;
        if (end > Integer.MAX_VALUE) {
            throw new IllegalStateException("a column batch's bytes exceed 2 GiB at row " + rowId);
        }
        if (end > target.byteSize() || bytes.valuesNativeAddress() != address) {
            // Grow by doubling, so that the segment over the storage is made again O(log n) times per batch.
            final long size = Math.min(Integer.MAX_VALUE, Math.max(end, 2 * Math.max(target.byteSize(), 4096)));
            bytes.reserve((int) size);
            address = bytes.valuesNativeAddress();
            target = MemorySegment.ofAddress(address).reinterpret(size);
        }
        MemorySegment.copy(source, offset, target, start, length);
        bytes.addElementsAppended(length);
        column.putArray(rowId, start, length);
    }
}
