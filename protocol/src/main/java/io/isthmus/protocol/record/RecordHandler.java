package io.isthmus.protocol.record;

/**
 * Receives each record of a batch from {@link RecordBatch#forEachRecord(RecordHandler)}.
 *
 * <p>The {@link Record} is a flyweight reused for every record: read what you need inside the callback and do not
 * keep it. Its key and value slices stay valid only as long as the memory they point into.
 */
@FunctionalInterface
public interface RecordHandler {
    void onRecord(Record record);
}
