package io.isthmus.ffi.verbs;

import io.isthmus.ffi.NativeLibrary;
import io.isthmus.ffi.VerbsException;
import java.lang.foreign.MemorySegment;

/**
 * Turning verb results into exceptions. Kept apart from {@link Ibv} so that the data path and
 * tests over fake contexts never trigger loading libibverbs.
 */
final class Calls {
    private Calls() {}

    /** Returns {@code pointer} or throws naming the verb and errno when it is NULL. */
    static MemorySegment checkPointer(MemorySegment pointer, MemorySegment capture, String verb, String context) {
        if (pointer.equals(MemorySegment.NULL)) {
            throw new VerbsException(verb, NativeLibrary.errno(capture), context);
        }
        return pointer;
    }

    /** Throws when a verb that returns an error code directly returned non-zero. */
    static void checkCode(int rc, String verb, String context) {
        if (rc != 0) {
            throw new VerbsException(verb, Math.abs(rc), context);
        }
    }
}
