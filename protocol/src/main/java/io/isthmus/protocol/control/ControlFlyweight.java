package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A control message read and written in place, SBE style: a view of one message at an offset of a {@link
 * MemorySegment} (a received frame, a reused send buffer), so a message is encoded and decoded once, where it lies. Each
 * message class declares its layout as offset constants, each used by one getter and one fluent setter of the field's
 * name; this base holds the view, checks bounds and does the big-endian accesses. A message is a fixed block, optionally
 * followed by one string ({@link ControlCodec}: int16 length, then UTF-8), so its length follows from the block length
 * and the string's length prefix.
 *
 * <ul>
 *   <li>{@link #wrap} views a received message and checks that it is whole: shorter than its block, or with a string
 *       running past its end, it throws {@link IllegalArgumentException} with context, so bad input fails at the edge
 *       and every getter after it reads inside the message.
 *   <li>{@link #wrapForEncode} views room for a message to write: it zeroes the block (padding included) and makes the
 *       string null, so a writer sets only the fields it means.
 * </ul>
 *
 * <p>A flyweight copies nothing: its getters read what the memory holds now, so it is valid only as long as the memory
 * it wraps is, which the owner of each buffer documents. Reused, not shared: one thread uses a flyweight at a time.
 *
 * @param <T> the message class, which the fluent methods return
 */
public abstract class ControlFlyweight<T extends ControlFlyweight<T>> {
    private final String name;
    private final int blockLength;
    private final String stringName;
    private MemorySegment segment;
    private long offset;
    private long limit;

    /**
     * @param name the message's name in error messages ("ProduceAccess request")
     * @param blockLength bytes of the fixed block (where the string starts, if there is one)
     * @param stringName the name of the string after the block, or null if the message is only the block
     */
    protected ControlFlyweight(final String name, final int blockLength, final String stringName) {
        this.name = name;
        this.blockLength = blockLength;
        this.stringName = stringName;
    }

    /**
     * Views the received message of {@code length} bytes at {@code offset} of {@code segment}.
     *
     * @throws IllegalArgumentException if the message is shorter than its block or its string runs past its end
     */
    public T wrap(final MemorySegment segment, final long offset, final long length) {
        if (offset < 0 || length < 0 || offset > segment.byteSize() - length) {
            throw new IllegalArgumentException(name + " outside its buffer: offset=" + offset + " length=" + length
                    + " bufferLength=" + segment.byteSize());
        }
        if (length < minimumLength()) {
            throw new IllegalArgumentException(
                    "truncated " + name + ": length=" + length + " needed=" + minimumLength());
        }
        if (stringName != null) {
            final short stringLength = segment.get(ControlCodec.INT16, offset + blockLength);
            if (stringLength < -1 || blockLength + Short.BYTES + (long) Math.max(0, stringLength) > length) {
                throw new IllegalArgumentException("truncated " + name + ": " + stringName + " runs past the message:"
                        + " stringOffset=" + blockLength + " stringLength=" + stringLength + " length=" + length);
            }
        }
        this.segment = segment;
        this.offset = offset;
        this.limit = length;
        return self();
    }

    /** Views the received message that runs from {@code offset} to the end of {@code segment}. */
    public T wrap(final MemorySegment segment, final long offset) {
        return wrap(segment, offset, segment.byteSize() - offset);
    }

    /**
     * Views room for a message at {@code offset} of {@code segment}, up to the segment's end: zeroes the block and makes
     * the string null.
     *
     * @throws IllegalArgumentException if not even the block (and the string's length) fits
     */
    public T wrapForEncode(final MemorySegment segment, final long offset) {
        final long capacity = segment.byteSize() - offset;
        if (offset < 0 || capacity < minimumLength()) {
            throw new IllegalArgumentException("no room for " + name + ": offset=" + offset + " capacity=" + capacity
                    + " needed=" + minimumLength());
        }
        this.segment = segment;
        this.offset = offset;
        this.limit = capacity;
        segment.asSlice(offset, blockLength).fill((byte) 0);
        if (stringName != null) {
            segment.set(ControlCodec.INT16, offset + blockLength, (short) -1);
        }
        return self();
    }

    /** Bytes the message takes: the block and, if it has one, the string. */
    public int encodedLength() {
        return stringName == null
                ? blockLength
                : blockLength + Short.BYTES + Math.max(0, segment.get(ControlCodec.INT16, offset + blockLength));
    }

    /** The memory this flyweight views. */
    public MemorySegment segment() {
        return segment;
    }

    /** Where the message starts in {@link #segment()}. */
    public long segmentOffset() {
        return offset;
    }

    protected final short getInt16(final int field) {
        return segment.get(ControlCodec.INT16, offset + field);
    }

    protected final void putInt16(final int field, final short value) {
        segment.set(ControlCodec.INT16, offset + field, value);
    }

    protected final int getInt32(final int field) {
        return segment.get(ControlCodec.INT32, offset + field);
    }

    protected final void putInt32(final int field, final int value) {
        segment.set(ControlCodec.INT32, offset + field, value);
    }

    protected final long getInt64(final int field) {
        return segment.get(ControlCodec.INT64, offset + field);
    }

    protected final void putInt64(final int field, final long value) {
        segment.set(ControlCodec.INT64, offset + field, value);
    }

    protected final void putInt8(final int field, final byte value) {
        segment.set(ValueLayout.JAVA_BYTE, offset + field, value);
    }

    /** A copy of the {@code length} raw bytes at {@code field}. */
    protected final byte[] getBytes(final int field, final int length) {
        final byte[] bytes = new byte[length];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset + field, bytes, 0, length);
        return bytes;
    }

    /** Writes the raw bytes of a field of exactly {@code length} bytes. */
    protected final void putBytes(final int field, final int length, final byte[] bytes, final String fieldName) {
        if (bytes.length != length) {
            throw new IllegalArgumentException(
                    name + ": " + fieldName + " has " + length + " bytes: length=" + bytes.length);
        }
        MemorySegment.copy(bytes, 0, segment, ValueLayout.JAVA_BYTE, offset + field, length);
    }

    /** The string at {@code field} (null for length -1); {@link #wrap} checked that it lies inside the message. */
    protected final String getString(final int field) {
        return ControlCodec.getString(segment, offset + field);
    }

    /**
     * Writes {@code value} at {@code field}.
     *
     * @throws IllegalArgumentException if it does not fit the room this flyweight was wrapped over
     */
    protected final void putString(final int field, final String value) {
        final int length = ControlCodec.stringLength(value);
        if (field + length > limit) {
            throw new IllegalArgumentException("no room for the " + stringName + " of " + name + ": stringOffset="
                    + field + " stringLength=" + length + " capacity=" + limit);
        }
        ControlCodec.putString(segment, offset + field, value);
    }

    /** The room this flyweight was wrapped over: the message's length when reading, the capacity when writing. */
    protected final long limit() {
        return limit;
    }

    @SuppressWarnings("unchecked")
    protected final T self() {
        return (T) this;
    }

    private int minimumLength() {
        return stringName == null ? blockLength : blockLength + Short.BYTES;
    }

    @Override
    public String toString() {
        return segment == null
                ? name + "{unwrapped}"
                : name + "{segmentOffset=" + offset + ", length=" + encodedLength() + '}';
    }
}
