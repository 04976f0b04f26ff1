/**
 * The zero-copy consumer: {@link io.isthmus.client.consumer.IsthmusConsumer} reads fetch responses into pooled
 * off-heap buffers and hands out records in place, either as an {@link java.lang.AutoCloseable} {@link
 * io.isthmus.client.consumer.ConsumerBatch} whose key, value and header slices die with the batch (a per-poll arena),
 * or through {@link io.isthmus.client.consumer.ConsumerRecordHandler} callbacks with a reused flyweight (the
 * allocation-free path). Groups use Kafka's classic protocol with a range assignor in Kafka's ConsumerProtocol format.
 *
 * <p>{@link io.isthmus.client.consumer.IsthmusConsumer} is a facade over {@link io.isthmus.client.consumer.internals}
 * (subscription state and positions, the TCP and RDMA fetchers, record iteration) and {@code ConsumerGroupMember}.
 */
package io.isthmus.client.consumer;
