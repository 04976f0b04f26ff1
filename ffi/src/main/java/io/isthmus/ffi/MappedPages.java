package io.isthmus.ffi;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Faults in the pages of a shared file mapping for writing, without writing them, with libc {@code madvise(2)} and
 * {@code MADV_POPULATE_WRITE} (Linux 5.14 and later).
 *
 * <p>Why: the log pre-touches the pages ahead of each segment's tail so that appends (and remote RDMA WRITEs) land
 * in resident memory. Touching from Java takes one page fault per 4 KiB page; one {@code madvise} call populates a
 * whole range in the kernel, and it leaves every byte as it is, so it may race writers just as the touch did. On this
 * project's machine (tmpfs, 1 GiB mapping) it cost 0.36-0.41 s per GB against 0.46-0.60 for touching page by page.
 *
 * <p>A range passed here is kept alive for the call by its arena (a shared arena's close waits for the call), so
 * populating cannot reach memory that was unmapped and mapped again for something else.
 */
public final class MappedPages {
    /** {@code MADV_POPULATE_WRITE} from {@code <linux/mman.h>} (asm-generic). */
    static final int MADV_POPULATE_WRITE = 23;

    private static final MethodHandle MADVISE = NativeLibrary.linker()
            .downcallHandle(
                    NativeLibrary.linker().defaultLookup().find("madvise").orElseThrow(),
                    FunctionDescriptor.of(
                            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT),
                    Linker.Option.captureCallState("errno"));

    private MappedPages() {}

    /**
     * Populates {@code pages} (page-aligned start) for writing, or says why not.
     *
     * @return 0, or the error number: {@code EINVAL} where the kernel has no {@code MADV_POPULATE_WRITE} (or the range
     *     is not page-aligned), {@code ENOMEM} where part of it is not mapped, {@code EFAULT} where populating failed
     *     (as a write there would: the caller should have reserved the file's blocks first)
     */
    public static int populateWrite(final MemorySegment pages) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment capture = NativeLibrary.allocateErrnoCapture(arena);
            final int rc = (int) MADVISE.invokeExact(capture, pages, pages.byteSize(), MADV_POPULATE_WRITE);
            return rc == 0 ? 0 : NativeLibrary.errno(capture);
        } catch (final RuntimeException | Error e) {
            throw e;
        } catch (final Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }
}
