package io.isthmus.client.consumer;

import io.isthmus.client.consumer.internals.SubscriptionState.PartitionState;
import io.isthmus.protocol.record.Header;
import io.isthmus.protocol.record.Record;
import io.isthmus.protocol.record.TimestampType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * A consumed record, read in place: a flyweight reused for every record of a poll. Key, value and header values are
 * {@link MemorySegment} slices of the buffer the bytes arrived in (or of the decompression buffer). From a {@link
 * ConsumerBatch} those slices belong to the batch's arena and throw {@link IllegalStateException} once the batch is
 * closed; from a {@link ConsumerRecordHandler} they are valid during the callback only.
 *
 * <p>{@link #key()}, {@link #value()} and friends create slice objects; {@link #segment()} with {@link #keyOffset()}
 * and {@link #valueOffset()} reads the same bytes allocating nothing.
 */
public final class ConsumedRecord {
    private Record record;
    private PartitionState state;
    private MemorySegment segment;

    void set(final Record record, final PartitionState state, final MemorySegment segment) {
        this.record = record;
        this.state = state;
        this.segment = segment;
    }

    public String topic() {
        return state.topic();
    }

    public int partition() {
        return state.partition();
    }

    public long offset() {
        return record.offset();
    }

    public long timestamp() {
        return record.timestamp();
    }

    /** Whether {@link #timestamp()} is the producer's create time or the broker's log-append time (Kafka's id: 0, 1). */
    public TimestampType timestampType() {
        return record.timestampType();
    }

    /** The segment key and value lie in (arena-scoped for a {@link ConsumerBatch}). */
    public MemorySegment segment() {
        return segment;
    }

    public long keyOffset() {
        return record.keyOffset();
    }

    /** Key size, -1 for a null key. */
    public int keySize() {
        return record.keySize();
    }

    public long valueOffset() {
        return record.valueOffset();
    }

    /** Value size, -1 for a null value. */
    public int valueSize() {
        return record.valueSize();
    }

    /** The key as a slice, or null. */
    public MemorySegment key() {
        final int size = record.keySize();
        return size < 0 ? null : segment.asSlice(record.keyOffset(), size);
    }

    /** The value as a slice, or null. */
    public MemorySegment value() {
        final int size = record.valueSize();
        return size < 0 ? null : segment.asSlice(record.valueOffset(), size);
    }

    /** A heap copy of the key, or null. */
    public byte[] keyAsArray() {
        final MemorySegment key = key();
        return key == null ? null : key.toArray(ValueLayout.JAVA_BYTE);
    }

    /** A heap copy of the value, or null. */
    public byte[] valueAsArray() {
        final MemorySegment value = value();
        return value == null ? null : value.toArray(ValueLayout.JAVA_BYTE);
    }

    /** The value decoded as UTF-8, or null. */
    public String valueAsString() {
        final byte[] value = valueAsArray();
        return value == null ? null : new String(value, StandardCharsets.UTF_8);
    }

    /** The key decoded as UTF-8, or null. */
    public String keyAsString() {
        final byte[] key = keyAsArray();
        return key == null ? null : new String(key, StandardCharsets.UTF_8);
    }

    public int headerCount() {
        return record.headerCount();
    }

    /**
     * Header {@code index} as a reused flyweight, valid until the next call: its key and value offsets are into {@link
     * #segment()}, so both can be read in place, allocating nothing.
     */
    public Header header(final int index) {
        return record.header(index);
    }

    /** The key of header {@code index}, decoded as UTF-8. */
    public String headerKey(final int index) {
        final Header header = record.header(index);
        return new String(
                segment.asSlice(header.keyOffset(), header.keySize()).toArray(ValueLayout.JAVA_BYTE),
                StandardCharsets.UTF_8);
    }

    /** The value of header {@code index} as a slice, or null. */
    public MemorySegment headerValue(final int index) {
        final Header header = record.header(index);
        return header.valueSize() < 0 ? null : segment.asSlice(header.valueOffset(), header.valueSize());
    }

    /** The value of the last header with this UTF-8 key (Kafka's {@code lastHeader}), or null. */
    public MemorySegment lastHeader(final byte[] utf8Key) {
        final Header header = record.lastHeader(utf8Key);
        return header == null || header.valueSize() < 0
                ? null
                : segment.asSlice(header.valueOffset(), header.valueSize());
    }

    @Override
    public String toString() {
        return "ConsumedRecord{topic=" + topic() + ", partition=" + partition() + ", offset=" + offset()
                + ", timestamp=" + timestamp() + ", keySize=" + keySize() + ", valueSize=" + valueSize() + '}';
    }
}
