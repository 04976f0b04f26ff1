/**
 * The consumer's machinery behind the {@link io.isthmus.client.consumer.IsthmusConsumer} facade, split as Kafka's
 * consumer is; not API.
 *
 * <ul>
 *   <li>{@link io.isthmus.client.consumer.internals.SubscriptionState}: assignment, subscription, paused partitions,
 *       and the one owner of positions;
 *   <li>{@link io.isthmus.client.consumer.internals.Fetcher}: brings records into local memory, over TCP ({@link
 *       io.isthmus.client.consumer.internals.TcpFetcher}) or RDMA ({@link io.isthmus.client.consumer.internals.RdmaFetcher}),
 *       as pooled {@link io.isthmus.client.consumer.internals.FetchedData};
 *   <li>{@link io.isthmus.client.consumer.internals.RecordIterator}: hands the records out in place.
 * </ul>
 *
 * <p>The consume path walks a batch's headers once between the socket and the application: the fetcher's {@link
 * io.isthmus.client.record.ReadableBatches} walk finds each slice's readable end and next offset, the {@link
 * io.isthmus.client.consumer.internals.FetchedSlice} keeps them, and the iterator trusts them, reading each header
 * only when it opens that batch for its records.
 */
package io.isthmus.client.consumer.internals;
