package io.isthmus.protocol.record;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * Flyweight over one record header: a non-null key and a possibly null value, both read in place. Reused by its
 * {@link Record}; positions are absolute in {@link #segment()}.
 */
public final class Header {
    private MemorySegment segment;
    private long keyOffset;
    private int keySize;
    private long valueOffset;
    private int valueSize;

    void set(
            final MemorySegment segment,
            final long keyOffset,
            final int keySize,
            final long valueOffset,
            final int valueSize) {
        this.segment = segment;
        this.keyOffset = keyOffset;
        this.keySize = keySize;
        this.valueOffset = valueOffset;
        this.valueSize = valueSize;
    }

    /** The segment the key and value lie in. */
    public MemorySegment segment() {
        return segment;
    }

    public long keyOffset() {
        return keyOffset;
    }

    public int keySize() {
        return keySize;
    }

    /** The key bytes (UTF-8 in Kafka's API) as a slice; allocates the slice object. */
    public MemorySegment key() {
        return segment.asSlice(keyOffset, keySize);
    }

    /** The key decoded as UTF-8 (allocates). */
    public String keyAsString() {
        return new String(segment.asSlice(keyOffset, keySize).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }

    /** True when the key equals {@code utf8Key} byte for byte; allocates nothing. */
    public boolean keyEquals(final byte[] utf8Key) {
        if (utf8Key.length != keySize) {
            return false;
        }
        for (int i = 0; i < keySize; i++) {
            if (segment.get(ValueLayout.JAVA_BYTE, keyOffset + i) != utf8Key[i]) {
                return false;
            }
        }
        return true;
    }

    public long valueOffset() {
        return valueOffset;
    }

    /** Value size, -1 for a null value. */
    public int valueSize() {
        return valueSize;
    }

    public boolean hasValue() {
        return valueSize >= 0;
    }

    /** The value as a slice, or null; allocates the slice object. */
    public MemorySegment value() {
        return valueSize < 0 ? null : segment.asSlice(valueOffset, valueSize);
    }

    /** A copy of the value, or null. */
    public byte[] valueAsArray() {
        return valueSize < 0 ? null : segment.asSlice(valueOffset, valueSize).toArray(ValueLayout.JAVA_BYTE);
    }
}
