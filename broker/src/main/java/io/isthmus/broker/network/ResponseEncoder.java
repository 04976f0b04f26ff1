package io.isthmus.broker.network;

import io.netty.buffer.ByteBufAllocator;
import java.util.List;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Frames a response as Kafka does: a 4-byte size, the response header in the version the API dictates,
 * then the body, encoded by kafka-clients' generated message classes.
 */
final class ResponseEncoder {
    private ResponseEncoder() {}

    /** @return the parts to write in order ({@code ByteBuf}s and file regions); the caller owns them */
    static List<Object> encode(final ByteBufAllocator allocator, final RequestHeader request, final ApiMessage body) {
        final ApiKeys apiKey = request.apiKey();
        final short version = request.apiVersion();
        final short headerVersion = apiKey.responseHeaderVersion(version);
        final ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(request.correlationId());
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final int size = header.size(cache, headerVersion) + body.size(cache, version);

        final SplicingWritable writable = new SplicingWritable(allocator, Integer.BYTES + size);
        writable.writeInt(size);
        header.write(writable, cache, headerVersion);
        body.write(writable, cache, version);
        return writable.finish();
    }
}
