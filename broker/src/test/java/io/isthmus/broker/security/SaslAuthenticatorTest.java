package io.isthmus.broker.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The SASL exchange's states: the way in, and each way it fails (the connection closes after the answer). */
class SaslAuthenticatorTest {
    @TempDir
    Path dir;

    private SaslAuthenticator authenticator;

    @BeforeEach
    void setUp() {
        final SaslMechanisms mechanisms = new SaslMechanisms(
                "SASL_PLAINTEXT",
                List.of("SCRAM-SHA-256", "PLAIN"),
                ScramCredentialStore.open(dir),
                Map.of(
                        "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                        "org.apache.kafka.common.security.plain.PlainLoginModule required user_bob=\"bob-secret\";"));
        authenticator = new SaslAuthenticator(mechanisms);
    }

    private SaslHandshakeResponseData handshake(final String mechanism) {
        return (SaslHandshakeResponseData) authenticator.handle(
                new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism(mechanism))
                        .build(ApiKeys.SASL_HANDSHAKE.latestVersion()));
    }

    private SaslAuthenticateResponseData authenticate(final String token) {
        return (SaslAuthenticateResponseData) authenticator.handle(new SaslAuthenticateRequest.Builder(
                        new SaslAuthenticateRequestData().setAuthBytes(token.getBytes(StandardCharsets.UTF_8)))
                .build(ApiKeys.SASL_AUTHENTICATE.latestVersion()));
    }

    @Test
    void plainWithTheRightPasswordAuthenticatesAsTheUser() {
        assertThat(authenticator.isComplete()).isFalse();
        assertThat(authenticator.servesBeforeAuthentication(ApiKeys.METADATA)).isFalse();
        assertThat(handshake("PLAIN").errorCode()).isEqualTo(Errors.NONE.code());

        assertThat(authenticate("\u0000bob\u0000bob-secret").errorCode()).isEqualTo(Errors.NONE.code());

        assertThat(authenticator.isComplete()).isTrue();
        assertThat(authenticator.principal()).isEqualTo(new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "bob"));
        assertThat(handshake("PLAIN").errorCode())
                .as("no re-authentication")
                .isEqualTo(Errors.ILLEGAL_SASL_STATE.code());
    }

    @Test
    void aWrongPasswordFailsTheExchange() {
        handshake("PLAIN");

        final SaslAuthenticateResponseData answer = authenticate("\u0000bob\u0000guess");

        assertThat(answer.errorCode()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED.code());
        assertThat(answer.errorMessage()).contains("invalid credentials");
        assertThat(authenticator.failed()).isTrue();
        assertThat(authenticator.isComplete()).isFalse();
        assertThat(authenticator.principal()).isEqualTo(KafkaPrincipal.ANONYMOUS);
    }

    @Test
    void aMechanismNotOfferedIsRefusedWithTheOnesThatAre() {
        final SaslHandshakeResponseData answer = handshake("GSSAPI");

        assertThat(answer.errorCode()).isEqualTo(Errors.UNSUPPORTED_SASL_MECHANISM.code());
        assertThat(answer.mechanisms()).containsExactly("SCRAM-SHA-256", "PLAIN");
        assertThat(authenticator.failed()).isTrue();
    }

    @Test
    void tokensBeforeAHandshakeAreIllegal() {
        assertThat(authenticate("\u0000bob\u0000bob-secret").errorCode()).isEqualTo(Errors.ILLEGAL_SASL_STATE.code());
        assertThat(authenticator.failed()).isTrue();
    }
}
