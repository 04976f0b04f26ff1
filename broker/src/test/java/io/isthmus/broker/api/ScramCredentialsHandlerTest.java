package io.isthmus.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.security.ScramCredentialStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** AlterUserScramCredentials and DescribeUserScramCredentials with Kafka's error codes. */
class ScramCredentialsHandlerTest {
    private static final byte SHA_256 = 1;
    private static final byte SHA_512 = 2;

    @TempDir
    Path dir;

    private ScramCredentialsHandler handler;

    @BeforeEach
    void setUp() {
        handler = new ScramCredentialsHandler(ScramCredentialStore.open(dir), AccessControl.allowAll());
    }

    private static AlterUserScramCredentialsRequestData.ScramCredentialUpsertion upsert(
            final String user, final byte mechanism, final int iterations) {
        return new AlterUserScramCredentialsRequestData.ScramCredentialUpsertion()
                .setName(user)
                .setMechanism(mechanism)
                .setIterations(iterations)
                .setSalt("salt".getBytes(StandardCharsets.UTF_8))
                .setSaltedPassword(new byte[mechanism == SHA_256 ? 32 : 64]);
    }

    private AlterUserScramCredentialsResponseData alter(final AlterUserScramCredentialsRequestData data)
            throws Exception {
        return Requests.body(handler, ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, (short) 0, data);
    }

    private DescribeUserScramCredentialsResponseData describe(final String... users) throws Exception {
        final DescribeUserScramCredentialsRequestData data = new DescribeUserScramCredentialsRequestData();
        if (users.length > 0) {
            data.setUsers(List.of(users).stream()
                    .map(u -> new DescribeUserScramCredentialsRequestData.UserName().setName(u))
                    .toList());
        }
        return Requests.body(handler, ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, (short) 0, data);
    }

    private static short errorOf(final AlterUserScramCredentialsResponseData response, final String user) {
        return response.results().stream()
                .filter(r -> r.user().equals(user))
                .findFirst()
                .orElseThrow()
                .errorCode();
    }

    @Test
    void upsertsDescribesAndDeletesWithKafkasErrors() throws Exception {
        final AlterUserScramCredentialsResponseData first = alter(new AlterUserScramCredentialsRequestData()
                .setUpsertions(List.of(
                        upsert("alice", SHA_256, 4096),
                        upsert("", SHA_256, 4096),
                        upsert("bob", (byte) 9, 4096),
                        upsert("carol", SHA_512, 100),
                        upsert("dave", SHA_256, 4096),
                        upsert("dave", SHA_512, 4096))));
        assertThat(errorOf(first, "alice")).isEqualTo(Errors.NONE.code());
        assertThat(errorOf(first, "")).isEqualTo(Errors.UNACCEPTABLE_CREDENTIAL.code());
        assertThat(errorOf(first, "bob")).isEqualTo(Errors.UNSUPPORTED_SASL_MECHANISM.code());
        assertThat(errorOf(first, "carol")).isEqualTo(Errors.UNACCEPTABLE_CREDENTIAL.code());
        assertThat(errorOf(first, "dave")).isEqualTo(Errors.DUPLICATE_RESOURCE.code());

        final DescribeUserScramCredentialsResponseData described = describe("alice", "dave");
        assertThat(described.results().get(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(described.results().get(0).credentialInfos()).singleElement().satisfies(info -> {
            assertThat(info.mechanism()).isEqualTo(SHA_256);
            assertThat(info.iterations()).isEqualTo(4096);
        });
        assertThat(described.results().get(1).errorCode()).isEqualTo(Errors.RESOURCE_NOT_FOUND.code());
        assertThat(describe().results()).extracting(r -> r.user()).containsExactly("alice");

        final AlterUserScramCredentialsResponseData deleted = alter(new AlterUserScramCredentialsRequestData()
                .setDeletions(List.of(new AlterUserScramCredentialsRequestData.ScramCredentialDeletion()
                        .setName("alice")
                        .setMechanism(SHA_256))));
        assertThat(errorOf(deleted, "alice")).isEqualTo(Errors.NONE.code());
        assertThat(describe("alice").results().getFirst().errorCode()).isEqualTo(Errors.RESOURCE_NOT_FOUND.code());
        assertThat(describe().results()).isEmpty();
    }
}
