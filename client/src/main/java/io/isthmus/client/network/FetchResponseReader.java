package io.isthmus.client.network;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.types.SchemaException;

/**
 * A FetchResponse body read in place, in the receive buffer it arrived in: a cursor over its topics and their
 * partitions that hands out each partition's record bytes as an offset and a length in that buffer. Nothing is copied,
 * nothing is parsed into objects, and the records stay a {@link MemorySegment} range from the socket to the
 * application (kafka-clients' parser would turn them into a {@link java.nio.ByteBuffer} view to turn back).
 *
 * <pre>{@code
 * reader.wrap(buffer.segment(), response.bodyOffset(), buffer.frameLength(), response.version());
 * while (reader.nextTopic()) {
 *     while (reader.nextPartition()) {
 *         use(reader.partitionIndex(), reader.recordsOffset(), reader.recordsLength());
 *     }
 * }
 * }</pre>
 *
 * <p>Reads versions {@value #OLDEST_VERSION} to {@value #LATEST_VERSION} of Kafka's FetchResponse schema: flexible
 * (compact lengths, tagged fields) from version 12, topic ids instead of names from 13. Tagged fields (diverging epoch,
 * current leader, snapshot id, node endpoints) are stepped over. A partition's aborted transactions (what a {@code
 * read_committed} fetch brings: producer id and first offset of each transaction aborted in the fetched range) are
 * read into two reused arrays, {@link #abortedProducerId(int)} and {@link #abortedFirstOffset(int)}. Every length is
 * checked against the frame: a malformed response throws {@link SchemaException}, whatever its bytes.
 *
 * <p>Reused: {@link #wrap} starts over and allocates nothing (the aborted-transaction arrays grow, rarely, when a
 * partition lists more than ever before). Not thread-safe.
 */
public final class FetchResponseReader {
    /** The oldest FetchResponse version kafka-clients can still negotiate. */
    public static final short OLDEST_VERSION = 4;
    /** The newest FetchResponse version this reader knows. */
    public static final short LATEST_VERSION = 18;

    private static final short FIRST_FLEXIBLE_VERSION = 12;
    private static final short FIRST_TOPIC_ID_VERSION = 13;
    private static final ValueLayout.OfShort INT16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong INT64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int ABORTED_TRANSACTION_BYTES = 16;

    private MemorySegment segment;
    private long position;
    private long limit;
    private short version;
    private boolean flexible;

    private short errorCode;
    private int topicsLeft;
    private boolean inTopic;
    private boolean trailerRead;

    private long topicNameOffset;
    private int topicNameLength;
    private long topicIdMostBits;
    private long topicIdLeastBits;
    private int partitionsLeft;

    private int partitionIndex;
    private short partitionErrorCode;
    private long highWatermark;
    private long lastStableOffset;
    private long logStartOffset;
    private int preferredReadReplica;
    private long recordsOffset;
    private int recordsLength;
    private long[] abortedProducerIds = new long[8];
    private long[] abortedFirstOffsets = new long[8];
    private int abortedCount;

    /**
     * Points the reader at a response body in {@code [offset, limit)} of {@code segment} and reads its top-level
     * fields.
     *
     * @param version the FetchResponse version: the version the request was sent at
     */
    public FetchResponseReader wrap(
            final MemorySegment segment, final long offset, final long limit, final short version) {
        if (version < OLDEST_VERSION || version > LATEST_VERSION) {
            throw new SchemaException("FetchResponse version " + version + " is not readable in place (versions "
                    + OLDEST_VERSION + " to " + LATEST_VERSION + ")");
        }
        if (offset < 0 || limit > segment.byteSize() || offset > limit) {
            throw new IllegalArgumentException("response body outside its buffer: offset=" + offset + ", limit=" + limit
                    + ", bufferBytes=" + segment.byteSize());
        }
        this.segment = segment;
        this.position = offset;
        this.limit = limit;
        this.version = version;
        this.flexible = version >= FIRST_FLEXIBLE_VERSION;
        this.inTopic = false;
        this.trailerRead = false;
        this.partitionsLeft = 0;
        this.abortedCount = 0;
        readInt(); // throttle time
        if (version >= 7) {
            errorCode = readShort();
            readInt(); // session id: this consumer uses no fetch sessions
        } else {
            errorCode = 0;
        }
        topicsLeft = readArrayLength();
        return this;
    }

