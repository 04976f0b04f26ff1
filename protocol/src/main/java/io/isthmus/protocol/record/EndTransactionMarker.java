package io.isthmus.protocol.record;

import java.lang.foreign.MemorySegment;

/**
 * Kafka's transaction marker: the single record of the control batch a transaction coordinator writes into every
 * partition of a transaction when it ends, byte-compatible with Kafka's {@code EndTransactionMarker}. The batch has the
 * control and transactional attribute bits, the transaction's producer id and epoch, base sequence -1, and is never
 * compressed.
 *
 * <pre>
 *   key (4 bytes)                       value (6 bytes)
 *  +----------------+----------------+  +----------------+-------------------------------+
 *  | version  int16 | type     int16 |  | version  int16 | coordinator epoch       int32 |
 *  |       0        | 0 abort 1 commit|  |       0        |                               |
 *  +----------------+----------------+  +----------------+-------------------------------+
 * </pre>
 *
 * <p>Readers must accept key versions above 0 (Kafka only reads the type), so {@link #controlType} reads the type
 * whatever the version says.
 */
public final class EndTransactionMarker {
    /** Control record type of a marker that aborts the transaction. */
    public static final short ABORT = 0;
    /** Control record type of a marker that commits the transaction. */
    public static final short COMMIT = 1;
    /** Not a transaction marker (another control record type, or no readable key). */
    public static final short UNKNOWN = -1;
    /** The coordinator epoch of a batch that holds no readable marker. */
    public static final int UNKNOWN_COORDINATOR_EPOCH = -1;

    static final int KEY_LENGTH = 4;
    static final int KEY_TYPE_OFFSET = 2;
    static final int VALUE_LENGTH = 6;
    static final int VALUE_COORDINATOR_EPOCH_OFFSET = 2;
    /** Header, one record of at most {@value #MAX_RECORD_LENGTH} bytes. */
    public static final int MAX_BATCH_LENGTH = RecordBatchDescriptor.HEADER_LENGTH + 32;

    private static final int MAX_RECORD_LENGTH = 32;

    private EndTransactionMarker() {}

    /**
     * Writes a whole marker batch at {@code offset} of {@code target} (at most {@link #MAX_BATCH_LENGTH} bytes) with base
     * offset 0 (the log assigns the real one) and returns its size.
     */
    public static int write(
            final RecordBatchBuilder builder,
            final MemorySegment target,
            final long offset,
            final long producerId,
            final short producerEpoch,
            final boolean commit,
            final int coordinatorEpoch,
            final long timestamp) {
        final byte[] key = new byte[KEY_LENGTH];
        final MemorySegment keySegment = MemorySegment.ofArray(key);
        keySegment.set(RecordBatchDescriptor.INT16, KEY_TYPE_OFFSET, commit ? COMMIT : ABORT);
        final byte[] value = new byte[VALUE_LENGTH];
        MemorySegment.ofArray(value).set(RecordBatchDescriptor.INT32, VALUE_COORDINATOR_EPOCH_OFFSET, coordinatorEpoch);
        builder.compression(CompressionType.NONE)
                .timestampType(TimestampType.CREATE_TIME)
                .producer(producerId, producerEpoch, RecordBatchDescriptor.NO_SEQUENCE)
                .transactional(true)
                .control(true);
        try {
            builder.begin(target, offset, Math.min(target.byteSize(), offset + MAX_BATCH_LENGTH), 0L);
            builder.append(timestamp, key, value);
            return builder.finish();
        } finally {
            builder.transactional(false).control(false).producer(-1, (short) -1, RecordBatchDescriptor.NO_SEQUENCE);
        }
    }

    /**
     * The control type ({@link #ABORT}, {@link #COMMIT}) of the control batch at {@code batchPosition}, read from its
     * first record's key; {@link #UNKNOWN} if the batch is compressed, empty, or its key is not a marker key. The batch
     * must already be validated (its length and records are trusted to lie within {@code segment}).
     */
    public static short controlType(final MemorySegment segment, final long batchPosition) {
        final Key key = keyOf(segment, batchPosition);
        if (key == null) {
            return UNKNOWN;
        }
        final short type = segment.get(RecordBatchDescriptor.INT16, key.position() + KEY_TYPE_OFFSET);
        return type == ABORT || type == COMMIT ? type : UNKNOWN;
    }

    /**
     * The coordinator epoch the marker batch at {@code batchPosition} carries in its first record's value, or {@link
     * #UNKNOWN_COORDINATOR_EPOCH} if the batch holds no readable marker. The batch must already be validated.
     */
    public static int coordinatorEpoch(final MemorySegment segment, final long batchPosition) {
        final Key key = keyOf(segment, batchPosition);
        if (key == null || controlType(segment, batchPosition) == UNKNOWN) {
            // Another control record (not COMMIT or ABORT) carries no coordinator epoch in its value.
            return UNKNOWN_COORDINATOR_EPOCH;
        }
        final long end = batchPosition + RecordBatchDescriptor.batchSize(segment, batchPosition);
        final Varint.Reader reader = new Varint.Reader().reset(segment, key.position() + key.length(), end);
        final int valueLength = reader.readVarint();
        if (valueLength < VALUE_LENGTH || reader.position() + valueLength > end) {
            return UNKNOWN_COORDINATOR_EPOCH;
        }
        return segment.get(RecordBatchDescriptor.INT32, reader.position() + VALUE_COORDINATOR_EPOCH_OFFSET);
    }

    /** Where the first record's key of a control batch lies, and its length (at least {@link #KEY_LENGTH}). */
    private record Key(long position, int length) {}

    /** The first record's key of the control batch at {@code batchPosition}; null if it is not a marker key. */
    private static Key keyOf(final MemorySegment segment, final long batchPosition) {
        final short attributes =
                segment.get(RecordBatchDescriptor.INT16, batchPosition + RecordBatchDescriptor.ATTRIBUTES_OFFSET);
        final int recordCount =
                segment.get(RecordBatchDescriptor.INT32, batchPosition + RecordBatchDescriptor.RECORDS_COUNT_OFFSET);
        if ((attributes & RecordBatchDescriptor.COMPRESSION_CODEC_MASK) != 0 || recordCount < 1) {
            return null;
        }
        final long end = batchPosition + RecordBatchDescriptor.batchSize(segment, batchPosition);
        final Varint.Reader reader =
                new Varint.Reader().reset(segment, batchPosition + RecordBatchDescriptor.RECORDS_OFFSET, end);
        reader.readVarint(); // record length
        reader.readByte("record attributes");
        reader.readVarlong(); // timestamp delta
        reader.readVarint(); // offset delta
        final int keyLength = reader.readVarint();
        return keyLength < KEY_LENGTH || reader.position() + keyLength > end
                ? null
                : new Key(reader.position(), keyLength);
    }
}
