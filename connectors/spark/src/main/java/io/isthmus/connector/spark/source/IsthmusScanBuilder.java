package io.isthmus.connector.spark.source;

import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;

/** Builds the one scan there is: every record column (Kafka's source pushes nothing down either). */
public final class IsthmusScanBuilder implements ScanBuilder {
    private final ReadOptions options;
    private final StructType schema;

    public IsthmusScanBuilder(final ReadOptions options, final StructType schema) {
        this.options = options;
        this.schema = schema;
    }

    @Override
    public Scan build() {
        return new IsthmusScan(options, schema);
    }
}
