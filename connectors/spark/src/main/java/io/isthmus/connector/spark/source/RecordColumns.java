package io.isthmus.connector.spark.source;

import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.connector.spark.KafkaRecordSchema;
import io.isthmus.protocol.record.Header;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.apache.spark.sql.execution.vectorized.ConstantColumnVector;
import org.apache.spark.sql.execution.vectorized.OffHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Records of one partition as a {@link ColumnarBatch} of the record columns a query reads (Kafka's row schema; pruned
 * to the used columns where Spark prunes, in batch reads). Nothing is allocated per record, and keys and values are not
 * copied at all: their columns are slices of the buffers the records arrived in ({@link SliceColumnVector}), which
 * Spark copies from only for the rows and columns its plan reads. Topic and partition are constants; offset,
 * timestamp and timestamp type are written into heap vectors; headers, a nested type, are copied into off-heap
 * vectors. The batch is reused: {@link #reset()} empties it for the next fill.
 */
final class RecordColumns implements AutoCloseable {
    /** Every record column's name, at its position in Kafka's row (the ordinals of {@link KafkaRecordSchema}). */
    private static final List<String> NAMES =
            List.of(KafkaRecordSchema.schema(true).fieldNames());

    private final ColumnVector[] vectors;
    private final ColumnarBatch batch;
    private final int capacity;
    /** The vector of each column, null where the query does not read it. */
    private final SliceColumnVector key;

    private final SliceColumnVector value;
    private final WritableColumnVector offset;
    private final WritableColumnVector timestamp;
    private final WritableColumnVector timestampType;
    private final WritableColumnVector headers;
    private final WritableColumnVector headerEntries;
    private final WritableColumnVector headerKeys;
    private final WritableColumnVector headerValues;
    private final OffHeapBytes headerKeyBytes;
    private final OffHeapBytes headerValueBytes;
    private int rows;

    /**
     * @param topic the topic every record comes from
     * @param partition the partition every record comes from
     * @param capacity rows per batch
     * @param schema the columns to fill: Kafka's record columns, any subset, in any order
     */
    RecordColumns(final String topic, final int partition, final int capacity, final StructType schema) {
        this.capacity = capacity;
        final StructField[] fields = schema.fields();
        this.vectors = new ColumnVector[fields.length];
        final ColumnVector[] byName = new ColumnVector[NAMES.size()];
        for (int i = 0; i < fields.length; i++) {
            final int column = NAMES.indexOf(fields[i].name());
            if (column < 0) {
                close(i);
                throw new IllegalArgumentException(
                        "no record column '" + fields[i].name() + "': the columns are " + NAMES);
            }
            vectors[i] = switch (column) {
                case KafkaRecordSchema.KEY, KafkaRecordSchema.VALUE -> new SliceColumnVector(capacity);
                case KafkaRecordSchema.TOPIC -> constant(capacity, fields[i], UTF8String.fromString(topic), 0);
                case KafkaRecordSchema.PARTITION -> constant(capacity, fields[i], null, partition);
                case KafkaRecordSchema.HEADERS -> new OffHeapColumnVector(capacity, fields[i].dataType());
                default -> new OnHeapColumnVector(capacity, fields[i].dataType());
            };
            byName[column] = vectors[i];
        }
        this.batch = new ColumnarBatch(vectors);
        this.key = (SliceColumnVector) byName[KafkaRecordSchema.KEY];
        this.value = (SliceColumnVector) byName[KafkaRecordSchema.VALUE];
        this.offset = (WritableColumnVector) byName[KafkaRecordSchema.OFFSET];
        this.timestamp = (WritableColumnVector) byName[KafkaRecordSchema.TIMESTAMP];
        this.timestampType = (WritableColumnVector) byName[KafkaRecordSchema.TIMESTAMP_TYPE];
        this.headers = (WritableColumnVector) byName[KafkaRecordSchema.HEADERS];
        if (headers != null) {
            headerEntries = headers.arrayData();
            headerKeys = (WritableColumnVector) headerEntries.getChild(0);
            headerValues = (WritableColumnVector) headerEntries.getChild(1);
            headerKeyBytes = new OffHeapBytes(headerKeys);
            headerValueBytes = new OffHeapBytes(headerValues);
        } else {
            headerEntries = null;
            headerKeys = null;
            headerValues = null;
            headerKeyBytes = null;
            headerValueBytes = null;
        }
    }

    private static ColumnVector constant(
            final int capacity, final StructField field, final UTF8String string, final int number) {
        final ConstantColumnVector constant = new ConstantColumnVector(capacity, field.dataType());
        if (string != null) {
            constant.setUtf8String(string);
        } else {
            constant.setInt(number);
        }
        return constant;
    }

    /** Empties the batch. */
    void reset() {
        for (final ColumnVector vector : vectors) {
            if (vector instanceof SliceColumnVector slices) {
                slices.reset();
            } else if (vector instanceof WritableColumnVector writable) {
                writable.reset();
            }
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

    /** Adds a record as the next row; its slices must stay readable until {@link #reset()}. */
    void add(final ConsumedRecord record) {
        final int row = rows;
        final MemorySegment segment = record.segment();
        if (key != null) {
            key.append(segment, record.keyOffset(), record.keySize());
        }
        if (value != null) {
            value.append(segment, record.valueOffset(), record.valueSize());
        }
        if (offset != null) {
            offset.putLong(row, record.offset());
        }
        if (timestamp != null) {
            // Spark's timestamps are microseconds since the epoch; Kafka's are milliseconds.
            timestamp.putLong(row, record.timestamp() * 1_000L);
        }
        if (timestampType != null) {
            timestampType.putInt(row, record.timestampType().id());
        }
        if (headers != null) {
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

    private void close(final int made) {
        for (int i = 0; i < made; i++) {
            vectors[i].close();
        }
    }

    @Override
    public void close() {
        batch.close();
    }
}
