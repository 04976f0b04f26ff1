/**
 * Loading of rdma-core's {@code libibverbs.so.1} and {@code librdmacm.so.1} through the Java
 * Foreign Function &amp; Memory API, the availability answer ({@link io.isthmus.ffi.Rdma#availability()}),
 * errno mapping and the life-cycle base of every native resource.
 *
 * <p>Nothing here needs a device: on a host without RDMA every entry point answers "unavailable"
 * with a reason instead of failing.
 */
package io.isthmus.ffi;
