package io.isthmus.client.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SecuritySettingsTest {
    private static final String SCRAM =
            "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"alice\" password=\"s3 \\\"q\\\";x\";";

    @Test
    void plaintextIsTheDefaultAndIgnoresSaslSettings() {
        assertThat(SecuritySettings.of(Map.of())).isEqualTo(SecuritySettings.PLAINTEXT);
        assertThat(SecuritySettings.of(Map.of("security.protocol", "plaintext", "sasl.mechanism", "PLAIN"))
                        .sasl())
                .isFalse();
    }

    @Test
    void saslPlaintextReadsTheMechanismAndTheJaasEntryAsKafkaWritesIt() {
        final SecuritySettings settings = SecuritySettings.of(Map.of(
                "security.protocol", "SASL_PLAINTEXT",
                "sasl.mechanism", "scram-sha-512",
                "sasl.jaas.config", SCRAM,
                "bootstrap.servers", "ignored:9092"));
        assertThat(settings.mechanism()).isEqualTo("SCRAM-SHA-512");
        assertThat(settings.username()).isEqualTo("alice");
        assertThat(settings.password()).isEqualTo("s3 \"q\";x");
        assertThat(settings.toString()).doesNotContain("s3");
    }

    @Test
    void bareValuesAndOtherFlagsParse() {
        assertThat(SecuritySettings.parseJaas(
                        "org.apache.kafka.common.security.plain.PlainLoginModule optional username=bob"
                                + "   password=\"x\" extra=1 ;"))
                .containsEntry("username", "bob")
                .containsEntry("password", "x")
                .containsEntry("extra", "1");
    }

    @Test
    void malformedOrUnsupportedSettingsAreRefusedByName() {
        assertThatThrownBy(() ->
                        SecuritySettings.of(Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.jaas.config", SCRAM)))
                .hasMessageContaining("sasl.mechanism")
                .hasMessageContaining("GSSAPI");
        assertThatThrownBy(() ->
                        SecuritySettings.of(Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN")))
                .hasMessageContaining("sasl.jaas.config");
        assertThatThrownBy(() -> SecuritySettings.of(Map.of("security.protocol", "SSL")))
                .hasMessageContaining("no TLS");
        assertThatThrownBy(() -> SecuritySettings.parseJaas("com.example.Login required username=\"a\";"))
                .hasMessageContaining("com.example.Login");
        assertThatThrownBy(() -> SecuritySettings.parseJaas(
                        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"a;"))
                .hasMessageContaining("unterminated");
        assertThatThrownBy(() -> SecuritySettings.parseJaas(
                        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"a\""))
                .hasMessageContaining("';'");
        assertThatThrownBy(() -> SecuritySettings.of(Map.of(
                        "security.protocol",
                        "SASL_PLAINTEXT",
                        "sasl.mechanism",
                        "PLAIN",
                        "sasl.jaas.config",
                        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"a\";")))
                .hasMessageContaining("password");
    }
}
