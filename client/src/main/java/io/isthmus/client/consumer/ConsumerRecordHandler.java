package io.isthmus.client.consumer;

/**
 * Receives records from {@link IsthmusConsumer#poll(ConsumerRecordHandler, int)}, in Aeron's {@code onFragment}
 * shape: the {@link ConsumedRecord} is one flyweight reused for every record, and its bytes are valid only during the
 * call. Read them in place ({@link ConsumedRecord#segment()} with the offsets) to allocate nothing.
 */
@FunctionalInterface
public interface ConsumerRecordHandler {
    void onRecord(ConsumedRecord record);
}
