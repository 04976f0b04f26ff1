/**
 * The partition log: segmented, memory-mapped RecordBatch v2 storage with sparse offset and time indexes, crash
 * recovery, retention and flush policy.
 *
 * <p>The log is both the broker's storage and the memory that RDMA producers write into and RDMA consumers read from:
 * every segment is a preallocated file mapped read-write once, for its whole life, into an {@link
 * java.lang.foreign.Arena} the segment owns, so that its address and size can be registered with a NIC once.
 *
 * <p>Entry points: {@link io.isthmus.broker.log.LogManager} (all partitions under {@code log.dirs}), {@link
 * io.isthmus.broker.log.PartitionLog} (one partition), {@link io.isthmus.broker.log.LogConfig} (Kafka-named settings).
 * Concurrency: one appender per partition at a time, any number of lock-free readers that trust only bytes below a
 * position published with release semantics after the data.
 */
package io.isthmus.broker.log;
