/**
 * The C structs of rdma-core that the binding touches, each declared exactly once with its C
 * type name and C field names, and the {@link io.isthmus.ffi.layout.StructRegistry} that lists
 * them so a test can compare every offset and size with the installed headers.
 *
 * <p>Layouts are built by {@link io.isthmus.ffi.layout.CLayouts}, which applies the C rules
 * (natural alignment, padding, trailing padding) so that declarations read like the header.
 */
package io.isthmus.ffi.layout;
