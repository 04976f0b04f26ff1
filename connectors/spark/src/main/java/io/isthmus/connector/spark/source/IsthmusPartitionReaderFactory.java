package io.isthmus.connector.spark.source;

import java.util.Iterator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Makes the executor's readers. Reads are columnar ({@link PartitionRangeReader}); where Spark asks for rows, they are
 * the column batches' rows, read in place.
 */
public final class IsthmusPartitionReaderFactory implements PartitionReaderFactory {
    private static final long serialVersionUID = 1L;

    @Override
    public boolean supportColumnarReads(final InputPartition partition) {
        return true;
    }

    @Override
    public PartitionReader<ColumnarBatch> createColumnarReader(final InputPartition partition) {
        return new PartitionRangeReader((IsthmusInputPartition) partition);
    }

    @Override
    public PartitionReader<InternalRow> createReader(final InputPartition partition) {
        final PartitionRangeReader batches = new PartitionRangeReader((IsthmusInputPartition) partition);
        return new PartitionReader<>() {
            private Iterator<InternalRow> rows = java.util.Collections.emptyIterator();
            private InternalRow current;

            @Override
            public boolean next() throws java.io.IOException {
                while (!rows.hasNext()) {
                    if (!batches.next()) {
                        return false;
                    }
                    rows = batches.get().rowIterator();
                }
                current = rows.next();
                return true;
            }

            @Override
            public InternalRow get() {
                return current;
            }

            @Override
            public void close() {
                batches.close();
            }
        };
    }
}
