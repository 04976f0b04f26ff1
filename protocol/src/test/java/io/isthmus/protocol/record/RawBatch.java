package io.isthmus.protocol.record;

import static io.isthmus.protocol.record.RecordBatchDescriptor.*;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** Hand-assembles batches and records byte by byte, to produce exactly the malformations a test needs. */
final class RawBatch {
    private RawBatch() {}

    /** Record bytes built from pieces. */
    static final class Rec {
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();
        private Integer lengthOverride;

        Rec byte8(final int b) {
            body.write(b);
            return this;
        }

        Rec varint(final int v) {
            final MemorySegment s = MemorySegment.ofArray(new byte[5]);
            final int n = Varint.writeVarint(s, 0, v);
            body.write(s.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), 0, n);
            return this;
        }

        Rec varlong(final long v) {
            final MemorySegment s = MemorySegment.ofArray(new byte[10]);
            final int n = Varint.writeVarlong(s, 0, v);
            body.write(s.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), 0, n);
            return this;
        }

        Rec raw(final int... bytes) {
            for (final int b : bytes) {
                body.write(b);
            }
            return this;
        }

        Rec bytes(final byte[] b) {
            body.write(b, 0, b.length);
            return this;
        }

        /** Forces the record length varint to a given value. */
        Rec length(final int length) {
            lengthOverride = length;
            return this;
        }

        byte[] encode() {
            final byte[] b = body.toByteArray();
            final int length = lengthOverride != null ? lengthOverride : b.length;
            final MemorySegment s = MemorySegment.ofArray(new byte[5 + b.length]);
            final int n = Varint.writeVarint(s, 0, length);
            MemorySegment.copy(MemorySegment.ofArray(b), 0, s, n, b.length);
            return s.asSlice(0, n + b.length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        }
    }

    /** A well-formed record: attributes 0, timestamp delta 0, the given offset delta, key "k", value "v", no headers. */
    static Rec simple(final int offsetDelta) {
        return new Rec()
                .byte8(0)
                .varlong(0)
                .varint(offsetDelta)
                .varint(1)
                .raw('k')
                .varint(1)
                .raw('v')
                .varint(0);
    }

    /**
     * An uncompressed batch of these records with count = records.length, lastOffsetDelta = count - 1 and a valid
     * CRC, in an off-heap segment of the given arena.
     */
    static MemorySegment batch(final Arena arena, final Rec... records) {
        final ByteArrayOutputStream recordBytes = new ByteArrayOutputStream();
        for (final Rec r : records) {
            final byte[] b = r.encode();
            recordBytes.write(b, 0, b.length);
        }
        return batch(arena, 0, records.length, records.length - 1, recordBytes.toByteArray());
    }

    /** A batch around a raw records section, with a valid CRC. */
    static MemorySegment batch(
            final Arena arena, final int attributes, final int count, final int lastOffsetDelta, final byte[] records) {
        final MemorySegment s = arena.allocate(HEADER_LENGTH + records.length, 8);
        s.set(INT64, BASE_OFFSET_OFFSET, 0L);
        s.set(INT32, LENGTH_OFFSET, HEADER_LENGTH - LOG_OVERHEAD + records.length);
        s.set(INT32, PARTITION_LEADER_EPOCH_OFFSET, 0);
        s.set(INT8, MAGIC_OFFSET, MAGIC_V2);
        s.set(INT16, ATTRIBUTES_OFFSET, (short) attributes);
        s.set(INT32, LAST_OFFSET_DELTA_OFFSET, lastOffsetDelta);
        s.set(INT64, BASE_TIMESTAMP_OFFSET, 1000L);
        s.set(INT64, MAX_TIMESTAMP_OFFSET, 1000L);
        s.set(INT64, PRODUCER_ID_OFFSET, -1L);
        s.set(INT16, PRODUCER_EPOCH_OFFSET, (short) -1);
        s.set(INT32, BASE_SEQUENCE_OFFSET, -1);
        s.set(INT32, RECORDS_COUNT_OFFSET, count);
        MemorySegment.copy(MemorySegment.ofArray(records), 0, s, HEADER_LENGTH, records.length);
        updateCrc(s, 0);
        return s;
    }
}
