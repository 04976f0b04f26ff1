package io.isthmus.connector.spark;

import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The row of a record, column for column Spark's Kafka source's: a query moved from {@code format("kafka")} reads the
 * same names, types and order.
 *
 * <pre>
 *   key            binary      null for a record without a key
 *   value          binary      null for a tombstone
 *   topic          string
 *   partition      int
 *   offset         long
 *   timestamp      timestamp   the record's timestamp (create or log-append time, see timestampType)
 *   timestampType  int         Kafka's id: 0 CreateTime, 1 LogAppendTime
 *   headers        array&lt;struct&lt;key: string, value: binary&gt;&gt;   only with includeHeaders=true
 * </pre>
 */
public final class KafkaRecordSchema {
    public static final int KEY = 0;
    public static final int VALUE = 1;
    public static final int TOPIC = 2;
    public static final int PARTITION = 3;
    public static final int OFFSET = 4;
    public static final int TIMESTAMP = 5;
    public static final int TIMESTAMP_TYPE = 6;
    public static final int HEADERS = 7;

    /** The element of the headers array. */
    public static final StructType HEADER = new StructType(new StructField[] {
        DataTypes.createStructField("key", DataTypes.StringType, true),
        DataTypes.createStructField("value", DataTypes.BinaryType, true)
    });

    public static final ArrayType HEADERS_TYPE = DataTypes.createArrayType(HEADER);

    private static final StructType WITHOUT_HEADERS = new StructType(new StructField[] {
        DataTypes.createStructField("key", DataTypes.BinaryType, true),
        DataTypes.createStructField("value", DataTypes.BinaryType, true),
        DataTypes.createStructField("topic", DataTypes.StringType, true),
        DataTypes.createStructField("partition", DataTypes.IntegerType, true),
        DataTypes.createStructField("offset", DataTypes.LongType, true),
        DataTypes.createStructField("timestamp", DataTypes.TimestampType, true),
        DataTypes.createStructField("timestampType", DataTypes.IntegerType, true)
    });

    private static final StructType WITH_HEADERS =
            WITHOUT_HEADERS.add(DataTypes.createStructField("headers", HEADERS_TYPE, true));

    private KafkaRecordSchema() {}

    /** The record row, with the {@code headers} column when asked for. */
    public static StructType schema(final boolean includeHeaders) {
        return includeHeaders ? WITH_HEADERS : WITHOUT_HEADERS;
    }
}
