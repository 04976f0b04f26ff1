package io.isthmus.broker.network;

import java.util.List;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A response body, plus what must be released once it has been written (leases on log segments whose
 * bytes are sent from the file).
 */
public record Response(ApiMessage body, List<AutoCloseable> leases) {
    /** No bytes go back: the request's API has no response in this case (produce with acks=0). */
    public static final Response NONE = new Response(null, List.of());

    public static Response of(final ApiMessage body) {
        return new Response(body, List.of());
    }

    public boolean isNone() {
        return body == null;
    }
}
