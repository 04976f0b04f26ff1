package io.isthmus.protocol.record;

import static io.isthmus.protocol.record.RecordBatchDescriptor.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Writes one RecordBatch v2 at a time into a caller-provided segment (typically off-heap: a registered RDMA buffer, a
 * mapped log segment), byte-compatible with Kafka's {@code MemoryRecordsBuilder}.
 *
 * <pre>{@code
 * RecordBatchBuilder builder = new RecordBatchBuilder();            // reusable
 * builder.compression(CompressionType.NONE).producer(pid, epoch, seq); // settings apply from the next begin
 * builder.begin(buffer, offset, limit, baseOffset);                  // base timestamp = first record's
 * builder.append(timestamp, keySegment, valueSegment, headers);
 * long valueAt = builder.claimValue(timestamp, key, 128, null);      // zero-copy: write 128 bytes at
 * builder.buffer().set(..., valueAt, ...);                           //   valueAt of buffer()
 * int size = builder.finish();                                       // header, CRC, then length written last
 * }</pre>
 *
 * <p>Uncompressed batches are written in place: each append writes the record straight into the target and
 * allocates nothing (with {@link MemorySegment} or {@code byte[]} arguments and a reused {@link HeaderList}). {@link
 * #finish()} then writes count, last offset delta, timestamps and the CRC, and, after a release fence, the length
 * field last (it lies outside the CRC): a reader that sees a plausible length sees a complete, CRC-valid batch.
 *
 * <p>Compressed batches: records are written into an off-heap scratch buffer owned by the builder (grown by doubling,
 * allocation per growth only), and {@link #finish()} compresses it into the target with a reused {@link
 * BatchCompressor}. Compression needs an off-heap target.
 *
 * <p>Timestamps follow Kafka: the base timestamp is the first record's (unless given to {@link #begin}), the max
 * timestamp is the largest record timestamp, or the log-append time for {@link TimestampType#LOG_APPEND_TIME}.
 *
 * <p>Not thread-safe. {@link #close()} frees the scratch buffer and codec contexts.
 */
public final class RecordBatchBuilder implements AutoCloseable {
    private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;

    // Settings (apply from the next begin).
    private CompressionType compression = CompressionType.NONE;
    private int compressionLevel = Integer.MIN_VALUE;
    private TimestampType timestampType = TimestampType.CREATE_TIME;
    private long logAppendTime = NO_TIMESTAMP;
    private long producerId = NO_PRODUCER_ID;
    private short producerEpoch = NO_PRODUCER_EPOCH;
    private int baseSequence = NO_SEQUENCE;
    private boolean transactional;
    private boolean control;
    private int partitionLeaderEpoch = NO_PARTITION_LEADER_EPOCH;
    private long deleteHorizonMs = NO_TIMESTAMP;

    // Target.
    private MemorySegment target;
    private long batchOffset;
    private long limit;

    // Batch in progress.
    private boolean inProgress;
    private CompressionType batchCompression;
    private long baseOffset;
    private long baseTimestamp;
    private boolean baseTimestampSet;
    private long maxTimestamp;
    private int count;
    private MemorySegment writeSegment;
    private long recordsStart;
    private long writePosition;
    private long writeLimit;

    // Compression scratch.
    private Arena scratchArena;
    private MemorySegment scratch;
    private BatchCompressor compressor;

    // ------------------------------------------------------------------ settings

    /** Codec for the next batches (default NONE). */
    public RecordBatchBuilder compression(final CompressionType compression) {
        this.compression = compression;
        return this;
    }

    /** Codec level for the next batches; default Kafka's ({@link BatchCompressor#defaultLevel}). */
    public RecordBatchBuilder compressionLevel(final int level) {
        this.compressionLevel = level;
        return this;
    }

    /** CREATE_TIME (default), or LOG_APPEND_TIME with the time given by {@link #logAppendTime(long)}. */
    public RecordBatchBuilder timestampType(final TimestampType timestampType) {
        this.timestampType = timestampType;
        return this;
    }

    /** The log-append time written as max timestamp of LOG_APPEND_TIME batches. */
    public RecordBatchBuilder logAppendTime(final long logAppendTime) {
        this.logAppendTime = logAppendTime;
        return this;
    }

    /** Idempotent/transactional producer fields (default -1, -1, -1). */
    public RecordBatchBuilder producer(final long producerId, final short producerEpoch, final int baseSequence) {
        this.producerId = producerId;
        this.producerEpoch = producerEpoch;
        this.baseSequence = baseSequence;
        return this;
    }

    public RecordBatchBuilder producerId(final long producerId) {
        this.producerId = producerId;
        return this;
    }

    public RecordBatchBuilder producerEpoch(final short producerEpoch) {
        this.producerEpoch = producerEpoch;
        return this;
    }

    public RecordBatchBuilder baseSequence(final int baseSequence) {
        this.baseSequence = baseSequence;
        return this;
    }

    public RecordBatchBuilder transactional(final boolean transactional) {
        this.transactional = transactional;
        return this;
    }

    /** Marks batches as control batches (transaction markers and the like). */
    public RecordBatchBuilder control(final boolean control) {
        this.control = control;
        return this;
    }

    public RecordBatchBuilder partitionLeaderEpoch(final int partitionLeaderEpoch) {
        this.partitionLeaderEpoch = partitionLeaderEpoch;
        return this;
    }

    /** Sets the delete-horizon flag and uses the horizon as base timestamp (as Kafka's compaction does); -1 clears. */
    public RecordBatchBuilder deleteHorizonMs(final long deleteHorizonMs) {
        this.deleteHorizonMs = deleteHorizonMs;
        return this;
    }

    // ------------------------------------------------------------------ batch lifecycle

    /** Sets the target for the next batch: it starts at {@code offset}, and may extend to the segment's end. */
    public RecordBatchBuilder wrap(final MemorySegment segment, final long offset) {
        return wrap(segment, offset, segment.byteSize());
    }

    /** Sets the target for the next batch: it starts at {@code offset} and ends at or before {@code limit}. */
    public RecordBatchBuilder wrap(final MemorySegment segment, final long offset, final long limit) {
        if (inProgress) {
            throw new IllegalStateException("a batch is in progress: finish() or abort() it first");
        }
        if (offset < 0 || limit > segment.byteSize() || limit - offset < HEADER_LENGTH) {
            throw new IllegalArgumentException("no room for a batch header at " + offset + " below " + limit);
        }
        this.target = segment;
        this.batchOffset = offset;
        this.limit = limit;
        return this;
    }

    /** Starts a batch in the wrapped target; the base timestamp will be the first record's timestamp. */
    public RecordBatchBuilder begin(final long baseOffset) {
        return start(baseOffset, 0L, false);
    }

    /** Starts a batch in the wrapped target with an explicit base timestamp. */
    public RecordBatchBuilder begin(final long baseOffset, final long baseTimestamp) {
        return start(baseOffset, baseTimestamp, true);
    }

    /** {@link #wrap(MemorySegment, long, long)} then {@link #begin(long)}. */
    public RecordBatchBuilder begin(
            final MemorySegment segment, final long offset, final long limit, final long baseOffset) {
        return wrap(segment, offset, limit).begin(baseOffset);
    }

    /** {@link #wrap(MemorySegment, long, long)} then {@link #begin(long, long)}. */
    public RecordBatchBuilder begin(
            final MemorySegment segment,
            final long offset,
            final long limit,
            final long baseOffset,
            final long baseTimestamp) {
        return wrap(segment, offset, limit).begin(baseOffset, baseTimestamp);
    }

    private RecordBatchBuilder start(final long baseOffset, final long baseTimestamp, final boolean baseTimestampSet) {
        if (inProgress) {
            throw new IllegalStateException("a batch is in progress: finish() or abort() it first");
        }
        if (target == null) {
            throw new IllegalStateException("no target: wrap(segment, offset) first");
        }
        if (timestampType == TimestampType.LOG_APPEND_TIME && logAppendTime == NO_TIMESTAMP) {
            throw new IllegalStateException("LOG_APPEND_TIME batches need logAppendTime(long)");
        }
        this.baseOffset = baseOffset;
        this.baseTimestamp = deleteHorizonMs != NO_TIMESTAMP ? deleteHorizonMs : baseTimestamp;
        this.baseTimestampSet = baseTimestampSet || deleteHorizonMs != NO_TIMESTAMP;
        this.maxTimestamp = NO_TIMESTAMP;
        this.count = 0;
        this.batchCompression = compression;
        if (compression == CompressionType.NONE) {
            writeSegment = target;
            recordsStart = batchOffset + RECORDS_OFFSET;
            writeLimit = limit;
        } else {
            if (!target.isNative()) {
                throw new IllegalStateException("compressed batches need an off-heap target segment");
            }
            if (scratch == null) {
                growScratch(Math.max(64 * 1024, Math.min(limit - batchOffset, 1 << 20)), 0);
            }
            writeSegment = scratch;
            recordsStart = 0;
            writeLimit = scratch.byteSize();
        }
        writePosition = recordsStart;
        inProgress = true;
        return this;
    }

    /** Drops the batch in progress (the target keeps whatever was written). */
    public void abort() {
        inProgress = false;
    }

    public boolean inProgress() {
        return inProgress;
    }

    /** Records appended to the batch in progress. */
    public int recordCount() {
        return count;
    }

    /**
     * Bytes the batch would take if finished now, uncompressed (for a compressed batch: an estimate before
     * compression).
     */
    public long estimatedSizeInBytes() {
        return RECORDS_OFFSET + (writePosition - recordsStart);
    }

    /** The segment records are being written into: the target, or the scratch buffer of a compressed batch. */
    public MemorySegment buffer() {
        return writeSegment;
    }

    /** Encoded size of a record (its length varint included). */
    public static int sizeOfRecord(
            final int offsetDelta,
            final long timestampDelta,
            final int keySize,
            final int valueSize,
            final HeaderList headers) {
        final int body = bodySize(offsetDelta, timestampDelta, keySize, valueSize, HeaderList.encodedSize(headers));
        return Varint.sizeOfVarint(body) + body;
    }

    private static int bodySize(
            final int offsetDelta,
            final long timestampDelta,
            final int keySize,
            final int valueSize,
            final int headersSize) {
        final long body = 1L
                + Varint.sizeOfVarlong(timestampDelta)
                + Varint.sizeOfVarint(offsetDelta)
                + Varint.sizeOfVarint(keySize)
                + Math.max(0, keySize)
                + Varint.sizeOfVarint(valueSize)
                + Math.max(0, valueSize)
                + headersSize;
        if (body > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("record too large: " + body + " bytes");
        }
        return (int) body;
    }

    /**
     * Whether a record with these sizes fits. Exact for uncompressed batches; for compressed ones it compares the
     * uncompressed size with the target room, which compression normally only shrinks.
     */
    public boolean hasRoomFor(final long timestamp, final int keySize, final int valueSize, final HeaderList headers) {
        ensureInProgress();
        final long delta = baseTimestampSet ? timestamp - baseTimestamp : 0;
        final int size = sizeOfRecord(count, delta, keySize, valueSize, headers);
        if (batchCompression == CompressionType.NONE) {
            return writePosition + size <= writeLimit;
        }
        return RECORDS_OFFSET + (writePosition - recordsStart) + size <= limit - batchOffset;
    }

    // ------------------------------------------------------------------ appends

    /** Appends a record; {@code key} and {@code value} may be null. Returns its offset delta. */
    public int append(final long timestamp, final MemorySegment key, final MemorySegment value) {
        return append(timestamp, key, value, null);
    }

    /** Appends a record with headers ({@code headers} may be null). Returns its offset delta. */
    public int append(
            final long timestamp, final MemorySegment key, final MemorySegment value, final HeaderList headers) {
        final int delta = count;
        writeRecord(timestamp, key, null, sizeOf(key), value, null, sizeOf(value), headers, false);
        return delta;
    }

    /** Appends a record from arrays; {@code key} and {@code value} may be null. Returns its offset delta. */
    public int append(final long timestamp, final byte[] key, final byte[] value) {
        return append(timestamp, key, value, null);
    }

    /** Appends a record from arrays, with headers. Allocates nothing. Returns its offset delta. */
    public int append(final long timestamp, final byte[] key, final byte[] value, final HeaderList headers) {
        final int delta = count;
        writeRecord(
                timestamp,
                null,
                key,
                key == null ? -1 : key.length,
                null,
                value,
                value == null ? -1 : value.length,
                headers,
                false);
        return delta;
    }

    /**
     * Writes a record whose value the caller fills in afterwards, in place (zero-copy produce, like Aeron's {@code
     * tryClaim}): returns the position in {@link #buffer()} where exactly {@code valueLength} value bytes must be
     * written before {@link #finish()}.
     */
    public long claimValue(
            final long timestamp, final MemorySegment key, final int valueLength, final HeaderList headers) {
        if (valueLength < 0) {
            throw new IllegalArgumentException("value length " + valueLength);
        }
        return writeRecord(timestamp, key, null, sizeOf(key), null, null, valueLength, headers, true);
    }

    /** {@link #claimValue} returning the value area as a slice of {@link #buffer()} (allocates the slice). */
    public MemorySegment claimValueSlice(
            final long timestamp, final MemorySegment key, final int valueLength, final HeaderList headers) {
        final long position = claimValue(timestamp, key, valueLength, headers);
        return writeSegment.asSlice(position, valueLength);
    }

    private static int sizeOf(final MemorySegment segment) {
        if (segment == null) {
            return -1;
        }
        final long size = segment.byteSize();
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("field too large: " + size);
        }
        return (int) size;
    }

    private void ensureInProgress() {
        if (!inProgress) {
            throw new IllegalStateException("no batch in progress: begin() first");
        }
    }

    /** Writes one record; returns the position of its value. */
    private long writeRecord(
            final long timestamp,
            final MemorySegment keySegment,
            final byte[] keyArray,
            final int keySize,
            final MemorySegment valueSegment,
            final byte[] valueArray,
            final int valueSize,
            final HeaderList headers,
            final boolean claim) {
        ensureInProgress();
        if (count == Integer.MAX_VALUE) {
            throw new IllegalStateException("batch full: " + count + " records");
        }
        final long base = baseTimestampSet ? baseTimestamp : timestamp;
        final long timestampDelta = timestamp - base;
        final int offsetDelta = count;
        final int headerCount = headers == null ? 0 : headers.size();
        final int bodySize = bodySize(offsetDelta, timestampDelta, keySize, valueSize, HeaderList.encodedSize(headers));
        final int total = Varint.sizeOfVarint(bodySize) + bodySize;
        if (writePosition + total > writeLimit) {
            if (batchCompression == CompressionType.NONE) {
                throw new IllegalStateException("record of " + total + " bytes does not fit: "
                        + (writeLimit - writePosition) + " bytes left (check hasRoomFor)");
            }
            growScratch(writePosition + total, writePosition);
        }
        if (!baseTimestampSet) {
            baseTimestamp = timestamp;
            baseTimestampSet = true;
        }
        final MemorySegment s = writeSegment;
        long p = writePosition;
        p += Varint.writeVarint(s, p, bodySize);
        s.set(BYTE, p++, (byte) 0); // record attributes: unused
        p += Varint.writeVarlong(s, p, timestampDelta);
        p += Varint.writeVarint(s, p, offsetDelta);
        p += Varint.writeVarint(s, p, keySize);
        if (keySize > 0) {
            if (keyArray != null) {
                MemorySegment.copy(keyArray, 0, s, BYTE, p, keySize);
            } else {
                MemorySegment.copy(keySegment, 0, s, p, keySize);
            }
            p += keySize;
        }
        p += Varint.writeVarint(s, p, valueSize);
        final long valuePosition = p;
        if (valueSize > 0) {
            if (!claim) {
                if (valueArray != null) {
                    MemorySegment.copy(valueArray, 0, s, BYTE, p, valueSize);
                } else {
                    MemorySegment.copy(valueSegment, 0, s, p, valueSize);
                }
            }
            p += valueSize;
        }
        p += Varint.writeVarint(s, p, headerCount);
        for (int i = 0; i < headerCount; i++) {
            final MemorySegment hk = headers.key(i);
            final int hks = (int) hk.byteSize();
            p += Varint.writeVarint(s, p, hks);
            MemorySegment.copy(hk, 0, s, p, hks);
            p += hks;
            final MemorySegment hv = headers.value(i);
            if (hv == null) {
                p += Varint.writeVarint(s, p, -1);
            } else {
                final int hvs = (int) hv.byteSize();
                p += Varint.writeVarint(s, p, hvs);
                MemorySegment.copy(hv, 0, s, p, hvs);
                p += hvs;
            }
        }
        writePosition = p;
        count++;
        if (timestamp > maxTimestamp) {
            maxTimestamp = timestamp;
        }
        return valuePosition;
    }

    private void growScratch(final long required, final long used) {
        final long capacity = Math.max(required, scratch == null ? 0 : scratch.byteSize() * 2);
        if (capacity > Integer.MAX_VALUE - 64) {
            throw new IllegalStateException("records section too large: " + required + " bytes");
        }
        final Arena newArena = Arena.ofShared();
        final MemorySegment newScratch = newArena.allocate(capacity, 8);
        if (scratch != null) {
            MemorySegment.copy(scratch, 0, newScratch, 0, used);
            scratchArena.close();
        }
        scratchArena = newArena;
        scratch = newScratch;
        if (inProgress && batchCompression != CompressionType.NONE) {
            writeSegment = scratch;
        }
        writeLimit = scratch.byteSize();
    }

    // ------------------------------------------------------------------ finish

    /**
     * Completes the batch: compresses the records if needed, writes the header fields and finally the CRC.
     *
     * @return the batch size in bytes (the next batch may start at {@code offset + size})
     * @throws IllegalStateException if no record was appended, or the compressed records do not fit the target
     */
    public int finish() {
        ensureInProgress();
        if (count == 0) {
            throw new IllegalStateException("a batch needs at least one record");
        }
        final MemorySegment t = target;
        final long o = batchOffset;
        final long recordsEnd;
        if (batchCompression == CompressionType.NONE) {
            recordsEnd = writePosition;
        } else {
            if (compressor == null) {
                compressor = new BatchCompressor();
            }
            final int level = compressionLevel == Integer.MIN_VALUE
                    ? BatchCompressor.defaultLevel(batchCompression)
                    : compressionLevel;
            final long compressed = compressor.compress(
                    batchCompression,
                    level,
                    scratch,
                    0,
                    writePosition,
                    t,
                    o + RECORDS_OFFSET,
                    limit - o - RECORDS_OFFSET);
            if (compressed < 0) {
                throw new IllegalStateException("compressed records do not fit in " + (limit - o - RECORDS_OFFSET)
                        + " bytes (uncompressed " + writePosition + ")");
            }
            recordsEnd = o + RECORDS_OFFSET + compressed;
        }
        final long size = recordsEnd - o;
        if (size > Integer.MAX_VALUE) {
            throw new IllegalStateException("batch too large: " + size);
        }
        final long max = timestampType == TimestampType.LOG_APPEND_TIME ? logAppendTime : maxTimestamp;
        t.set(INT64, o + BASE_OFFSET_OFFSET, baseOffset);
        t.set(INT32, o + PARTITION_LEADER_EPOCH_OFFSET, partitionLeaderEpoch);
        t.set(INT8, o + MAGIC_OFFSET, MAGIC_V2);
        t.set(
                INT16,
                o + ATTRIBUTES_OFFSET,
                attributes(batchCompression, timestampType, transactional, control, deleteHorizonMs != NO_TIMESTAMP));
        t.set(INT32, o + LAST_OFFSET_DELTA_OFFSET, count - 1);
        t.set(INT64, o + BASE_TIMESTAMP_OFFSET, baseTimestamp);
        t.set(INT64, o + MAX_TIMESTAMP_OFFSET, max);
        t.set(INT64, o + PRODUCER_ID_OFFSET, producerId);
        t.set(INT16, o + PRODUCER_EPOCH_OFFSET, producerEpoch);
        t.set(INT32, o + BASE_SEQUENCE_OFFSET, baseSequence);
        t.set(INT32, o + RECORDS_COUNT_OFFSET, count);
        t.set(INT32, o + CRC_OFFSET, (int) Crc32c.compute(t, o + CRC_START_OFFSET, size - CRC_START_OFFSET));
        // The length is outside the CRC, so it can go last: a reader in this address space that sees a plausible
        // length (scanners look at nothing else first) sees everything before it, CRC included.
        VarHandle.releaseFence();
        t.set(INT32, o + LENGTH_OFFSET, (int) (size - LOG_OVERHEAD));
        inProgress = false;
        return (int) size;
    }

    @Override
    public void close() {
        inProgress = false;
        if (scratchArena != null) {
            scratchArena.close();
            scratchArena = null;
            scratch = null;
        }
        if (compressor != null) {
            compressor.close();
            compressor = null;
        }
    }
}
