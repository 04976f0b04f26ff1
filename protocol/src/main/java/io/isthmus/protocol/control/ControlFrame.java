package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;

/**
 * Whole control frames as they go on the TCP connection, {@code size | header | body} (see {@link
 * ControlHeaderDescriptor}), laid out in buffers their owners reuse: the writer wraps a {@link ControlRequestHeader}
 * at {@link #REQUEST_HEADER_OFFSET} and the body's flyweight right after the header (or a response body at {@link
 * #RESPONSE_BODY_OFFSET}), then puts the size prefix. Nothing here allocates.
 */
public final class ControlFrame {
    /** Where a request's header starts in its frame. */
    public static final int REQUEST_HEADER_OFFSET = ControlHeaderDescriptor.SIZE_PREFIX_LENGTH;
    /** Where a response's correlation id lies in its frame. */
    public static final int RESPONSE_CORRELATION_ID_OFFSET = ControlHeaderDescriptor.SIZE_PREFIX_LENGTH;
    /** Where a response's body starts in its frame. */
    public static final int RESPONSE_BODY_OFFSET =
            ControlHeaderDescriptor.SIZE_PREFIX_LENGTH + ControlHeaderDescriptor.RESPONSE_HEADER_LENGTH;

    private ControlFrame() {}

    /** Writes the size prefix of the frame at {@code offset} that takes {@code frameLength} bytes, prefix included. */
    public static void putSize(final MemorySegment frame, final long offset, final int frameLength) {
        frame.set(ControlCodec.INT32, offset, frameLength - ControlHeaderDescriptor.SIZE_PREFIX_LENGTH);
    }

    /** The size prefix of the frame at {@code offset}: the bytes that follow it. */
    public static int size(final MemorySegment frame, final long offset) {
        return frame.get(ControlCodec.INT32, offset);
    }

    /**
     * Writes the size prefix and the header of the response frame at {@code offset} whose body of {@code bodyLength}
     * bytes goes at {@link #RESPONSE_BODY_OFFSET}; returns the frame's length.
     */
    public static int putResponseHeader(
            final MemorySegment frame, final long offset, final int correlationId, final int bodyLength) {
        final int frameLength = RESPONSE_BODY_OFFSET + bodyLength;
        putSize(frame, offset, frameLength);
        frame.set(ControlCodec.INT32, offset + RESPONSE_CORRELATION_ID_OFFSET, correlationId);
        return frameLength;
    }

    /** The correlation id of the response frame at {@code offset}. */
    public static int responseCorrelationId(final MemorySegment frame, final long offset) {
        return frame.get(ControlCodec.INT32, offset + RESPONSE_CORRELATION_ID_OFFSET);
    }
}
