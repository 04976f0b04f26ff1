/**
 * The broker side of the RDMA datapaths: {@link io.isthmus.broker.rdma.RdmaService} (what the broker starts, and why
 * RDMA is off when it is), the control requests that grant access over TCP ({@link
 * io.isthmus.broker.rdma.RdmaControlHandler}), the single-threaded datapath that owns every queue pair and processes
 * produce completions in order ({@link io.isthmus.broker.rdma.RdmaDatapath}), the memory-registration cache of log
 * segments ({@link io.isthmus.broker.rdma.SegmentRegistrations}); the metadata slots it registers for READ are
 * {@code io.isthmus.broker.slots}', shared with the shared-memory datapath. Layouts shared with clients live in {@code
 * io.isthmus.protocol.control}.
 */
package io.isthmus.broker.rdma;
