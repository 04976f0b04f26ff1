package io.isthmus.protocol.record;

import static io.isthmus.protocol.record.InvalidRecordBatchException.Reason.INVALID_FIELD_LENGTH;
import static io.isthmus.protocol.record.InvalidRecordBatchException.Reason.INVALID_HEADER_COUNT;
import static io.isthmus.protocol.record.InvalidRecordBatchException.Reason.RECORD_LENGTH_MISMATCH;
import static io.isthmus.protocol.record.InvalidRecordBatchException.Reason.RECORD_OVERRUN;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Flyweight over one record of a batch, read in place.
 *
 * <p>One instance is reused for every record of an iteration: {@link #wrap} parses the record's varints, checks that
 * every field lies inside the record and that the fields add up to the record's length, and records positions. The
 * accessors then allocate nothing, except {@link #key()}, {@link #value()} and friends, which create slice objects
 * (use {@link #segment()} with {@link #keyOffset()}/{@link #valueOffset()} to stay allocation-free).
 *
 * <p>For an uncompressed batch {@link #segment()} is the segment the batch was wrapped on; for a compressed batch it
 * is the decompression buffer, valid until that buffer is reused for the next batch.
 */
public final class Record {
    private static final ValueLayout.OfLong LE_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    private final Varint.Reader reader = new Varint.Reader();
    private final Header header = new Header();

    private MemorySegment segment;
    private long position;
    private long end;
    private byte attributes;
    private long timestampDelta;
    private int offsetDelta;
    private long offset;
    private long timestamp;
    private boolean logAppendTime;
    private long keyOffset;
    private int keySize;
    private long valueOffset;
    private int valueSize;
    private int headerCount;
    private long headersOffset;

    /**
     * Parses the record at {@code position} (its length varint), reading nothing at or past {@code limit}.
     *
     * @param logAppendTime the batch's max timestamp for a log-append-time batch, otherwise
     *     {@link RecordBatchDescriptor#NO_TIMESTAMP}
     * @return the position just past the record
     * @throws InvalidRecordBatchException if the record is malformed (positions are absolute in {@code segment}, the
     *     batch offset is -1: callers re-target it)
     */
    public long wrap(
            final MemorySegment segment,
            final long position,
            final long limit,
            final long baseOffset,
            final long baseTimestamp,
            final long logAppendTime) {
        final long recordEnd = wrapCommon(segment, position, limit, baseOffset, baseTimestamp, logAppendTime);
        return recordEnd >= 0
                ? recordEnd
                : wrapChecked(segment, position, limit, baseOffset, baseTimestamp, logAppendTime);
    }

    /**
     * The common record read with few memory accesses: every varint of one or two bytes, no headers, and the fields
     * adding up to the record's length. It reads the record a word at a time (one bounds check per word instead of
     * one per byte) and commits nothing unless all of that holds; anything else, malformed records included, returns
     * -1 for {@link #wrapChecked} to read byte by byte and reject with the exact reason. Words may extend past the
     * record (never past the segment): what lies beyond is only used if the sizes put it inside the record.
     *
     * <p>Why: the consumer's profile at 100-byte records charged about half its Java time to per-byte varint reads.
     */
    private long wrapCommon(
            final MemorySegment segment,
            final long position,
            final long limit,
            final long baseOffset,
            final long baseTimestamp,
            final long logAppendTime) {
        final long segmentEnd = segment.byteSize();
        if (position < 0 || position > segmentEnd - 2 * Long.BYTES) {
            return -1;
        }
        long word = segment.get(LE_LONG, position);
        long v = shortVarint(word);
        if (v < 0) {
            return -1;
        }
        final int bodyLength = zigzag(v);
        final long bodyStart = position + size(v);
        final long recordEnd = bodyStart + bodyLength;
        if (bodyLength < 0 || recordEnd > Math.min(limit, segmentEnd)) {
            return -1;
        }
        // attributes (1 byte), timestampDelta, offsetDelta and the key length: at most 7 bytes, all in this word.
        word = segment.get(LE_LONG, bodyStart);
        final byte attrs = (byte) word;
        word >>>= Byte.SIZE;
        v = shortVarint(word);
        if (v < 0) {
            return -1;
        }
        final long tsDelta = zigzag(v);
        int used = 1 + size(v);
        word >>>= Byte.SIZE * size(v);
        v = shortVarint(word);
        if (v < 0) {
            return -1;
        }
        final int offDelta = zigzag(v);
        used += size(v);
        word >>>= Byte.SIZE * size(v);
        v = shortVarint(word);
        if (v < 0) {
            return -1;
        }
        final int kSize = zigzag(v);
        final long kOffset = bodyStart + used + size(v);
        if (kSize < -1) {
            return -1;
        }
        final long valueLengthAt = kOffset + Math.max(kSize, 0);
        if (valueLengthAt > recordEnd || valueLengthAt > segmentEnd - Long.BYTES) {
            return -1;
        }
        word = segment.get(LE_LONG, valueLengthAt);
        v = shortVarint(word);
        if (v < 0) {
            return -1;
        }
        final int vSize = zigzag(v);
        final long vOffset = valueLengthAt + size(v);
        final long headerCountAt = vOffset + Math.max(vSize, 0);
        // No headers: the header count is the record's last byte, and zero.
        if (vSize < -1 || headerCountAt != recordEnd - 1 || segment.get(ValueLayout.JAVA_BYTE, headerCountAt) != 0) {
            return -1;
        }
        this.segment = segment;
        this.position = position;
        this.end = recordEnd;
        this.attributes = attrs;
        this.timestampDelta = tsDelta;
        this.offsetDelta = offDelta;
        placeInBatch(baseOffset, baseTimestamp, logAppendTime);
        this.keyOffset = kOffset;
        this.keySize = kSize;
        this.valueOffset = vOffset;
        this.valueSize = vSize;
        this.headerCount = 0;
        this.headersOffset = recordEnd;
        return recordEnd;
    }

    /** The offset and timestamp from the deltas just read and the batch's base values, for both ways of reading. */
    private void placeInBatch(final long baseOffset, final long baseTimestamp, final long logAppendTime) {
        this.offset = baseOffset + offsetDelta;
        this.logAppendTime = logAppendTime != RecordBatchDescriptor.NO_TIMESTAMP;
        this.timestamp = this.logAppendTime ? logAppendTime : baseTimestamp + timestampDelta;
    }

    /**
     * An unsigned varint of one or two bytes at the low end of {@code word}: its value in the low 32 bits and its
     * size in the next, or -1 if it is longer.
     */
    private static long shortVarint(final long word) {
        if ((word & 0x80) == 0) {
            return (word & 0x7F) | (1L << 32);
        }
        if ((word & 0x8000) == 0) {
            return (word & 0x7F) | ((word >>> 1) & 0x3F80) | (2L << 32);
        }
        return -1;
    }

    private static int zigzag(final long shortVarint) {
        final int raw = (int) shortVarint;
        return (raw >>> 1) ^ -(raw & 1);
    }

    private static int size(final long shortVarint) {
        return (int) (shortVarint >>> 32);
    }

    /**
     * Reads every field byte by byte, checking each, with headers: the general case and every malformed record.
     * Package-private for the test that holds {@link #wrap}'s word-at-a-time path to it.
     */
    long wrapChecked(
            final MemorySegment segment,
            final long position,
            final long limit,
            final long baseOffset,
            final long baseTimestamp,
            final long logAppendTime) {
        final Varint.Reader r = reader.reset(segment, position, limit);
        final int bodyLength = r.readVarint();
        final long bodyStart = r.position();
        if (bodyLength < 0 || bodyLength > r.remaining()) {
            throw new InvalidRecordBatchException(
                    RECORD_OVERRUN, -1, position, "record length", "0.." + r.remaining(), Integer.toString(bodyLength));
        }
        final long recordEnd = bodyStart + bodyLength;
        r.reset(segment, bodyStart, recordEnd);
        this.segment = segment;
        this.position = position;
        this.end = recordEnd;
        this.attributes = r.readByte("record attributes");
        this.timestampDelta = r.readVarlong();
        this.offsetDelta = r.readVarint();
        placeInBatch(baseOffset, baseTimestamp, logAppendTime);

        final int kSize = r.readVarint();
        this.keyOffset = r.position();
        this.keySize = kSize;
        if (kSize >= 0) {
            r.skip(kSize, "key");
        } else if (kSize != -1) {
            throw fieldLength("key length", keyOffset, kSize);
        }
        final int vSize = r.readVarint();
        this.valueOffset = r.position();
        this.valueSize = vSize;
        if (vSize >= 0) {
            r.skip(vSize, "value");
        } else if (vSize != -1) {
            throw fieldLength("value length", valueOffset, vSize);
        }
        final long headerCountPosition = r.position();
        final int hCount = r.readVarint();
        if (hCount < 0) {
            throw new InvalidRecordBatchException(
                    INVALID_HEADER_COUNT, -1, headerCountPosition, "header count", ">= 0", Integer.toString(hCount));
        }
        this.headerCount = hCount;
        this.headersOffset = r.position();
        for (int i = 0; i < hCount; i++) {
            final long keyLengthPosition = r.position();
            final int hk = r.readVarint();
            if (hk < 0) {
                throw new InvalidRecordBatchException(
                        INVALID_FIELD_LENGTH,
                        -1,
                        keyLengthPosition,
                        "header key length",
                        ">= 0 (header keys are never null)",
                        Integer.toString(hk));
            }
            r.skip(hk, "header key");
            final int hv = r.readVarint();
            if (hv >= 0) {
                r.skip(hv, "header value");
            } else if (hv != -1) {
                throw fieldLength("header value length", r.position(), hv);
            }
        }
        if (r.position() != recordEnd) {
            throw new InvalidRecordBatchException(
                    RECORD_LENGTH_MISMATCH,
                    -1,
                    position,
                    "record length",
                    Long.toString(r.position() - bodyStart),
                    Integer.toString(bodyLength));
        }
        return recordEnd;
    }

    private static InvalidRecordBatchException fieldLength(final String field, final long position, final int size) {
        return new InvalidRecordBatchException(
                INVALID_FIELD_LENGTH, -1, position, field, ">= -1", Integer.toString(size));
    }

    /** The segment the record lies in. */
    public MemorySegment segment() {
        return segment;
    }

    /** Position of the record's length varint in {@link #segment()}. */
    public long position() {
        return position;
    }

    /** Size of the record in bytes, including its length varint. */
    public int sizeInBytes() {
        return (int) (end - position);
    }

    /** Absolute offset: the batch's base offset plus {@link #offsetDelta()}. */
    public long offset() {
        return offset;
    }

    public int offsetDelta() {
        return offsetDelta;
    }

    /**
     * The record's timestamp: the batch's base timestamp plus {@link #timestampDelta()}, or, in a log-append-time
     * batch, the batch's max timestamp (as Kafka's {@code DefaultRecord} does).
     */
    public long timestamp() {
        return timestamp;
    }

    public long timestampDelta() {
        return timestampDelta;
    }

    /** What {@link #timestamp()} is: the producer's create time, or the time the broker appended the batch. */
    public TimestampType timestampType() {
        return logAppendTime ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME;
    }

    /** The record attributes byte (unused by Kafka so far). */
    public byte attributes() {
        return attributes;
    }

    public boolean hasKey() {
        return keySize >= 0;
    }

    /** Key size in bytes, -1 for a null key. */
    public int keySize() {
        return keySize;
    }

    /** Position of the key bytes in {@link #segment()}. */
    public long keyOffset() {
        return keyOffset;
    }

    /** The key as a slice of {@link #segment()}, or null. Allocates the slice object. */
    public MemorySegment key() {
        return keySize < 0 ? null : segment.asSlice(keyOffset, keySize);
    }

    /** A heap copy of the key, or null. */
    public byte[] keyAsArray() {
        return keySize < 0 ? null : segment.asSlice(keyOffset, keySize).toArray(ValueLayout.JAVA_BYTE);
    }

    public boolean hasValue() {
        return valueSize >= 0;
    }

    /** Value size in bytes, -1 for a null value (a tombstone). */
    public int valueSize() {
        return valueSize;
    }

    /** Position of the value bytes in {@link #segment()}. */
    public long valueOffset() {
        return valueOffset;
    }

    /** The value as a slice of {@link #segment()}, or null. Allocates the slice object. */
    public MemorySegment value() {
        return valueSize < 0 ? null : segment.asSlice(valueOffset, valueSize);
    }

    /** A heap copy of the value, or null. */
    public byte[] valueAsArray() {
        return valueSize < 0 ? null : segment.asSlice(valueOffset, valueSize).toArray(ValueLayout.JAVA_BYTE);
    }

    public int headerCount() {
        return headerCount;
    }

    /**
     * The header at {@code index}, as the record's reused {@link Header} flyweight (valid until the next call). Walks
     * the headers from the first: O(index).
     */
    public Header header(final int index) {
        if (index < 0 || index >= headerCount) {
            throw new IndexOutOfBoundsException("header " + index + " of " + headerCount);
        }
        final Varint.Reader r = reader.reset(segment, headersOffset, end);
        for (int i = 0; ; i++) {
            final int keyLength = r.readVarint();
            final long keyPos = r.position();
            r.skip(keyLength, "header key");
            final int valueLength = r.readVarint();
            final long valuePos = r.position();
            if (valueLength > 0) {
                r.skip(valueLength, "header value");
            }
            if (i == index) {
                header.set(segment, keyPos, keyLength, valuePos, valueLength);
                return header;
            }
        }
    }

    /** Calls {@code handler} for each header in order, with the reused {@link Header}; allocates nothing. */
    public void forEachHeader(final HeaderHandler handler) {
        final Varint.Reader r = reader.reset(segment, headersOffset, end);
        for (int i = 0; i < headerCount; i++) {
            final int keyLength = r.readVarint();
            final long keyPos = r.position();
            r.skip(keyLength, "header key");
            final int valueLength = r.readVarint();
            final long valuePos = r.position();
            if (valueLength > 0) {
                r.skip(valueLength, "header value");
            }
            header.set(segment, keyPos, keyLength, valuePos, valueLength);
            handler.onHeader(header);
        }
    }

    /** The last header whose key equals {@code utf8Key} (as Kafka's {@code Headers.lastHeader}), or null; allocates nothing. */
    public Header lastHeader(final byte[] utf8Key) {
        final Varint.Reader r = reader.reset(segment, headersOffset, end);
        long foundKey = -1;
        long foundValue = -1;
        int foundValueLength = -1;
        for (int i = 0; i < headerCount; i++) {
            final int keyLength = r.readVarint();
            final long keyPos = r.position();
            r.skip(keyLength, "header key");
            final int valueLength = r.readVarint();
            final long valuePos = r.position();
            if (valueLength > 0) {
                r.skip(valueLength, "header value");
            }
            header.set(segment, keyPos, keyLength, valuePos, valueLength);
            if (header.keyEquals(utf8Key)) {
                foundKey = keyPos;
                foundValue = valuePos;
                foundValueLength = valueLength;
            }
        }
        if (foundKey < 0) {
            return null;
        }
        header.set(segment, foundKey, utf8Key.length, foundValue, foundValueLength);
        return header;
    }

    @Override
    public String toString() {
        return "Record{offset=" + offset + ", timestamp=" + timestamp + ", keySize=" + keySize + ", valueSize="
                + valueSize + ", headers=" + headerCount + '}';
    }
}
