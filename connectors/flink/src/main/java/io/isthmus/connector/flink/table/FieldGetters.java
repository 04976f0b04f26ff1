package io.isthmus.connector.flink.table;

import java.util.List;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;

/** Field getters for the columns of a projection, read from the projected row a format made or takes. */
final class FieldGetters {
    private FieldGetters() {}

    static RowData.FieldGetter[] of(final DataType physical, final int[] projection) {
        final List<DataType> fields = DataType.getFieldDataTypes(physical);
        final RowData.FieldGetter[] getters = new RowData.FieldGetter[projection.length];
        for (int i = 0; i < projection.length; i++) {
            getters[i] = RowData.createFieldGetter(fields.get(projection[i]).getLogicalType(), i);
        }
        return getters;
    }

    /** Getters of these physical columns in the full physical row (for the sink's projections). */
    static RowData.FieldGetter[] inPhysicalRow(final DataType physical, final int[] projection) {
        final List<DataType> fields = DataType.getFieldDataTypes(physical);
        final RowData.FieldGetter[] getters = new RowData.FieldGetter[projection.length];
        for (int i = 0; i < projection.length; i++) {
            getters[i] = RowData.createFieldGetter(fields.get(projection[i]).getLogicalType(), projection[i]);
        }
        return getters;
    }
}
