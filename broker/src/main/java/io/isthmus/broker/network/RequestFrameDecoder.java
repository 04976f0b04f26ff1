package io.isthmus.broker.network;

import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

/**
 * Splits the byte stream into Kafka request frames: a 4-byte big-endian size, then that many bytes.
 *
 * <p>The size is checked before any of the frame is buffered ({@code failFast}), so a peer announcing a
 * huge or negative frame costs the broker nothing but the connection, which {@link KafkaConnectionHandler}
 * closes with the reason logged.
 */
final class RequestFrameDecoder extends LengthFieldBasedFrameDecoder {
    private static final int SIZE_FIELD_LENGTH = 4;

    RequestFrameDecoder(final int maxFrameBytes) {
        super(maxFrameBytes, 0, SIZE_FIELD_LENGTH, 0, SIZE_FIELD_LENGTH, true);
    }
}
