package io.isthmus.connector.flink.table;

import io.isthmus.connector.flink.sink.IsthmusRecordSerializationSchema;
import io.isthmus.connector.flink.sink.IsthmusSinkContext;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * Table rows to records: the key format over the {@code key.fields} columns, the value format over the value's
 * columns, and the writable metadata ({@code headers}, {@code timestamp}) from the columns after the physical ones.
 * With {@code sink.partitioner = fixed} each subtask writes one partition (subtask index modulo the partitions).
 */
final class RowDataSerializer implements IsthmusRecordSerializationSchema<RowData> {
    private static final long serialVersionUID = 1L;

    private final String topic;
    private final SerializationSchema<RowData> keyFormat;
    private final SerializationSchema<RowData> valueFormat;
    private final RowData.FieldGetter[] keyGetters;
    private final RowData.FieldGetter[] valueGetters;
    private final int headersPosition;
    private final int timestampPosition;
    private final boolean fixedPartition;

    RowDataSerializer(
            final String topic,
            final SerializationSchema<RowData> keyFormat,
            final SerializationSchema<RowData> valueFormat,
            final RowData.FieldGetter[] keyGetters,
            final RowData.FieldGetter[] valueGetters,
            final int headersPosition,
            final int timestampPosition,
            final boolean fixedPartition) {
        this.topic = topic;
        this.keyFormat = keyFormat;
        this.valueFormat = valueFormat;
        this.keyGetters = keyGetters;
        this.valueGetters = valueGetters;
        this.headersPosition = headersPosition;
        this.timestampPosition = timestampPosition;
        this.fixedPartition = fixedPartition;
    }

    @Override
    public void open(final SerializationSchema.InitializationContext context, final IsthmusSinkContext sinkContext)
            throws Exception {
        if (keyFormat != null) {
            keyFormat.open(context);
        }
        valueFormat.open(context);
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
            final RowData row, final IsthmusSinkContext context, final Long timestamp) {
        final byte[] key = keyFormat == null ? null : keyFormat.serialize(project(row, keyGetters));
        final byte[] value = valueFormat.serialize(project(row, valueGetters));
        Long recordTimestamp = timestamp;
        if (timestampPosition >= 0 && !row.isNullAt(timestampPosition)) {
            recordTimestamp = row.getTimestamp(timestampPosition, 3).getMillisecond();
        }
        Integer partition = null;
        if (fixedPartition) {
            final int[] partitions = context.getPartitionsForTopic(topic);
            partition = partitions[context.getParallelInstanceId() % partitions.length];
        }
        return new ProducerRecord<>(topic, partition, recordTimestamp, key, value, headers(row));
    }

    private static RowData project(final RowData row, final RowData.FieldGetter[] getters) {
        final GenericRowData projected = new GenericRowData(row.getRowKind(), getters.length);
        for (int i = 0; i < getters.length; i++) {
            projected.setField(i, getters[i].getFieldOrNull(row));
        }
        return projected;
    }

    private List<Header> headers(final RowData row) {
        if (headersPosition < 0 || row.isNullAt(headersPosition)) {
            return null;
        }
        final MapData map = row.getMap(headersPosition);
        final ArrayData keys = map.keyArray();
        final ArrayData values = map.valueArray();
        final List<Header> headers = new ArrayList<>(map.size());
        for (int i = 0; i < map.size(); i++) {
            headers.add(
                    new RecordHeader(keys.getString(i).toString(), values.isNullAt(i) ? null : values.getBinary(i)));
        }
        return headers;
    }
}
