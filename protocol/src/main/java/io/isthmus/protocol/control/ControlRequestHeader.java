package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;

/**
 * A control request header (Kafka's request header v2) read and written in place; see {@link ControlHeaderDescriptor}
 * for the layout. Reading skips any tagged fields a Kafka encoder wrote and records where the body starts; writing puts
 * no tagged fields.
 */
public final class ControlRequestHeader extends ControlFlyweight<ControlRequestHeader> {
    private int bodyOffset;

    public ControlRequestHeader() {
        super("request header", ControlHeaderDescriptor.CLIENT_ID_OFFSET, "clientId");
    }

    /**
     * Views the header at {@code offset} of a request frame (after its size prefix) of {@code length} bytes, skipping
     * its tagged fields.
     *
     * @throws IllegalArgumentException if the header is truncated or malformed
     */
    @Override
    public ControlRequestHeader wrap(final MemorySegment segment, final long offset, final long length) {
        super.wrap(segment, offset, length);
        final long end = offset + length;
        long position = offset + super.encodedLength();
        final long count = ControlHeaderDescriptor.readUnsignedVarint(segment, position, end);
        position += (int) count;
        for (int i = 0; i < (int) (count >>> 32); i++) {
            position += (int) ControlHeaderDescriptor.readUnsignedVarint(segment, position, end); // tag
            final long size = ControlHeaderDescriptor.readUnsignedVarint(segment, position, end);
            position += (int) size + (size >>> 32);
            if (position > end) {
                throw new IllegalArgumentException("truncated request header: a tagged field runs past the message:"
                        + " field=" + i + " end=" + (position - offset) + " length=" + length);
            }
        }
        bodyOffset = (int) (position - offset);
        return this;
    }

    /** Views room for a header at {@code offset}: zeroes it, with a null client id and no tagged fields. */
    @Override
    public ControlRequestHeader wrapForEncode(final MemorySegment segment, final long offset) {
        super.wrapForEncode(segment, offset);
        return clientId(null);
    }

    public short apiKey() {
        return getInt16(ControlHeaderDescriptor.API_KEY_OFFSET);
    }

    public ControlRequestHeader apiKey(final short apiKey) {
        putInt16(ControlHeaderDescriptor.API_KEY_OFFSET, apiKey);
        return this;
    }

    public short apiVersion() {
        return getInt16(ControlHeaderDescriptor.API_VERSION_OFFSET);
    }

    public ControlRequestHeader apiVersion(final short apiVersion) {
        putInt16(ControlHeaderDescriptor.API_VERSION_OFFSET, apiVersion);
        return this;
    }

    public int correlationId() {
        return getInt32(ControlHeaderDescriptor.CORRELATION_ID_OFFSET);
    }

    public ControlRequestHeader correlationId(final int correlationId) {
        putInt32(ControlHeaderDescriptor.CORRELATION_ID_OFFSET, correlationId);
        return this;
    }

    public String clientId() {
        return getString(ControlHeaderDescriptor.CLIENT_ID_OFFSET);
    }

    /** Sets the client id and, after it, an empty tagged-field section. */
    public ControlRequestHeader clientId(final String clientId) {
        final int taggedFields = ControlHeaderDescriptor.CLIENT_ID_OFFSET + ControlCodec.stringLength(clientId);
        if (taggedFields + 1 > limit()) {
            throw new IllegalArgumentException("no room for the request header: clientIdLength="
                    + ControlCodec.stringLength(clientId) + " capacity=" + limit());
        }
        putString(ControlHeaderDescriptor.CLIENT_ID_OFFSET, clientId);
        putInt8(taggedFields, (byte) 0);
        bodyOffset = taggedFields + 1;
        return this;
    }

    /** Where the body starts, relative to the start of the header: the header's length, tagged fields included. */
    public int bodyOffset() {
        return bodyOffset;
    }

    @Override
    public int encodedLength() {
        return bodyOffset;
    }
}
