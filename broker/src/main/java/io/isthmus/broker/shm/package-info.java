/**
 * The broker side of the shared-memory datapath ({@code transport=shm}): a client on the broker's host proves with a
 * token in the broker's shared-memory directory that it may read the log ({@link io.isthmus.broker.shm.ShmService},
 * {@link io.isthmus.broker.shm.ShmControlHandler}), then maps the granted segment files and its metadata slots in the
 * shared slot file read-only and reads committed batches in place, with loads, costing the broker no CPU per poll. The
 * slots are the RDMA consumers' ({@code io.isthmus.broker.slots}); layouts shared with clients live in {@code
 * io.isthmus.protocol.control}.
 */
package io.isthmus.broker.shm;
