/**
 * Kafka's RecordBatch v2 (magic 2) record format over {@link java.lang.foreign.MemorySegment}, byte-compatible with
 * Kafka: {@link io.isthmus.client.record.RecordBatchDescriptor} (layout), {@link
 * io.isthmus.client.record.RecordBatch} and {@link io.isthmus.client.record.Record} (allocation-free flyweights),
 * {@link io.isthmus.client.record.RecordBatchValidator} (untrusted input), {@link
 * io.isthmus.client.record.RecordBatchBuilder} (writing), and the codecs {@link
 * io.isthmus.client.record.BatchDecompressor} / {@link io.isthmus.client.record.BatchCompressor} (gzip, snappy,
 * lz4, zstd in Kafka's stream formats).
 */
package io.isthmus.client.record;
