package io.isthmus.connector.spark.sink;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;
import org.apache.spark.sql.connector.write.streaming.StreamingWrite;

/**
 * A write of rows as records, in a batch ({@code df.write}) or in every micro-batch of a stream ({@code
 * df.writeStream}). Each task's records are acknowledged before the task commits, so the driver has nothing left to
 * commit: at least once.
 */
final class IsthmusWrite implements Write, BatchWrite, StreamingWrite {
    private final WriteOptions options;
    private final SinkColumns columns;

    IsthmusWrite(final WriteOptions options, final SinkColumns columns) {
        this.options = options;
        this.columns = columns;
    }

    @Override
    public String description() {
        return "isthmus" + (options.topic() != null ? " topic=" + options.topic() : "");
    }

    /** Spark's commit coordinator lets one attempt per task commit; the default of both interfaces, said once. */
    @Override
    public boolean useCommitCoordinator() {
        return true;
    }

    @Override
    public BatchWrite toBatch() {
        return this;
    }

    @Override
    public StreamingWrite toStreaming() {
        return this;
    }

    @Override
    public DataWriterFactory createBatchWriterFactory(final PhysicalWriteInfo info) {
        return new WriterFactory(options, columns);
    }

    @Override
    public StreamingDataWriterFactory createStreamingWriterFactory(final PhysicalWriteInfo info) {
        return new WriterFactory(options, columns);
    }

    @Override
    public void commit(final WriterCommitMessage[] messages) {
        // Every task's records were acknowledged before it committed.
    }

    @Override
    public void abort(final WriterCommitMessage[] messages) {
        // Records of tasks that committed stay in the log: the sink is at-least-once, as Spark's Kafka sink.
    }

    @Override
    public void commit(final long epochId, final WriterCommitMessage[] messages) {
        // As commit(messages): each task committed its records itself.
    }

    @Override
    public void abort(final long epochId, final WriterCommitMessage[] messages) {
        // As abort(messages).
    }

    /** Makes a task's writer, on the executor. */
    private record WriterFactory(WriteOptions options, SinkColumns columns)
            implements DataWriterFactory, StreamingDataWriterFactory {
        @Override
        public DataWriter<InternalRow> createWriter(final int partitionId, final long taskId) {
            return new IsthmusDataWriter(options, columns);
        }

        @Override
        public DataWriter<InternalRow> createWriter(final int partitionId, final long taskId, final long epochId) {
            return new IsthmusDataWriter(options, columns);
        }
    }
}
