package io.isthmus.connector.spark;

import io.isthmus.connector.spark.sink.IsthmusWriteBuilder;
import io.isthmus.connector.spark.sink.WriteOptions;
import io.isthmus.connector.spark.source.IsthmusScanBuilder;
import io.isthmus.connector.spark.source.ReadOptions;
import java.util.EnumSet;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The log as a Spark table: read as a batch or a stream of record rows, written from rows with Kafka's sink columns
 * (any schema is accepted here and checked by the writer, as the Kafka source's table does).
 */
public final class IsthmusTable implements SupportsRead, SupportsWrite {
    private static final Set<TableCapability> CAPABILITIES = EnumSet.of(
            TableCapability.BATCH_READ,
            TableCapability.MICRO_BATCH_READ,
            TableCapability.BATCH_WRITE,
            TableCapability.STREAMING_WRITE,
            TableCapability.ACCEPT_ANY_SCHEMA);

    private final StructType schema;

    IsthmusTable(final StructType schema) {
        this.schema = schema;
    }

    @Override
    public String name() {
        return "IsthmusTable";
    }

    @Override
    public Column[] columns() {
        final StructField[] fields = schema.fields();
        final Column[] columns = new Column[fields.length];
        for (int i = 0; i < fields.length; i++) {
            columns[i] = Column.create(fields[i].name(), fields[i].dataType(), fields[i].nullable());
        }
        return columns;
    }

    @Override
    @SuppressWarnings("deprecation")
    public StructType schema() {
        return schema;
    }

    @Override
    public Set<TableCapability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public ScanBuilder newScanBuilder(final CaseInsensitiveStringMap options) {
        return new IsthmusScanBuilder(ReadOptions.parse(options), schema);
    }

    @Override
    public WriteBuilder newWriteBuilder(final LogicalWriteInfo info) {
        return new IsthmusWriteBuilder(WriteOptions.parse(info.options()), info.schema());
    }
}
