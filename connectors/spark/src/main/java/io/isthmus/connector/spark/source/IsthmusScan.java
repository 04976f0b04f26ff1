package io.isthmus.connector.spark.source;

import io.isthmus.connector.spark.IsthmusOptions;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.types.StructType;

/**
 * A read of the log: as one batch ({@code spark.read}) or as micro-batches ({@code spark.readStream}), of the record
 * columns the query uses.
 */
final class IsthmusScan implements Scan {
    private final ReadOptions options;
    private final StructType schema;

    IsthmusScan(final ReadOptions options, final StructType schema) {
        this.options = options;
        this.schema = schema;
    }

    @Override
    public StructType readSchema() {
        return schema;
    }

    @Override
    public String description() {
        return "isthmus " + options.subscription().describe();
    }

    @Override
    public Batch toBatch() {
        return new IsthmusBatch(options, schema);
    }

    @Override
    public MicroBatchStream toMicroBatchStream(final String checkpointLocation) {
        if (options.endingGiven()) {
            throw new IllegalArgumentException("options '" + IsthmusOptions.ENDING_OFFSETS + "', '"
                    + IsthmusOptions.ENDING_OFFSETS_BY_TIMESTAMP + "' and '" + IsthmusOptions.ENDING_TIMESTAMP
                    + "' are for batch reads; a streaming query runs on (use Trigger.AvailableNow to stop at the end)");
        }
        return new IsthmusMicroBatchStream(options, schema, checkpointLocation);
    }
}
