package io.isthmus.protocol.record;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;

/** Test data and conversions between Kafka's record classes and ours. */
final class Fixtures {
    private static final HexFormat HEX = HexFormat.of();

    private Fixtures() {}

    /** A record as plain comparable values. */
    record Rec(long offset, long timestamp, String key, String value, List<Hdr> headers) {}

    record Hdr(String key, String value) {}

    /** Input for a record to write. */
    record Input(long timestamp, byte[] key, byte[] value, List<String> headerKeys, List<byte[]> headerValues) {}

    static String hex(final byte[] bytes) {
        return bytes == null ? null : HEX.formatHex(bytes);
    }

    static String hex(final ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return HEX.formatHex(bytes);
    }

    static String hex(final MemorySegment segment) {
        return segment == null ? null : HEX.formatHex(segment.toArray(ValueLayout.JAVA_BYTE));
    }

    /** Random records: keys (some null), values (some null, some large), 0-3 headers (some null values). */
    static List<Input> randomInputs(final long seed, final int count, final long baseTimestamp) {
        final Random random = new Random(seed);
        final List<Input> inputs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            final long ts = baseTimestamp + random.nextInt(10_000) - 2_000;
            final byte[] key = random.nextInt(5) == 0 ? null : bytes(random, random.nextInt(40));
            final int valueSize = random.nextInt(20) == 0 ? 70_000 + random.nextInt(50_000) : random.nextInt(300);
            final byte[] value = random.nextInt(10) == 0 ? null : compressibleBytes(random, valueSize);
            final int headers = random.nextInt(4);
            final List<String> hk = new ArrayList<>();
            final List<byte[]> hv = new ArrayList<>();
            for (int h = 0; h < headers; h++) {
                hk.add("h" + h + "-" + random.nextInt(1000));
                hv.add(random.nextInt(4) == 0 ? null : bytes(random, random.nextInt(20)));
            }
            inputs.add(new Input(ts, key, value, hk, hv));
        }
        return inputs;
    }

    static byte[] bytes(final Random random, final int size) {
        final byte[] b = new byte[size];
        random.nextBytes(b);
        return b;
    }

    /** Half-random bytes so that every codec has something to compress. */
    static byte[] compressibleBytes(final Random random, final int size) {
        final byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (random.nextInt(3) == 0 ? random.nextInt(256) : 'a' + (i % 7));
        }
        return b;
    }

    static Header[] kafkaHeaders(final Input input) {
        final Header[] headers = new Header[input.headerKeys().size()];
        for (int i = 0; i < headers.length; i++) {
            headers[i] = new RecordHeader(
                    input.headerKeys().get(i), input.headerValues().get(i));
        }
        return headers;
    }

    static HeaderList headerList(final Input input, final HeaderList list) {
        list.clear();
        for (int i = 0; i < input.headerKeys().size(); i++) {
            list.add(input.headerKeys().get(i), input.headerValues().get(i));
        }
        return list;
    }

    static Compression kafkaCompression(final CompressionType type) {
        return switch (type) {
            case NONE -> Compression.NONE;
            case GZIP -> Compression.gzip().build();
            case SNAPPY -> Compression.snappy().build();
            case LZ4 -> Compression.lz4().build();
            case ZSTD -> Compression.zstd().build();
        };
    }

    static org.apache.kafka.common.record.TimestampType kafkaTimestampType(final TimestampType type) {
        return type == TimestampType.CREATE_TIME
                ? org.apache.kafka.common.record.TimestampType.CREATE_TIME
                : org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME;
    }

    /** Builds one batch with Kafka's MemoryRecordsBuilder. */
    static ByteBuffer kafkaBatch(
            final List<Input> inputs,
            final CompressionType compression,
            final TimestampType timestampType,
            final long baseOffset,
            final long logAppendTime,
            final long producerId,
            final short producerEpoch,
            final int baseSequence,
            final boolean transactional,
            final int partitionLeaderEpoch) {
        final ByteBuffer buffer = ByteBuffer.allocate(16 * 1024 * 1024);
        final MemoryRecordsBuilder builder = MemoryRecords.builder(
                buffer,
                RecordBatch.MAGIC_VALUE_V2,
                kafkaCompression(compression),
                kafkaTimestampType(timestampType),
                baseOffset,
                logAppendTime,
                producerId,
                producerEpoch,
                baseSequence,
                transactional,
                partitionLeaderEpoch);
        long offset = baseOffset;
        for (final Input in : inputs) {
            builder.appendWithOffset(offset++, in.timestamp(), in.key(), in.value(), kafkaHeaders(in));
        }
        return builder.build().buffer();
    }

    /** Reads every record of every batch with Kafka's classes, checking each batch with ensureValid(). */
    static List<Rec> readWithKafka(final ByteBuffer buffer) {
        final List<Rec> out = new ArrayList<>();
        for (final MutableRecordBatch batch :
                MemoryRecords.readableRecords(buffer).batches()) {
            if (!batch.isValid()) {
                throw new AssertionError("Kafka says the batch is invalid: " + batch);
            }
            batch.ensureValid();
            for (final org.apache.kafka.common.record.internal.Record r : batch) {
                r.ensureValid();
                final List<Hdr> headers = new ArrayList<>();
                for (final Header h : r.headers()) {
                    headers.add(new Hdr(h.key(), hex(h.value())));
                }
                out.add(new Rec(r.offset(), r.timestamp(), hex(r.key()), hex(r.value()), headers));
            }
        }
        return out;
    }

    /** Reads every record of the batch at {@code offset} with our flyweights. */
    static List<Rec> readWithIsthmus(final MemorySegment segment, final long offset) {
        final List<Rec> out = new ArrayList<>();
        new io.isthmus.protocol.record.RecordBatch().wrap(segment, offset).forEachRecord(r -> {
            final List<Hdr> headers = new ArrayList<>();
            r.forEachHeader(h -> headers.add(new Hdr(h.keyAsString(), hex(h.value()))));
            out.add(new Rec(r.offset(), r.timestamp(), hex(r.key()), hex(r.value()), headers));
        });
        return out;
    }

    /** The records Kafka should report for these inputs (offsets from base, log-append time applied). */
    static List<Rec> expected(
            final List<Input> inputs, final long baseOffset, final TimestampType type, final long logAppendTime) {
        final List<Rec> out = new ArrayList<>();
        long offset = baseOffset;
        for (final Input in : inputs) {
            final List<Hdr> headers = new ArrayList<>();
            for (int i = 0; i < in.headerKeys().size(); i++) {
                headers.add(
                        new Hdr(in.headerKeys().get(i), hex(in.headerValues().get(i))));
            }
            out.add(new Rec(
                    offset++,
                    type == TimestampType.LOG_APPEND_TIME ? logAppendTime : in.timestamp(),
                    hex(in.key()),
                    hex(in.value()),
                    headers));
        }
        return out;
    }

    static MemorySegment copyOffHeap(final Arena arena, final ByteBuffer buffer) {
        final MemorySegment segment = arena.allocate(buffer.remaining(), 8);
        MemorySegment.copy(MemorySegment.ofBuffer(buffer), 0, segment, 0, buffer.remaining());
        return segment;
    }

    static byte[] utf8(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
