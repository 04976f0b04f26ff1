package io.isthmus.protocol.record;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A reusable list of record headers to append with {@link RecordBatchBuilder}: {@link #clear()} it and {@link
 * #add(MemorySegment, MemorySegment)} segments to stay allocation-free per record. Keys are UTF-8 bytes and never
 * null; values may be null.
 */
public final class HeaderList {
    private MemorySegment[] keys;
    private MemorySegment[] values;
    private int size;

    public HeaderList() {
        this(4);
    }

    public HeaderList(final int initialCapacity) {
        keys = new MemorySegment[Math.max(1, initialCapacity)];
        values = new MemorySegment[keys.length];
    }

    public HeaderList clear() {
        Arrays.fill(keys, 0, size, null);
        Arrays.fill(values, 0, size, null);
        size = 0;
        return this;
    }

    /** Adds a header; {@code value} may be null. */
    public HeaderList add(final MemorySegment key, final MemorySegment value) {
        if (key == null) {
            throw new NullPointerException("header key");
        }
        if (key.byteSize() > Integer.MAX_VALUE || (value != null && value.byteSize() > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException("header too large");
        }
        if (size == keys.length) {
            keys = Arrays.copyOf(keys, size * 2);
            values = Arrays.copyOf(values, size * 2);
        }
        keys[size] = key;
        values[size] = value;
        size++;
        return this;
    }

    /** Adds a header with a UTF-8 key (allocates); {@code value} may be null. */
    public HeaderList add(final String key, final byte[] value) {
        return add(
                MemorySegment.ofArray(key.getBytes(StandardCharsets.UTF_8)),
                value == null ? null : MemorySegment.ofArray(value));
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    public MemorySegment key(final int index) {
        return keys[index];
    }

    /** The value of header {@code index}, or null. */
    public MemorySegment value(final int index) {
        return values[index];
    }

    /** Encoded size of these headers in a record: the count varint and each key and value with its length. */
    public int encodedSize() {
        return encodedSize(this);
    }

    static int encodedSize(final HeaderList headers) {
        if (headers == null) {
            return 1;
        }
        final int n = headers.size;
        int total = Varint.sizeOfVarint(n);
        for (int i = 0; i < n; i++) {
            final int k = (int) headers.keys[i].byteSize();
            total += Varint.sizeOfVarint(k) + k;
            final MemorySegment v = headers.values[i];
            if (v == null) {
                total += 1;
            } else {
                final int vs = (int) v.byteSize();
                total += Varint.sizeOfVarint(vs) + vs;
            }
        }
        return total;
    }
}
