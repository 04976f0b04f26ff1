package io.isthmus.connector.flink.table;

import io.isthmus.client.consumer.ConsumedRecord;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.DataType;

/** The metadata columns a table can read ({@code METADATA FROM 'offset'} ...), as the Kafka SQL connector's. */
enum ReadableMetadata {
    TOPIC("topic", DataTypes.STRING().notNull()) {
        @Override
        Object read(final ConsumedRecord record) {
            return StringData.fromString(record.topic());
        }
    },
    PARTITION("partition", DataTypes.INT().notNull()) {
        @Override
        Object read(final ConsumedRecord record) {
            return record.partition();
        }
    },
    OFFSET("offset", DataTypes.BIGINT().notNull()) {
        @Override
        Object read(final ConsumedRecord record) {
            return record.offset();
        }
    },
    TIMESTAMP("timestamp", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(3).notNull()) {
        @Override
        Object read(final ConsumedRecord record) {
            return TimestampData.fromEpochMillis(record.timestamp());
        }
    },
    TIMESTAMP_TYPE("timestamp-type", DataTypes.STRING().notNull()) {
        @Override
        Object read(final ConsumedRecord record) {
            return StringData.fromString(record.timestampType().displayName());
        }
    },
    HEADERS(
            "headers",
            DataTypes.MAP(DataTypes.STRING().nullable(), DataTypes.BYTES().nullable())
                    .notNull()) {
        @Override
        Object read(final ConsumedRecord record) {
            final Map<StringData, byte[]> headers = new HashMap<>();
            for (int i = 0; i < record.headerCount(); i++) {
                final MemorySegment value = record.headerValue(i);
                headers.put(
                        StringData.fromString(record.headerKey(i)),
                        value == null ? null : value.toArray(ValueLayout.JAVA_BYTE));
            }
            return new GenericMapData(headers);
        }
    };

    final String key;
    final DataType dataType;

    ReadableMetadata(final String key, final DataType dataType) {
        this.key = key;
        this.dataType = dataType;
    }

    /** The column's value for {@code record}, in Flink's internal data structures. */
    abstract Object read(ConsumedRecord record);

    static ReadableMetadata of(final String key) {
        for (final ReadableMetadata m : values()) {
            if (m.key.equals(key)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown readable metadata key: " + key);
    }
}
