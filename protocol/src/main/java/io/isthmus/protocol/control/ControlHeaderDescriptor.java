package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Frame and header layouts of control requests and responses. A control request is framed exactly like a Kafka request
 * (int32 size prefix, then Kafka's request header v2), so it travels on the same TCP connection and through the same
 * frame decoder; the broker recognises it by the API key before handing the frame to Kafka's parser.
 *
 * <pre>
 *   request header (Kafka request header v2)            response header (Kafka response header v0)
 *   0        2            4                8            0                4
 *   +--------+------------+----------------+---------   +----------------+------
 *   | apiKey | apiVersion | correlationId  | clientId    | correlationId  | body
 *   | int16  | int16      | int32          | int16 len + +----------------+------
 *   +--------+------------+----------------+ UTF-8,
 *   | tagged fields: unsigned varint count | -1 = null
 *   | (0 when written by isthmus), then    |
 *   | that many (tag, size, bytes)         |
 *   +--------------------------------------+ body
 * </pre>
 */
public final class ControlHeaderDescriptor {
    public static final int API_KEY_OFFSET = 0;
    public static final int API_VERSION_OFFSET = 2;
    public static final int CORRELATION_ID_OFFSET = 4;
    public static final int CLIENT_ID_OFFSET = 8;
    /** Bytes of the response header. */
    public static final int RESPONSE_HEADER_LENGTH = 4;
    /** Bytes of the size prefix of every frame. */
    public static final int SIZE_PREFIX_LENGTH = 4;

    private ControlHeaderDescriptor() {}

    /** Reads an unsigned varint at {@code offset}, ending before {@code end}: returns {@code value << 32 | bytesRead}. */
    static long readUnsignedVarint(final MemorySegment segment, final long offset, final long end) {
        int value = 0;
        int shift = 0;
        long position = offset;
        while (true) {
            if (shift > 28) {
                throw new IllegalArgumentException("varint longer than 5 bytes: offset=" + offset);
            }
            if (position >= end) {
                throw new IllegalArgumentException("truncated varint: offset=" + offset + " end=" + end);
            }
            final byte b = segment.get(ValueLayout.JAVA_BYTE, position++);
            value |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return ((long) value << 32) | (position - offset);
            }
            shift += 7;
        }
    }
}
