package io.isthmus.broker.security;

import java.util.function.Supplier;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * A PLAINTEXT or SSL connection: no SASL exchange, the principal fixed when the connection opened. A SaslHandshake or
 * SaslAuthenticate here is answered ILLEGAL_SASL_STATE, as Kafka answers it on a listener without SASL.
 */
public final class Unauthenticated implements ConnectionAuthenticator {
    private final Supplier<KafkaPrincipal> principal;

    /** @param principal who the connection is: fixed, or read when asked (a client certificate, after the handshake) */
    public Unauthenticated(final Supplier<KafkaPrincipal> principal) {
        this.principal = principal;
    }

    @Override
    public boolean isComplete() {
        return true;
    }

    @Override
    public KafkaPrincipal principal() {
        return principal.get();
    }

    @Override
    public ApiMessage handle(final AbstractRequest request) {
        final String message = "this listener does not use SASL";
        if (request instanceof SaslHandshakeRequest) {
            return new SaslHandshakeResponseData().setErrorCode(Errors.ILLEGAL_SASL_STATE.code());
        }
        return new SaslAuthenticateResponseData()
                .setErrorCode(Errors.ILLEGAL_SASL_STATE.code())
                .setErrorMessage(message);
    }

    @Override
    public boolean failed() {
        return false;
    }

    @Override
    public void close() {}
}
