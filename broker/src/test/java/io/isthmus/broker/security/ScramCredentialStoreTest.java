package io.isthmus.broker.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScramCredentialStoreTest {
    @TempDir
    Path dir;

    private static byte[] salted(final ScramMechanism mechanism, final String password, final byte[] salt)
            throws Exception {
        return new ScramFormatter(mechanism).saltedPassword(password, salt, 4096);
    }

    @Test
    void credentialsAreKeptAsKafkaKeepsThemAndSurviveAReopen() throws Exception {
        final byte[] salt = "some-salt".getBytes(StandardCharsets.UTF_8);
        final ScramCredentialStore store = ScramCredentialStore.open(dir);
        store.upsert(
                "alice smith",
                ScramMechanism.SCRAM_SHA_512,
                salt,
                salted(ScramMechanism.SCRAM_SHA_512, "pw", salt),
                4096);
        store.upsert(
                "bob", ScramMechanism.SCRAM_SHA_256, salt, salted(ScramMechanism.SCRAM_SHA_256, "pw2", salt), 4096);

        final ScramCredentialStore reopened = ScramCredentialStore.open(dir);
        final ScramCredential alice =
                reopened.cache().cache("SCRAM-SHA-512", ScramCredential.class).get("alice smith");
        final ScramCredential expected = new ScramFormatter(ScramMechanism.SCRAM_SHA_512)
                .generateCredential(salt, salted(ScramMechanism.SCRAM_SHA_512, "pw", salt), 4096);
        assertThat(alice.storedKey()).isEqualTo(expected.storedKey());
        assertThat(alice.serverKey()).isEqualTo(expected.serverKey());
        assertThat(reopened.describe("alice smith")).contains(Map.of(ScramMechanism.SCRAM_SHA_512, 4096));
        assertThat(Files.readString(dir.resolve(ScramCredentialStore.FILE_NAME)))
                .doesNotContain("pw");

        assertThat(reopened.delete("bob", ScramMechanism.SCRAM_SHA_256)).isTrue();
        assertThat(reopened.delete("bob", ScramMechanism.SCRAM_SHA_256)).isFalse();
        assertThat(reopened.describe("bob")).isEmpty();
        assertThat(reopened.cache()
                        .cache("SCRAM-SHA-256", ScramCredential.class)
                        .get("bob"))
                .isNull();
        assertThat(ScramCredentialStore.open(dir).users()).containsExactly("alice smith");
    }

    @Test
    void anUnreadableFileIsSetAsideAndNobodyAuthenticates() throws Exception {
        Files.writeString(dir.resolve(ScramCredentialStore.FILE_NAME), "not a credential line\n");

        final ScramCredentialStore store = ScramCredentialStore.open(dir);

        assertThat(store.users()).isEmpty();
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .anyMatch(name -> name.startsWith(ScramCredentialStore.FILE_NAME + ".corrupt-"));
        }
    }
}
