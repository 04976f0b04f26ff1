package io.isthmus.connector.spark;

import java.util.Map;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The data source behind {@code format("isthmus")}: Spark finds it through {@code META-INF/services} by its short
 * name, as it finds {@code KafkaSourceProvider} by {@code kafka}. The schema is fixed (Kafka's record columns), so a
 * user-given schema is refused, as the Kafka source refuses one.
 *
 * <p>Every read and write is DataSource V2 through {@link IsthmusTable}. A batch write therefore names its save mode,
 * {@code mode("append")}: Spark sends a V2 source's default mode (ErrorIfExists) nowhere, where the Kafka source, a V1
 * source for batch writes by default, takes it as append.
 */
public final class IsthmusSourceProvider implements TableProvider, DataSourceRegister {
    /** The name after {@code format(...)}. */
    public static final String SHORT_NAME = "isthmus";

    @Override
    public String shortName() {
        return SHORT_NAME;
    }

    @Override
    public StructType inferSchema(final CaseInsensitiveStringMap options) {
        return KafkaRecordSchema.schema(IsthmusOptions.booleanOption(options, IsthmusOptions.INCLUDE_HEADERS, false));
    }

    @Override
    public Table getTable(
            final StructType schema, final Transform[] partitioning, final Map<String, String> properties) {
        return new IsthmusTable(schema);
    }
}