    /** The top-level error code (0: none). */
    public short errorCode() {
        return errorCode;
    }

    /** The version the response is read at. */
    public short version() {
        return version;
    }

    /** Whether topics are named by id ({@link #topicIdEquals}) rather than by name ({@link #topicNameEquals}). */
    public boolean hasTopicIds() {
        return version >= FIRST_TOPIC_ID_VERSION;
    }

    // ------------------------------------------------------------------ topics

    /** Moves to the next topic, stepping over any partitions of the current one not read; false after the last. */
    public boolean nextTopic() {
        if (inTopic) {
            while (nextPartition()) {
                // stepping over the partitions the caller did not read
            }
            if (flexible) {
                skipTaggedFields();
            }
            inTopic = false;
        }
        if (topicsLeft <= 0) {
            if (flexible && !trailerRead) {
                skipTaggedFields();
            }
            trailerRead = true;
            return false;
        }
        topicsLeft--;
        if (hasTopicIds()) {
            require(16);
            topicIdMostBits = segment.get(INT64, position);
            topicIdLeastBits = segment.get(INT64, position + 8);
            position += 16;
            topicNameLength = -1;
        } else {
            topicNameLength = readStringLength();
            topicNameOffset = position;
            position += topicNameLength;
        }
        partitionsLeft = readArrayLength();
        inTopic = true;
        return true;
    }

