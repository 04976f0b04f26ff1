/**
 * JMH microbenchmarks of the storage and record layers: log append against this machine's memcpy bandwidth, RecordBatch
 * encode and iterate, CRC-32C.
 */
package io.isthmus.benchmarks.jmh;
