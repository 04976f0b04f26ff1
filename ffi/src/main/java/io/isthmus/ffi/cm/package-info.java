/**
 * The RDMA connection manager (librdmacm) as Java objects: {@link io.isthmus.ffi.cm.EventChannel},
 * {@link io.isthmus.ffi.cm.CmId} (resolve, listen, connect and accept with private data, disconnect)
 * and {@link io.isthmus.ffi.cm.CmEvent}. Queue pairs created on an id are ordinary
 * {@link io.isthmus.ffi.verbs.QueuePair}s.
 */
package io.isthmus.ffi.cm;
