package io.isthmus.connector.spark.sink;

import io.isthmus.client.producer.Callback;
import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.client.producer.RecordMetadata;
import io.isthmus.protocol.record.HeaderList;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * Writes one task's rows as records through the executor's shared producer. At least once, as Spark's Kafka sink: a
 * task commits only after every one of its records is acknowledged ({@link IsthmusProducer#flush()}), and the first
 * failed send fails the task, naming the record's topic and partition, so that Spark runs it again.
 */
final class IsthmusDataWriter implements DataWriter<InternalRow>, Callback {
    private final WriteOptions options;
    private final SinkColumns columns;
    private final IsthmusProducer producer;
    private final HeaderList headers = new HeaderList();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private boolean released;

    IsthmusDataWriter(final WriteOptions options, final SinkColumns columns) {
        this.options = options;
        this.columns = columns;
        this.producer = ProducerPool.executor().acquire(options.producerSettings());
    }

    @Override
    public void write(final InternalRow row) {
        checkFailure();
        final String topic = topic(row);
        final int partition = columns.partition() >= 0 && !row.isNullAt(columns.partition())
                ? row.getInt(columns.partition())
                : IsthmusProducer.ANY_PARTITION;
        final byte[] key = bytes(row, columns.key(), columns.keyIsString());
        final byte[] value = bytes(row, columns.value(), columns.valueIsString());
        producer.send(topic, partition, IsthmusProducer.NOW, key, value, headers(row), this);
    }

    private String topic(final InternalRow row) {
        if (options.topic() != null) {
            return options.topic();
        }
        if (row.isNullAt(columns.topic())) {
            throw new IllegalArgumentException(
                    "null topic present in the data; use the 'topic' option to set a" + " default topic");
        }
        return row.getUTF8String(columns.topic()).toString();
    }

    private static byte[] bytes(final InternalRow row, final int ordinal, final boolean string) {
        if (ordinal < 0 || row.isNullAt(ordinal)) {
            return null;
        }
        return string ? row.getUTF8String(ordinal).getBytes() : row.getBinary(ordinal);
    }

    private HeaderList headers(final InternalRow row) {
        if (columns.headers() < 0 || row.isNullAt(columns.headers())) {
            return null;
        }
        final ArrayData array = row.getArray(columns.headers());
        headers.clear();
        for (int i = 0; i < array.numElements(); i++) {
            final InternalRow header = array.getStruct(i, 2);
            if (header.isNullAt(0)) {
                throw new IllegalArgumentException("a header of the row has a null key");
            }
            headers.add(
                    MemorySegment.ofArray(header.getUTF8String(0).getBytes()),
                    header.isNullAt(1) ? null : MemorySegment.ofArray(header.getBinary(1)));
        }
        return headers;
    }

    @Override
    public void onCompletion(final RecordMetadata metadata, final Exception exception) {
        if (exception != null) {
            failure.compareAndSet(null, exception);
        }
    }

    private void checkFailure() {
        final Exception e = failure.get();
        if (e != null) {
            throw new IllegalStateException("writing to isthmus failed: " + e.getMessage(), e);
        }
    }

    @Override
    public WriterCommitMessage commit() {
        producer.flush();
        checkFailure();
        return Committed.INSTANCE;
    }

    @Override
    public void abort() {
        // Records sent so far may be in the log: the sink is at-least-once, and Spark runs the task again.
        release(failure.get() != null);
    }

    @Override
    public void close() {
        release(failure.get() != null);
    }

    private void release(final boolean broken) {
        if (!released) {
            released = true;
            ProducerPool.executor().release(producer, broken);
        }
    }

    /** A task's commit: nothing to tell the driver, everything is in the log. */
    enum Committed implements WriterCommitMessage {
        INSTANCE
    }
}