    /**
     * Whether the current topic is named {@code name}, compared in place. Kafka topic names are ASCII (letters, digits,
     * '.', '_', '-'), so byte and char compare alike.
     */
    public boolean topicNameEquals(final String name) {
        if (topicNameLength != name.length()) {
            return false;
        }
        for (int i = 0; i < topicNameLength; i++) {
            if (segment.get(ValueLayout.JAVA_BYTE, topicNameOffset + i) != (byte) name.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the current topic has the id {@code topicId} (versions 13 and later). */
    public boolean topicIdEquals(final Uuid topicId) {
        return topicNameLength < 0
                && topicId.getMostSignificantBits() == topicIdMostBits
                && topicId.getLeastSignificantBits() == topicIdLeastBits;
    }

    // ------------------------------------------------------------------ partitions

    /** Moves to the next partition of the current topic and reads its fields; false after the last. */
    public boolean nextPartition() {
        if (partitionsLeft <= 0) {
            return false;
        }
        partitionsLeft--;
        partitionIndex = readInt();
        partitionErrorCode = readShort();
        highWatermark = readLong();
        lastStableOffset = readLong();
        logStartOffset = version >= 5 ? readLong() : -1;
        final int abortedTransactions = readArrayLength();
        abortedCount = 0;
        for (int i = 0; i < abortedTransactions; i++) {
            require(ABORTED_TRANSACTION_BYTES);
            if (abortedCount == abortedProducerIds.length) {
                // Grows as entries are read, never by the count alone: a malformed count cannot make it allocate.
                abortedProducerIds = Arrays.copyOf(abortedProducerIds, abortedCount * 2);
                abortedFirstOffsets = Arrays.copyOf(abortedFirstOffsets, abortedCount * 2);
            }
            abortedProducerIds[abortedCount] = readLong();
            abortedFirstOffsets[abortedCount] = readLong();
            abortedCount++;
            if (flexible) {
                skipTaggedFields();
            }
        }
        preferredReadReplica = version >= 11 ? readInt() : -1;
        recordsLength = readBytesLength();
        recordsOffset = position;
        if (recordsLength > 0) {
            skip(recordsLength);
        }
        if (flexible) {
            skipTaggedFields();
        }
        return true;
    }

    public int partitionIndex() {
        return partitionIndex;
    }

    /** The partition's error code (0: none). */
    public short partitionErrorCode() {
        return partitionErrorCode;
    }

    public long highWatermark() {
        return highWatermark;
    }

    public long lastStableOffset() {
        return lastStableOffset;
    }

    /** The log start offset, -1 before version 5. */
    public long logStartOffset() {
        return logStartOffset;
    }

    /** How many aborted transactions the partition lists (0 for a null list: {@code read_uncommitted}). */
    public int abortedTransactionCount() {
        return abortedCount;
    }

    /** The producer id of the partition's aborted transaction {@code index}, in the order the broker listed them. */
    public long abortedProducerId(final int index) {
        checkAbortedIndex(index);
        return abortedProducerIds[index];
    }

    /** The first offset of the partition's aborted transaction {@code index}. */
    public long abortedFirstOffset(final int index) {
        checkAbortedIndex(index);
        return abortedFirstOffsets[index];
    }

    private void checkAbortedIndex(final int index) {
        if (index < 0 || index >= abortedCount) {
            throw new IndexOutOfBoundsException("aborted transaction " + index + " of " + abortedCount);
        }
    }

    /** The preferred read replica, -1 before version 11. */
    public int preferredReadReplica() {
        return preferredReadReplica;
    }

    /** Where the partition's record batches start in the segment. */
    public long recordsOffset() {
        return recordsOffset;
    }

    /** The bytes of record batches; -1 for null records. The last batch may be cut short. */
    public int recordsLength() {
        return recordsLength;
    }

    /** Where the reader is: after the last topic, the end of the body. */
    public long position() {
        return position;
    }

    // ------------------------------------------------------------------ primitives

    private void require(final long bytes) {
        if (bytes < 0 || position + bytes > limit) {
            throw new SchemaException("malformed FetchResponse v" + version + ": " + bytes + " bytes needed at "
                    + position + ", body ends at " + limit);
        }
    }

    private void skip(final long bytes) {
        require(bytes);
        position += bytes;
    }

    private short readShort() {
        require(2);
        final short value = segment.get(INT16, position);
        position += 2;
        return value;
    }

    private int readInt() {
        require(4);
        final int value = segment.get(INT32, position);
        position += 4;
        return value;
    }

    private long readLong() {
        require(8);
        final long value = segment.get(INT64, position);
        position += 8;
        return value;
    }

    private int readUnsignedVarint() {
        int value = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            require(1);
            final byte b = segment.get(ValueLayout.JAVA_BYTE, position++);
            value |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new SchemaException(
                "malformed FetchResponse v" + version + ": varint longer than 5 bytes at " + (position - 5));
    }

    /** An array's element count: 0 for a null array. */
    private int readArrayLength() {
        final int length = flexible ? readUnsignedVarint() - 1 : readInt();
        if (length < -1) {
            throw new SchemaException("malformed FetchResponse v" + version + ": array length " + length);
        }
        return Math.max(0, length);
    }

    private int readStringLength() {
        final int length = flexible ? readUnsignedVarint() - 1 : readShort();
        if (length < 0) {
            throw new SchemaException("malformed FetchResponse v" + version + ": topic name length " + length);
        }
        require(length);
        return length;
    }

    /** A nullable bytes field's length: -1 for null. */
    private int readBytesLength() {
        final int length = flexible ? readUnsignedVarint() - 1 : readInt();
        if (length < -1) {
            throw new SchemaException("malformed FetchResponse v" + version + ": records length " + length);
        }
        require(Math.max(0, length));
        return length;
    }

    private void skipTaggedFields() {
        final int fields = readUnsignedVarint();
        if (fields < 0) {
            throw new SchemaException(
                    "malformed FetchResponse v" + version + ": " + Integer.toUnsignedString(fields) + " tagged fields");
        }
        for (int i = 0; i < fields; i++) {
            readUnsignedVarint(); // tag
            skip(Integer.toUnsignedLong(readUnsignedVarint()));
        }
    }
}
