package io.isthmus.connector.spark.source;

import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerRecordHandler;
import io.isthmus.connector.spark.KafkaRecordSchema;
import io.isthmus.protocol.record.Header;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import org.apache.spark.sql.execution.vectorized.OffHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Records of one partition written into a {@link ColumnarBatch} of Kafka's record columns, in off-heap column vectors:
 * keys, values and headers are copied once, from the slice the record was read in to the column's native memory, and
 * nothing is allocated per record. The batch is reused: {@link #reset()} empties it for the next fill.
 */
final class RecordColumns implements ConsumerRecordHandler, AutoCloseable {
    private final OffHeapColumnVector[] vectors;
    private final ColumnarBatch batch;
    private final int capacity;
    private final boolean includeHeaders;
    private final OffHeapBytes keys;
    private final OffHeapBytes values;
    private final OffHeapBytes topics;
    private final MemorySegment topicName;
    private final WritableColumnVector headers;
    private final WritableColumnVector headerEntries;
    private final WritableColumnVector headerKeys;
    private final WritableColumnVector headerValues;
    private final OffHeapBytes headerKeyBytes;
    private final OffHeapBytes headerValueBytes;
    private final int partition;
    private long until;
    private int rows;

    /**
     * @param topic the topic every record comes from
     * @param partition the partition every record comes from
     * @param capacity rows per batch
     */
    RecordColumns(final String topic, final int partition, final int capacity, final boolean includeHeaders) {
        this.capacity = capacity;
        this.includeHeaders = includeHeaders;
        this.partition = partition;
        this.vectors = OffHeapColumnVector.allocateColumns(capacity, KafkaRecordSchema.schema(includeHeaders));
        this.batch = new ColumnarBatch(vectors);
        this.keys = new OffHeapBytes(vectors[KafkaRecordSchema.KEY]);
        this.values = new OffHeapBytes(vectors[KafkaRecordSchema.VALUE]);
        this.topics = new OffHeapBytes(vectors[KafkaRecordSchema.TOPIC]);
        this.topicName = MemorySegment.ofArray(topic.getBytes(StandardCharsets.UTF_8));
        if (includeHeaders) {
            headers = vectors[KafkaRecordSchema.HEADERS];
            headerEntries = headers.arrayData();
            headerKeys = (WritableColumnVector) headerEntries.getChild(0);
            headerValues = (WritableColumnVector) headerEntries.getChild(1);
            headerKeyBytes = new OffHeapBytes(headerKeys);
            headerValueBytes = new OffHeapBytes(headerValues);
        } else {
            headers = null;
            headerEntries = null;
            headerKeys = null;
            headerValues = null;
            headerKeyBytes = null;
            headerValueBytes = null;
        }
    }

    /** Empties the batch; records at or past {@code until} are not written from now on. */
    void reset(final long until) {
        this.until = until;
        for (final ColumnVector vector : vectors) {
            ((WritableColumnVector) vector).reset();
        }
        rows = 0;
    }

    int rows() {
        return rows;
    }

    int room() {
        return capacity - rows;
    }

    /** The filled batch, its row count set. */
    ColumnarBatch batch() {
        batch.setNumRows(rows);
        return batch;
    }

    @Override
    public void onRecord(final ConsumedRecord record) {
        if (record.offset() >= until) {
            return; // past the range: the next range's task reads it
        }
        final int row = rows;
        final MemorySegment segment = record.segment();
        if (record.keySize() < 0) {
            vectors[KafkaRecordSchema.KEY].putNull(row);
        } else {
            keys.put(vectors[KafkaRecordSchema.KEY], row, segment, record.keyOffset(), record.keySize());
        }
        if (record.valueSize() < 0) {
            vectors[KafkaRecordSchema.VALUE].putNull(row);
        } else {
            values.put(vectors[KafkaRecordSchema.VALUE], row, segment, record.valueOffset(), record.valueSize());
        }
        topics.put(vectors[KafkaRecordSchema.TOPIC], row, topicName, 0, (int) topicName.byteSize());
        vectors[KafkaRecordSchema.PARTITION].putInt(row, partition);
        vectors[KafkaRecordSchema.OFFSET].putLong(row, record.offset());
        // Spark's timestamps are microseconds since the epoch; Kafka's are milliseconds.
        vectors[KafkaRecordSchema.TIMESTAMP].putLong(row, record.timestamp() * 1_000L);
        vectors[KafkaRecordSchema.TIMESTAMP_TYPE].putInt(
                row, record.timestampType().id());
        if (includeHeaders) {
            writeHeaders(record, row, segment);
        }
        rows = row + 1;
    }

    private void writeHeaders(final ConsumedRecord record, final int row, final MemorySegment segment) {
        final int count = record.headerCount();
        final int first = headerEntries.getElementsAppended();
        for (int i = 0; i < count; i++) {
            final Header header = record.header(i);
            headerEntries.appendStruct(false);
            final int keyRow = headerKeys.appendNotNull();
            headerKeyBytes.put(headerKeys, keyRow, segment, header.keyOffset(), header.keySize());
            if (header.valueSize() < 0) {
                headerValues.appendNull();
            } else {
                final int valueRow = headerValues.appendNotNull();
                headerValueBytes.put(headerValues, valueRow, segment, header.valueOffset(), header.valueSize());
            }
        }
        headers.putArray(row, first, count);
    }

    @Override
    public void close() {
        batch.close();
    }
}
