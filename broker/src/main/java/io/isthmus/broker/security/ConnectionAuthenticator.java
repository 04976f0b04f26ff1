package io.isthmus.broker.security;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Who is on the other end of one connection, and the SASL exchange that says so. One per connection, confined to its
 * event loop.
 *
 * <p>On a PLAINTEXT or SSL listener the connection is authenticated from the start (as {@link KafkaPrincipal#ANONYMOUS},
 * or the client certificate's subject once TLS has one); on a SASL listener only ApiVersions, SaslHandshake and
 * SaslAuthenticate may come before the exchange completes, as in Kafka.
 */
public interface ConnectionAuthenticator {
    /** Whether requests other than the SASL exchange may be served. */
    boolean isComplete();

    /** The authenticated principal; {@link KafkaPrincipal#ANONYMOUS} until (and unless) the exchange names one. */
    KafkaPrincipal principal();

    /** Whether {@code apiKey} may be served before authentication completes. */
    default boolean servesBeforeAuthentication(final ApiKeys apiKey) {
        return apiKey == ApiKeys.API_VERSIONS
                || apiKey == ApiKeys.SASL_HANDSHAKE
                || apiKey == ApiKeys.SASL_AUTHENTICATE;
    }

    /** Answers a SaslHandshake or SaslAuthenticate request. */
    ApiMessage handle(AbstractRequest request);

    /** Whether the exchange failed: the answer just given is the last, and the connection closes after it. */
    boolean failed();

    /** Frees what the exchange holds (the SASL server); the connection is gone. */
    void close();
}
