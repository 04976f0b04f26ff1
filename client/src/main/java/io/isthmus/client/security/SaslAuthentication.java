package io.isthmus.client.security;

import java.util.Map;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;
import org.apache.kafka.common.errors.IllegalSaslStateException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.UnsupportedSaslMechanismException;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.scram.ScramExtensionsCallback;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramSaslClient;

/**
 * Kafka's SASL exchange from the client's side, on a connection that has sent nothing else but ApiVersions:
 * SaslHandshake (v1) names the mechanism, then SaslAuthenticate (v2) carries the tokens until the mechanism is
 * complete. PLAIN is the JDK's own client; SCRAM is kafka-clients' ({@link ScramSaslClient}, the one KafkaProducer
 * uses), so the proof a broker checks is exactly the one Kafka's clients send.
 */
public final class SaslAuthentication {
    private static final short HANDSHAKE_VERSION = 1;
    private static final short AUTHENTICATE_VERSION = 2;
    private static final byte[] EMPTY = new byte[0];

    /** One Kafka request and its parsed answer, on the connection being authenticated. */
    @FunctionalInterface
    public interface Exchange {
        ApiMessage request(ApiKeys apiKey, short version, ApiMessage body);
    }

    private SaslAuthentication() {}

    /**
     * Authenticates the connection {@code exchange} talks over as {@code settings} says; returns quietly for
     * PLAINTEXT.
     *
     * @throws UnsupportedSaslMechanismException if the broker does not offer the mechanism (its list included)
     * @throws SaslAuthenticationException if the broker refuses the credentials (its message included)
     */
    public static void authenticate(final SecuritySettings settings, final String host, final Exchange exchange) {
        if (!settings.sasl()) {
            return;
        }
        final SaslHandshakeResponseData handshake = (SaslHandshakeResponseData) exchange.request(
                ApiKeys.SASL_HANDSHAKE,
                HANDSHAKE_VERSION,
                new SaslHandshakeRequestData().setMechanism(settings.mechanism()));
        final Errors handshakeError = Errors.forCode(handshake.errorCode());
        if (handshakeError == Errors.UNSUPPORTED_SASL_MECHANISM) {
            throw new UnsupportedSaslMechanismException("the broker at " + host + " does not offer SASL mechanism "
                    + settings.mechanism() + "; it offers " + handshake.mechanisms());
        }
        if (handshakeError != Errors.NONE) {
            throw new IllegalSaslStateException("SaslHandshake failed at " + host + ": " + handshakeError);
        }
        final SaslClient client = client(settings, host);
        try {
            byte[] token = client.hasInitialResponse() ? client.evaluateChallenge(EMPTY) : EMPTY;
            while (true) {
                final SaslAuthenticateResponseData answer = (SaslAuthenticateResponseData) exchange.request(
                        ApiKeys.SASL_AUTHENTICATE,
                        AUTHENTICATE_VERSION,
                        new SaslAuthenticateRequestData().setAuthBytes(token == null ? EMPTY : token));
                if (answer.errorCode() != Errors.NONE.code()) {
                    throw new SaslAuthenticationException("authentication as " + settings.username() + " with "
                            + settings.mechanism() + " refused by " + host + ": "
                            + (answer.errorMessage() == null
                                    ? Errors.forCode(answer.errorCode()).message()
                                    : answer.errorMessage()));
                }
                if (client.isComplete()) {
                    return;
                }
                token = client.evaluateChallenge(answer.authBytes());
                if (client.isComplete() && (token == null || token.length == 0)) {
                    return; // the server's last message checked out (SCRAM's server signature)
                }
            }
        } catch (final SaslException e) {
            throw new SaslAuthenticationException(
                    "SASL " + settings.mechanism() + " failed with " + host + ": " + e.getMessage(), e);
        } finally {
            try {
                client.dispose();
            } catch (final SaslException ignored) {
                // Nothing held that outlives the exchange.
            }
        }
    }

    private static SaslClient client(final SecuritySettings settings, final String host) {
        final javax.security.auth.callback.CallbackHandler credentials = callbacks -> {
            for (final Callback callback : callbacks) {
                switch (callback) {
                    case NameCallback name -> name.setName(settings.username());
                    case PasswordCallback password ->
                        password.setPassword(settings.password().toCharArray());
                    case ScramExtensionsCallback ignored -> {
                        // No SCRAM extensions (delegation tokens are not used): the callback's default is none.
                    }
                    default -> throw new UnsupportedCallbackException(callback);
                }
            }
        };
        if (settings.mechanism().equals("PLAIN")) {
            try {
                final SaslClient plain =
                        Sasl.createSaslClient(new String[] {"PLAIN"}, null, "kafka", host, Map.of(), credentials);
                if (plain == null) {
                    throw new IllegalStateException("the JDK offers no SASL PLAIN client");
                }
                return plain;
            } catch (final SaslException e) {
                throw new SaslAuthenticationException("cannot create a SASL PLAIN client: " + e.getMessage(), e);
            }
        }
        final ScramMechanism mechanism = ScramMechanism.forMechanismName(settings.mechanism());
        try {
            return new ScramSaslClient(mechanism, credentials);
        } catch (final java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK lacks " + mechanism.hashAlgorithm(), e);
        }
    }
}
