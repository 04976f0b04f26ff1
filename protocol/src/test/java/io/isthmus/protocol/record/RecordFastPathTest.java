package io.isthmus.protocol.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.DefaultRecord;
import org.junit.jupiter.api.Test;

/**
 * {@link Record#wrap} reads common records a word at a time and leaves everything else to the byte-by-byte {@link
 * Record#wrapChecked}. These tests hold the two to one answer: for records Kafka's own {@link DefaultRecord} writes
 * (every varint width, null and empty keys and values, headers) and for the same records with bytes flipped or cut
 * short, whatever junk follows them, {@code wrap} accepts exactly what {@code wrapChecked} accepts, with the same
 * fields, and rejects the rest for the same reason.
 */
class RecordFastPathTest {
    private static final long BASE_OFFSET = 1_000;
    private static final long BASE_TIMESTAMP = 1_700_000_000_000L;

    @Test
    void shouldReadWhatKafkaWritesAsTheCheckedReadDoes() throws Exception {
        final SplittableRandom random = new SplittableRandom(42);
        try (Arena arena = Arena.ofConfined()) {
            for (int i = 0; i < 20_000; i++) {
                final byte[] record = kafkaRecord(random);
                final MemorySegment segment = placed(arena, record, random);
                final Record fast = new Record();
                final Record checked = new Record();
                final long end = fast.wrap(segment, 0, record.length, BASE_OFFSET, BASE_TIMESTAMP, -1);
                assertThat(end).isEqualTo(record.length);
                assertThat(checked.wrapChecked(segment, 0, record.length, BASE_OFFSET, BASE_TIMESTAMP, -1))
                        .isEqualTo(end);
                assertSameFields(fast, checked);
                final Kafka kafka = Kafka.read(record);
                assertThat(fast.offset()).isEqualTo(kafka.offset);
                assertThat(fast.timestamp()).isEqualTo(kafka.timestamp);
                assertThat(fast.keySize()).isEqualTo(kafka.keySize);
                assertThat(fast.valueSize()).isEqualTo(kafka.valueSize);
                assertThat(fast.headerCount()).isEqualTo(kafka.headerCount);
            }
        }
    }

    @Test
    void shouldAcceptAndRejectDamagedRecordsAsTheCheckedReadDoes() throws Exception {
        final SplittableRandom random = new SplittableRandom(7);
        int rejected = 0;
        try (Arena arena = Arena.ofConfined()) {
            for (int i = 0; i < 50_000; i++) {
                final byte[] record = kafkaRecord(random);
                final int flips = random.nextInt(3);
                for (int f = 0; f < flips; f++) {
                    final int at = random.nextInt(Math.min(record.length, 12));
                    record[at] = (byte) random.nextInt(256);
                }
                final int limit = random.nextInt(4) == 0 ? random.nextInt(record.length + 1) : record.length;
                final MemorySegment segment = placed(arena, record, random);
                final Outcome fast = outcome(true, segment, limit);
                final Outcome checked = outcome(false, segment, limit);
                assertThat(fast.summary).as("record %d", i).isEqualTo(checked.summary);
                rejected += fast.summary.startsWith("rejected") ? 1 : 0;
            }
        }
        assertThat(rejected).as("damaged records rejected").isGreaterThan(1_000);
    }

    private record Outcome(String summary) {}

    private static Outcome outcome(final boolean fast, final MemorySegment segment, final int limit) {
        final Record record = new Record();
        try {
            final long end = fast
                    ? record.wrap(segment, 0, limit, BASE_OFFSET, BASE_TIMESTAMP, -1)
                    : record.wrapChecked(segment, 0, limit, BASE_OFFSET, BASE_TIMESTAMP, -1);
            return new Outcome("accepted end=" + end + " " + fields(record));
        } catch (final InvalidRecordBatchException e) {
            return new Outcome("rejected " + e.reason() + ": " + e.getMessage());
        }
    }

    private static void assertSameFields(final Record a, final Record b) {
        assertThat(fields(a)).isEqualTo(fields(b));
    }

    private static String fields(final Record r) {
        return List.of(
                        r.position(),
                        r.sizeInBytes(),
                        (long) r.attributes(),
                        r.timestampDelta(),
                        r.timestamp(),
                        (long) r.offsetDelta(),
                        r.offset(),
                        r.keyOffset(),
                        (long) r.keySize(),
                        r.valueOffset(),
                        (long) r.valueSize(),
                        (long) r.headerCount())
                .toString();
    }

    /** The record at offset 0 of a segment, followed by random junk or by nothing (ending the segment). */
    private static MemorySegment placed(final Arena arena, final byte[] record, final SplittableRandom random) {
        final int junk = random.nextInt(3) == 0 ? 0 : random.nextInt(1, 40);
        final MemorySegment segment = arena.allocate(record.length + junk);
        MemorySegment.copy(record, 0, segment, ValueLayout.JAVA_BYTE, 0, record.length);
        for (int j = 0; j < junk; j++) {
            segment.set(ValueLayout.JAVA_BYTE, record.length + j, (byte) random.nextInt(256));
        }
        return segment;
    }

    /** A record as Kafka writes it, with sizes and deltas spread over one-, two- and three-byte varints. */
    private static byte[] kafkaRecord(final SplittableRandom random) throws Exception {
        final ByteBuffer key = bytesOrNull(random);
        final ByteBuffer value = bytesOrNull(random);
        final Header[] headers = new Header[random.nextInt(4) == 0 ? random.nextInt(1, 3) : 0];
        for (int h = 0; h < headers.length; h++) {
            headers[h] = new RecordHeader("h" + h, random.nextBoolean() ? null : new byte[random.nextInt(5)]);
        }
        final int offsetDelta = spread(random);
        final long timestampDelta = random.nextBoolean() ? spread(random) : -spread(random);
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DefaultRecord.writeTo(new DataOutputStream(bytes), offsetDelta, timestampDelta, key, value, headers);
        return bytes.toByteArray();
    }

    private static ByteBuffer bytesOrNull(final SplittableRandom random) {
        final int kind = random.nextInt(5);
        if (kind == 0) {
            return null;
        }
        final byte[] data = new byte[kind == 1 ? 0 : spread(random) % 20_000];
        random.nextBytes(data);
        return ByteBuffer.wrap(data);
    }

    /** Values whose zigzag varints take one, two or three bytes about equally often. */
    private static int spread(final SplittableRandom random) {
        return switch (random.nextInt(3)) {
            case 0 -> random.nextInt(64);
            case 1 -> random.nextInt(64, 8_192);
            default -> random.nextInt(8_192, 100_000);
        };
    }

    /** What Kafka's own reader finds in a record. */
    private record Kafka(long offset, long timestamp, int keySize, int valueSize, int headerCount) {
        static Kafka read(final byte[] record) {
            final DefaultRecord r =
                    DefaultRecord.readFrom(ByteBuffer.wrap(record), BASE_OFFSET, BASE_TIMESTAMP, 0, null);
            return new Kafka(r.offset(), r.timestamp(), r.keySize(), r.valueSize(), r.headers().length);
        }
    }
}
