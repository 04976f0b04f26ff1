package io.isthmus.connector.spark.source;

import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.types.StructType;

/**
 * Builds the scan, of only the record columns the query uses: a column nobody reads is not copied into Spark's
 * memory at all (Kafka's source builds every column of every row). Filters are not pushed down.
 */
public final class IsthmusScanBuilder implements ScanBuilder, SupportsPushDownRequiredColumns {
    private final ReadOptions options;
    private StructType schema;

    public IsthmusScanBuilder(final ReadOptions options, final StructType schema) {
        this.options = options;
        this.schema = schema;
    }

    @Override
    public void pruneColumns(final StructType requiredSchema) {
        this.schema = requiredSchema;
    }

    @Override
    public Scan build() {
        return new IsthmusScan(options, schema);
    }
}
