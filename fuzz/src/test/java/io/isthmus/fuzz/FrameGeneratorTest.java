package io.isthmus.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.protocol.control.ControlApiKeys;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

/**
 * The generator's frames are what it says: without lies or mutations, every frame is a request kafka-clients' own
 * message classes read whole, for every API, so the fuzz reaches the broker's handlers and not only its parser; with them, frames
 * are damaged.
 */
class FrameGeneratorTest {
    @Test
    void unmutatedFramesAreValidRequestsOfEveryApi() {
        final FrameGenerator generator = new FrameGenerator(42, 0, 0);
        final Set<ApiKeys> seen = EnumSet.noneOf(ApiKeys.class);
        final List<String> failures = new ArrayList<>();
        for (int i = 0; i < 50_000; i++) {
            final ByteBuffer frame = ByteBuffer.wrap(generator.next().bytes());
            assertThat(frame.getInt()).isEqualTo(frame.remaining());
            if (ControlApiKeys.isControlApiKey(frame.getShort(frame.position()))) {
                continue;
            }
            try {
                // The message classes' own reader: the structure only, none of the request classes' semantic checks
                // (unknown ACL enums and the like), which the broker answers as it must.
                final RequestHeader header = RequestHeader.parse(frame);
                header.apiKey().messageType.newRequest().read(new ByteBufferAccessor(frame), header.apiVersion());
                if (frame.hasRemaining()) {
                    throw new IllegalStateException(frame.remaining() + " bytes left after " + header.apiKey());
                }
                seen.add(header.apiKey());
            } catch (final RuntimeException e) {
                if (failures.size() < 5) {
                    failures.add(e.toString());
                }
            }
        }
        assertThat(failures).isEmpty();
        assertThat(seen).isEqualTo(EnumSet.copyOf(generator.apis()));
    }

    @Test
    void mutatedFramesAreOftenNotParseable() {
        final FrameGenerator generator = new FrameGenerator(7, 0.05, 0.5);
        int unparseable = 0;
        for (int i = 0; i < 10_000; i++) {
            final ByteBuffer frame = ByteBuffer.wrap(generator.next().bytes());
            final int size = frame.getInt();
            try {
                if (size != frame.remaining()) {
                    throw new IllegalArgumentException("size prefix " + size + " for " + frame.remaining());
                }
                final RequestHeader header = RequestHeader.parse(frame);
                AbstractRequest.parseRequest(header.apiKey(), header.apiVersion(), new ByteBufferAccessor(frame));
            } catch (final RuntimeException e) {
                unparseable++;
            }
        }
        assertThat(unparseable).isBetween(2_000, 9_000);
    }
}
