package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A decoded control request header; see {@link ControlHeaderDescriptor} for the layout.
 *
 * @param bodyOffset where the body starts, relative to the start of the header (set by {@link #decode})
 */
public record ControlRequestHeader(short apiKey, short apiVersion, int correlationId, String clientId, int bodyOffset) {

    /** A header to encode. */
    public static ControlRequestHeader of(
            final short apiKey, final short apiVersion, final int correlationId, final String clientId) {
        return new ControlRequestHeader(
                apiKey,
                apiVersion,
                correlationId,
                clientId,
                ControlHeaderDescriptor.CLIENT_ID_OFFSET + ControlCodec.stringLength(clientId) + 1);
    }

    /** Bytes the header takes (no tagged fields). */
    public int encodedLength() {
        return ControlHeaderDescriptor.CLIENT_ID_OFFSET + ControlCodec.stringLength(clientId) + 1;
    }

    /** Writes the header at {@code offset}; returns its length. */
    public int encode(final MemorySegment segment, final long offset) {
        segment.set(ControlCodec.INT16, offset + ControlHeaderDescriptor.API_KEY_OFFSET, apiKey);
        segment.set(ControlCodec.INT16, offset + ControlHeaderDescriptor.API_VERSION_OFFSET, apiVersion);
        segment.set(ControlCodec.INT32, offset + ControlHeaderDescriptor.CORRELATION_ID_OFFSET, correlationId);
        final int clientIdLength =
                ControlCodec.putString(segment, offset + ControlHeaderDescriptor.CLIENT_ID_OFFSET, clientId);
        segment.set(
                ValueLayout.JAVA_BYTE, offset + ControlHeaderDescriptor.CLIENT_ID_OFFSET + clientIdLength, (byte) 0);
        return ControlHeaderDescriptor.CLIENT_ID_OFFSET + clientIdLength + 1;
    }

    /**
     * Reads the header at {@code offset} of a request frame (after its size prefix), skipping any tagged fields.
     *
     * @throws IllegalArgumentException if the header is truncated or malformed
     */
    public static ControlRequestHeader decode(final MemorySegment frame, final long offset) {
        ControlCodec.requireLength(frame, offset, ControlHeaderDescriptor.CLIENT_ID_OFFSET + 2, "request header");
        final short apiKey = frame.get(ControlCodec.INT16, offset + ControlHeaderDescriptor.API_KEY_OFFSET);
        final short apiVersion = frame.get(ControlCodec.INT16, offset + ControlHeaderDescriptor.API_VERSION_OFFSET);
        final int correlationId = frame.get(ControlCodec.INT32, offset + ControlHeaderDescriptor.CORRELATION_ID_OFFSET);
        final String clientId = ControlCodec.getString(frame, offset + ControlHeaderDescriptor.CLIENT_ID_OFFSET);
        long position = offset + ControlHeaderDescriptor.CLIENT_ID_OFFSET + ControlCodec.stringLength(clientId);
        final long count = ControlHeaderDescriptor.readUnsignedVarint(frame, position);
        position += (int) count;
        for (int i = 0; i < (int) (count >>> 32); i++) {
            position += (int) ControlHeaderDescriptor.readUnsignedVarint(frame, position); // tag
            final long size = ControlHeaderDescriptor.readUnsignedVarint(frame, position);
            position += (int) size + (size >>> 32);
            ControlCodec.requireLength(frame, position, 0, "tagged field");
        }
        return new ControlRequestHeader(apiKey, apiVersion, correlationId, clientId, (int) (position - offset));
    }
}
