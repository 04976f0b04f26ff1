/**
 * The producer: {@link io.isthmus.client.producer.IsthmusProducer} builds RecordBatch v2 batches in pooled off-heap
 * buffers ({@link io.isthmus.client.producer.RecordAccumulator}), a {@link io.isthmus.client.producer.Sender} thread
 * ships them in pipelined Produce requests, idempotently (producer id, epoch and per-partition sequences), and keyed
 * records land where Kafka's default partitioner puts them ({@link io.isthmus.client.producer.Murmur2}).
 */
package io.isthmus.client.producer;
