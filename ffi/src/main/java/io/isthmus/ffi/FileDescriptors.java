package io.isthmus.ffi;

import io.isthmus.ffi.layout.Pollfd;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Waits for a file descriptor (a completion channel, an async-event or an RDMA CM event channel)
 * to become readable with libc {@code poll(2)}, so that blocking verbs can be given a timeout.
 */
public final class FileDescriptors {
    private static final short POLLIN = 0x1;
    private static final MethodHandle POLL = NativeLibrary.linker()
            .downcallHandle(
                    NativeLibrary.linker().defaultLookup().find("poll").orElseThrow(),
                    FunctionDescriptor.of(
                            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT),
                    java.lang.foreign.Linker.Option.captureCallState("errno"));

    private FileDescriptors() {}

    /**
     * Waits until {@code fd} is readable.
     *
     * @param timeoutMillis the longest wait; negative waits forever
     * @return true when readable, false on timeout
     */
    public static boolean awaitReadable(int fd, int timeoutMillis) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pollfd = arena.allocate(Pollfd.LAYOUT);
            pollfd.set(ValueLayout.JAVA_INT, Pollfd.FD, fd);
            pollfd.set(ValueLayout.JAVA_SHORT, Pollfd.EVENTS, POLLIN);
            MemorySegment capture = NativeLibrary.allocateErrnoCapture(arena);
            while (true) {
                int rc = (int) POLL.invokeExact(capture, pollfd, 1L, timeoutMillis);
                if (rc > 0) {
                    return true;
                }
                if (rc == 0) {
                    return false;
                }
                int errno = NativeLibrary.errno(capture);
                if (errno != Errno.EINTR.value()) {
                    throw new VerbsException("poll", errno, "fd=" + fd + ", timeout_ms=" + timeoutMillis);
                }
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("poll downcall failed: fd=" + fd, t);
        }
    }
}
