/**
 * Record batches as the client's transports receive them: {@link io.isthmus.client.record.ReadableBatches} is the one
 * walk over the headers of fetched batches, shared by the TCP and RDMA consume paths.
 */
package io.isthmus.client.record;
