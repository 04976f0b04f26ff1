/**
 * The libibverbs API as Java objects: {@link io.isthmus.ffi.verbs.DeviceList} and
 * {@link io.isthmus.ffi.verbs.Context} (control path: queries, PDs, MRs, CQs, QPs, SRQs, completion
 * channels, async events) and the allocation-free data path: reusable off-heap
 * {@link io.isthmus.ffi.verbs.SendWorkRequests}, {@link io.isthmus.ffi.verbs.ReceiveWorkRequests}
 * and {@link io.isthmus.ffi.verbs.WorkCompletions} posted and polled through the provider's
 * function pointers ({@code context->ops}), bound once per QP, CQ and SRQ.
 *
 * <p>Every object is {@link java.lang.AutoCloseable}; close in reverse order of creation (QPs, SRQs,
 * MRs, CQs, channels, PD, context). Closing out of order or using a closed object throws
 * {@link java.lang.IllegalStateException}; native calls that fail throw
 * {@link io.isthmus.ffi.VerbsException} with the verb, errno name and context.
 */
package io.isthmus.ffi.verbs;
