/**
 * Metadata slots for one-sided consumers, whatever carries them: the region of every session's slot ranges ({@link
 * io.isthmus.broker.slots.MetadataSlotRegion}), the slots of one partition republished after every commit ({@link
 * io.isthmus.broker.slots.PartitionSlots}) and its aborted transactions for {@code read_committed} readers ({@link
 * io.isthmus.broker.slots.AbortedTransactionArray}). The RDMA datapath registers them for READ; the shared-memory
 * datapath keeps them in a file its clients map.
 */
package io.isthmus.broker.slots;
