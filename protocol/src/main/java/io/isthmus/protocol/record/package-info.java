/**
 * Kafka's RecordBatch v2 (magic 2) record format over {@link java.lang.foreign.MemorySegment}, byte-compatible with
 * Kafka: {@link io.isthmus.protocol.record.RecordBatchDescriptor} (layout), {@link
 * io.isthmus.protocol.record.RecordBatch} and {@link io.isthmus.protocol.record.Record} (allocation-free flyweights),
 * {@link io.isthmus.protocol.record.RecordBatchValidator} (untrusted input), {@link
 * io.isthmus.protocol.record.RecordBatchBuilder} (writing), and the codecs {@link
 * io.isthmus.protocol.record.BatchDecompressor} / {@link io.isthmus.protocol.record.BatchCompressor} (gzip, snappy,
 * lz4, zstd in Kafka's stream formats).
 */
package io.isthmus.protocol.record;
