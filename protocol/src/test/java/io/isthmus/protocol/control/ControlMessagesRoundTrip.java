package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;
import java.util.function.BiFunction;

/** Encodes a control message at an odd offset and decodes it back, checking the encoded length on the way. */
final class ControlMessagesRoundTrip {
    private ControlMessagesRoundTrip() {}

    static <T extends ControlMessage> T roundTrip(final T message, final BiFunction<MemorySegment, Long, T> decoder) {
        final MemorySegment segment = MemorySegment.ofArray(new byte[message.encodedLength() + 5]);
        final int written = message.encode(segment, 5);
        if (written != message.encodedLength()) {
            throw new AssertionError("encode wrote " + written + " bytes, encodedLength=" + message.encodedLength());
        }
        return decoder.apply(segment, 5L);
    }
}
