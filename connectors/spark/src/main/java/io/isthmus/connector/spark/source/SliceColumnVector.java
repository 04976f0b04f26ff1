package io.isthmus.connector.spark.source;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A binary column (key or value) whose rows are slices of the buffers the records arrived in: a row is a segment, an
 * offset and a size, set without copying a byte. Spark copies a value out when its plan reads one ({@link
 * #getBinary(int)}, the copy every binary column makes into a row); a column the query does not read costs nothing.
 * Valid while the records' batch is open: {@link PartitionRangeReader} closes it only when Spark asks for the next
 * column batch.
 */
final class SliceColumnVector extends ColumnVector {
    private MemorySegment[] segments;
    private long[] offsets;
    private int[] sizes;
    private int rows;
    private int nulls;

    SliceColumnVector(final int capacity) {
        super(DataTypes.BinaryType);
        segments = new MemorySegment[capacity];
        offsets = new long[capacity];
        sizes = new int[capacity];
    }

    void reset() {
        java.util.Arrays.fill(segments, 0, rows, null);
        rows = 0;
        nulls = 0;
    }

    /** Appends a row: {@code size} bytes at {@code offset} of {@code segment}, or null for a size below 0. */
    void append(final MemorySegment segment, final long offset, final int size) {
        final int row = rows++;
        segments[row] = segment;
        offsets[row] = offset;
        sizes[row] = size;
        if (size < 0) {
            nulls++;
        }
    }

    @Override
    public boolean isNullAt(final int rowId) {
        return sizes[rowId] < 0;
    }

    @Override
    public boolean hasNull() {
        return nulls > 0;
    }

    @Override
    public int numNulls() {
        return nulls;
    }

    @Override
    public byte[] getBinary(final int rowId) {
        final int size = sizes[rowId];
        if (size < 0) {
            return null;
        }
        final byte[] bytes = new byte[size];
        MemorySegment.copy(segments[rowId], ValueLayout.JAVA_BYTE, offsets[rowId], bytes, 0, size);
        return bytes;
    }

    @Override
    public void close() {
        reset();
    }

    @Override
    public boolean getBoolean(final int rowId) {
        throw notThisType("boolean");
    }

    @Override
    public byte getByte(final int rowId) {
        throw notThisType("byte");
    }

    @Override
    public short getShort(final int rowId) {
        throw notThisType("short");
    }

    @Override
    public int getInt(final int rowId) {
        throw notThisType("int");
    }

    @Override
    public long getLong(final int rowId) {
        throw notThisType("long");
    }

    @Override
    public float getFloat(final int rowId) {
        throw notThisType("float");
    }

    @Override
    public double getDouble(final int rowId) {
        throw notThisType("double");
    }

    @Override
    public ColumnarArray getArray(final int rowId) {
        throw notThisType("array");
    }

    @Override
    public ColumnarMap getMap(final int ordinal) {
        throw notThisType("map");
    }

    @Override
    public Decimal getDecimal(final int rowId, final int precision, final int scale) {
        throw notThisType("decimal");
    }

    @Override
    public UTF8String getUTF8String(final int rowId) {
        throw notThisType("string");
    }

    @Override
    public ColumnVector getChild(final int ordinal) {
        throw notThisType("struct");
    }

    private static UnsupportedOperationException notThisType(final String type) {
        return new UnsupportedOperationException("a binary column (key or value) has no " + type + " values");
    }
}
