package io.isthmus.broker.security;

import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SASL exchange of one connection on a SASL_PLAINTEXT or SASL_SSL listener, in Kafka's framing (KIP-152):
 * SaslHandshake names the mechanism, then SaslAuthenticate requests carry its tokens until the server is done. The
 * mechanism itself is kafka-clients' server ({@link SaslMechanisms}).
 *
 * <pre>
 *   HANDSHAKE --SaslHandshake(enabled mechanism)--> AUTHENTICATE --SaslAuthenticate*--> COMPLETE
 *       |                                                |
 *       +--unknown mechanism--> FAILED <--bad credentials-+      (the answer is sent, then the connection closes)
 * </pre>
 *
 * Re-authentication (KIP-368) is not offered: a handshake after completion is ILLEGAL_SASL_STATE.
 */
public final class SaslAuthenticator implements ConnectionAuthenticator {
    private static final Logger LOG = LoggerFactory.getLogger(SaslAuthenticator.class);

    private enum State {
        HANDSHAKE,
        AUTHENTICATE,
        COMPLETE,
        FAILED
    }

    private final SaslMechanisms mechanisms;
    private State state = State.HANDSHAKE;
    private SaslServer server;
    private KafkaPrincipal principal = KafkaPrincipal.ANONYMOUS;

    public SaslAuthenticator(final SaslMechanisms mechanisms) {
        this.mechanisms = mechanisms;
    }

    @Override
    public boolean isComplete() {
        return state == State.COMPLETE;
    }

    @Override
    public KafkaPrincipal principal() {
        return principal;
    }

    @Override
    public boolean failed() {
        return state == State.FAILED;
    }

    @Override
    public ApiMessage handle(final AbstractRequest request) {
        return switch (request) {
            case SaslHandshakeRequest handshake -> handshake(handshake.data().mechanism());
            case SaslAuthenticateRequest authenticate ->
                authenticate(authenticate.data().authBytes());
            default -> throw new IllegalArgumentException("not a SASL request: " + request.apiKey());
        };
    }

    private SaslHandshakeResponseData handshake(final String mechanism) {
        final SaslHandshakeResponseData response = new SaslHandshakeResponseData().setMechanisms(mechanisms.enabled());
        if (state != State.HANDSHAKE) {
            state = State.FAILED;
            return response.setErrorCode(Errors.ILLEGAL_SASL_STATE.code());
        }
        if (!mechanisms.enabled().contains(mechanism)) {
            state = State.FAILED;
            return response.setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code());
        }
        server = mechanisms.newServer(mechanism);
        state = State.AUTHENTICATE;
        return response.setErrorCode(Errors.NONE.code());
    }

    private SaslAuthenticateResponseData authenticate(final byte[] token) {
        final SaslAuthenticateResponseData response = new SaslAuthenticateResponseData().setAuthBytes(new byte[0]);
        if (state != State.AUTHENTICATE) {
            state = State.FAILED;
            return response.setErrorCode(Errors.ILLEGAL_SASL_STATE.code())
                    .setErrorMessage("SaslAuthenticate without a SaslHandshake first, or after authentication");
        }
        try {
            final byte[] challenge = server.evaluateResponse(token);
            if (server.isComplete()) {
                principal = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, server.getAuthorizationID());
                state = State.COMPLETE;
                disposeServer();
            }
            return response.setErrorCode(Errors.NONE.code()).setAuthBytes(challenge == null ? new byte[0] : challenge);
        } catch (final SaslException | RuntimeException e) {
            // kafka-clients' servers throw SaslAuthenticationException (a RuntimeException) for bad credentials.
            state = State.FAILED;
            LOG.debug("SASL {} authentication failed: {}", server.getMechanismName(), e.toString());
            final String message = "Authentication failed during authentication due to invalid credentials with SASL"
                    + " mechanism " + server.getMechanismName();
            disposeServer();
            return response.setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code())
                    .setErrorMessage(message);
        }
    }

    private void disposeServer() {
        if (server != null) {
            try {
                server.dispose();
            } catch (final SaslException e) {
                LOG.debug("disposing a SASL server failed", e);
            }
            server = null;
        }
    }

    @Override
    public void close() {
        disposeServer();
    }
}
