package io.isthmus.connector.spark.sink;

import org.apache.spark.sql.connector.write.SupportsTruncate;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.internal.connector.SupportsStreamingUpdateAsAppend;
import org.apache.spark.sql.types.StructType;

/**
 * Builds a write of rows as records. A log cannot be truncated: as Spark's Kafka sink, a streaming query in complete
 * or update output mode appends its result rows (truncate is accepted and means append).
 */
public final class IsthmusWriteBuilder implements WriteBuilder, SupportsTruncate, SupportsStreamingUpdateAsAppend {
    private final WriteOptions options;
    private final StructType schema;

    public IsthmusWriteBuilder(final WriteOptions options, final StructType schema) {
        this.options = options;
        this.schema = schema;
    }

    @Override
    public WriteBuilder truncate() {
        return this;
    }

    @Override
    public Write build() {
        return new IsthmusWrite(options, SinkColumns.of(schema, options.topic()));
    }
}
