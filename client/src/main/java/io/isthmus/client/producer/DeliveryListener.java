package io.isthmus.client.producer;

/**
 * Called once per batch when it is acknowledged or fails, on the producer's sender thread: the allocation-free way to
 * learn about deliveries (the batch's records have offsets {@code baseOffset .. baseOffset + recordCount - 1}, in send
 * order within the partition).
 */
@FunctionalInterface
public interface DeliveryListener {
    /**
     * @param baseOffset the first record's offset, -1 if unknown (acks=0)
     * @param error null on success
     */
    void onDelivery(String topic, int partition, long baseOffset, int recordCount, RuntimeException error);
}
