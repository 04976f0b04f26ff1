package io.isthmus.client.network;

import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * One response frame, still in its {@link ReceiveBuffer}: the body starts at {@link #bodyOffset()}. Parse it with
 * {@link #parse()}; record fields of the parsed message are views of the receive buffer, so the buffer must stay
 * unreleased while they are used. Fetch responses are better read in place with {@link FetchResponseReader}, which
 * parses nothing into objects. {@link #release()} gives the buffer back.
 */
public final class Response {
    private final ApiKeys apiKey;
    private final short version;
    private final int correlationId;
    private final ReceiveBuffer buffer;
    private final int bodyOffset;

    Response(
            final ApiKeys apiKey,
            final short version,
            final int correlationId,
            final ReceiveBuffer buffer,
            final int bodyOffset) {
        this.apiKey = apiKey;
        this.version = version;
        this.correlationId = correlationId;
        this.buffer = buffer;
        this.bodyOffset = bodyOffset;
    }

    public ApiKeys apiKey() {
        return apiKey;
    }

    public short version() {
        return version;
    }

    public int correlationId() {
        return correlationId;
    }

    public ReceiveBuffer buffer() {
        return buffer;
    }

    public int bodyOffset() {
        return bodyOffset;
    }

    /**
     * Parses the body with kafka-clients' generated message class for this API and version. Byte and record fields of
     * the result are views of the receive buffer (no copy).
     */
    public ApiMessage parse() {
        final ByteBuffer body = buffer.frame().position(bodyOffset);
        return AbstractResponse.parseResponse(apiKey, new ByteBufferAccessor(body), version)
                .data();
    }

    public void release() {
        buffer.release();
    }
}
