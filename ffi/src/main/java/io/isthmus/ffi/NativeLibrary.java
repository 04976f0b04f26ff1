package io.isthmus.ffi;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * One of the two rdma-core libraries the binding uses, loaded at most once per JVM into the
 * global arena (a shared library cannot be unloaded safely while handles into it exist).
 *
 * <p>Loading never throws out of {@link #isLoaded()} or {@link #loadFailure()}: a missing library
 * is a normal answer on a host without rdma-core. {@link #downcall} throws
 * {@link RdmaUnavailableException} instead.
 */
public enum NativeLibrary {
    /** {@code libibverbs.so.1}: devices, contexts, PDs, MRs, CQs, QPs, SRQs. */
    IBVERBS("libibverbs.so.1", "libibverbs1"),
    /** {@code librdmacm.so.1}: the RDMA connection manager. */
    RDMACM("librdmacm.so.1", "librdmacm1");

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private final String soname;
    private final String debianPackage;
    private volatile SymbolLookup lookup;
    private volatile String failure;

    NativeLibrary(String soname, String debianPackage) {
        this.soname = soname;
        this.debianPackage = debianPackage;
    }

    /** The shared object name passed to {@code dlopen}, e.g. {@code libibverbs.so.1}. */
    public String soname() {
        return soname;
    }

    /** Whether the library could be opened. */
    public boolean isLoaded() {
        return load() != null;
    }

    /** Why the library could not be opened, or {@code null} when it is loaded. */
    public String loadFailure() {
        load();
        return failure;
    }

    private SymbolLookup load() {
        SymbolLookup current = lookup;
        if (current != null || failure != null) {
            return current;
        }
        synchronized (this) {
            if (lookup == null && failure == null) {
                try {
                    lookup = SymbolLookup.libraryLookup(soname, Arena.global());
                } catch (IllegalArgumentException | IllegalCallerException e) {
                    failure = soname + " not found (install " + debianPackage + "): " + e.getMessage();
                }
            }
            return lookup;
        }
    }

    /** The address of an exported symbol; throws when the library or the symbol is missing. */
    public MemorySegment symbol(String name) {
        SymbolLookup current = load();
        if (current == null) {
            throw new RdmaUnavailableException(failure);
        }
        return current.find(name)
                .orElseThrow(
                        () -> new RdmaUnavailableException("symbol not found: symbol=" + name + ", library=" + soname));
    }

    /** A downcall handle for an exported function (blocking-safe, not critical). */
    public MethodHandle downcall(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(symbol(name), descriptor);
    }

    /**
     * A downcall handle that captures {@code errno}: its first parameter is a capture segment of
     * {@link #errnoCaptureSize()} bytes, read back with {@link #errno(MemorySegment)}.
     */
    public MethodHandle downcallCapturingErrno(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(symbol(name), descriptor, CAPTURE_ERRNO);
    }

    /** Allocates a segment to pass as the errno capture argument. */
    public static MemorySegment allocateErrnoCapture(Arena arena) {
        return arena.allocate(CAPTURE_LAYOUT);
    }

    /** The errno value a capturing downcall stored into {@code capture}. */
    public static int errno(MemorySegment capture) {
        return (int) ERRNO.get(capture, 0L);
    }

    /** The linker used for every downcall and upcall of the binding. */
    public static Linker linker() {
        return LINKER;
    }

    /**
     * For {@code catch (Throwable t) { throw rethrow(t); }} around {@code invokeExact}: unchecked throwables
     * pass unchanged, a checked one (no downcall declares any) is wrapped.
     */
    public static RuntimeException rethrow(final Throwable t) {
        if (t instanceof RuntimeException e) {
            throw e;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("downcall failed", t);
    }
}
