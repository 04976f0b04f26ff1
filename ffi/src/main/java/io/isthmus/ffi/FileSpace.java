package io.isthmus.ffi;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * Reserves a file's disk blocks ahead of writes made through a memory mapping, with libc {@code posix_fallocate(3)}.
 *
 * <p>Why: a store into a mapped page of a sparse file allocates its block when the page is first written; if the file
 * system is full that store gets {@code SIGBUS}, which no Java code can answer. Reserving the blocks first turns a
 * full disk into an error code here, before any byte is written. The file is opened by path for its own descriptor,
 * closed by {@link #close()}.
 */
public final class FileSpace implements AutoCloseable {
    private static final int O_RDWR = 02;
    private static final int O_CLOEXEC = 02000000;

    private static final MethodHandle OPEN = NativeLibrary.linker()
            .downcallHandle(
                    NativeLibrary.linker().defaultLookup().find("open").orElseThrow(),
                    FunctionDescriptor.of(
                            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
                    Linker.Option.firstVariadicArg(2),
                    Linker.Option.captureCallState("errno"));
    private static final MethodHandle FALLOCATE = NativeLibrary.linker()
            .downcallHandle(
                    NativeLibrary.linker()
                            .defaultLookup()
                            .find("posix_fallocate")
                            .orElseThrow(),
                    FunctionDescriptor.of(
                            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle CLOSE = NativeLibrary.linker()
            .downcallHandle(
                    NativeLibrary.linker().defaultLookup().find("close").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

    private final Path file;
    private final int fd;
    private boolean closed;

    private FileSpace(final Path file, final int fd) {
        this.file = file;
        this.fd = fd;
    }

    /**
     * Opens {@code file} (which must exist) for reservations.
     *
     * @throws IOException naming the file and the error if it cannot be opened
     */
    public static FileSpace open(final Path file) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment capture = NativeLibrary.allocateErrnoCapture(arena);
            final int fd = (int) OPEN.invokeExact(capture, arena.allocateFrom(file.toString()), O_RDWR | O_CLOEXEC, 0);
            if (fd < 0) {
                final int errno = NativeLibrary.errno(capture);
                throw new IOException("cannot open " + file + " to reserve space: " + Errno.name(errno) + " ("
                        + Errno.message(errno) + ")");
            }
            return new FileSpace(file, fd);
        } catch (final IOException | RuntimeException | Error e) {
            throw e;
        } catch (final Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /**
     * Makes sure the blocks of {@code [offset, offset + length)} exist on disk (blocks already there stay as they are).
     *
     * @return 0, or the error number: {@code ENOSPC} when the file system is full, {@code EDQUOT}, {@code EFBIG}, ...
     */
    public int reserve(final long offset, final long length) {
        if (closed) {
            throw new IllegalStateException("reserving space in a closed file: " + file);
        }
        try {
            return (int) FALLOCATE.invokeExact(fd, offset, length);
        } catch (final Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    public Path file() {
        return file;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            final int rc = (int) CLOSE.invokeExact(fd);
            if (rc != 0) {
                throw new IllegalStateException("close failed for " + file);
            }
        } catch (final RuntimeException | Error e) {
            throw e;
        } catch (final Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }
}
