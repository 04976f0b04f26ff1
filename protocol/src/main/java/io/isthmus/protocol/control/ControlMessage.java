package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;

/** The body of a control request or response: knows its encoded length and writes itself. */
public interface ControlMessage {
    /** Bytes {@link #encode} writes. */
    int encodedLength();

    /** Writes the body at {@code offset}; returns {@link #encodedLength()}. */
    int encode(MemorySegment segment, long offset);
}
