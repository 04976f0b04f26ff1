package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;

/**
 * Whole control frames, size prefix included, as they go on the TCP connection: {@code size | header | body}. See
 * {@link ControlHeaderDescriptor}.
 */
public final class ControlFrame {
    private ControlFrame() {}

    /** A request frame. */
    public static byte[] request(
            final short apiKey, final int correlationId, final String clientId, final ControlMessage body) {
        final ControlRequestHeader header =
                ControlRequestHeader.of(apiKey, ControlApiKeys.VERSION, correlationId, clientId);
        final int size = header.encodedLength() + body.encodedLength();
        final byte[] frame = new byte[ControlHeaderDescriptor.SIZE_PREFIX_LENGTH + size];
        final MemorySegment segment = MemorySegment.ofArray(frame);
        segment.set(ControlCodec.INT32, 0, size);
        final int headerLength = header.encode(segment, ControlHeaderDescriptor.SIZE_PREFIX_LENGTH);
        body.encode(segment, ControlHeaderDescriptor.SIZE_PREFIX_LENGTH + headerLength);
        return frame;
    }

    /** A response frame. */
    public static byte[] response(final int correlationId, final ControlMessage body) {
        final int size = ControlHeaderDescriptor.RESPONSE_HEADER_LENGTH + body.encodedLength();
        final byte[] frame = new byte[ControlHeaderDescriptor.SIZE_PREFIX_LENGTH + size];
        final MemorySegment segment = MemorySegment.ofArray(frame);
        segment.set(ControlCodec.INT32, 0, size);
        segment.set(ControlCodec.INT32, ControlHeaderDescriptor.SIZE_PREFIX_LENGTH, correlationId);
        body.encode(
                segment, ControlHeaderDescriptor.SIZE_PREFIX_LENGTH + ControlHeaderDescriptor.RESPONSE_HEADER_LENGTH);
        return frame;
    }

    /** The correlation id of a response frame read without its size prefix. */
    public static int responseCorrelationId(final MemorySegment responseWithoutSize) {
        return responseWithoutSize.get(ControlCodec.INT32, 0);
    }
}
