package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;

/**
 * RELEASE_ACCESS response body.
 *
 * <pre>
 *   0           2
 *   +-----------+
 *   | errorCode |
 *   | int16     |
 *   +-----------+
 * </pre>
 */
public record ReleaseAccessResponse(short errorCode) implements ControlMessage {
    public static final int ERROR_CODE_OFFSET = 0;
    public static final int LENGTH = 2;

    @Override
    public int encodedLength() {
        return LENGTH;
    }

    @Override
    public int encode(final MemorySegment segment, final long offset) {
        segment.set(ControlCodec.INT16, offset + ERROR_CODE_OFFSET, errorCode);
        return LENGTH;
    }

    public static ReleaseAccessResponse decode(final MemorySegment segment, final long offset) {
        ControlCodec.requireLength(segment, offset, LENGTH, "ReleaseAccess response");
        return new ReleaseAccessResponse(segment.get(ControlCodec.INT16, offset + ERROR_CODE_OFFSET));
    }
}
