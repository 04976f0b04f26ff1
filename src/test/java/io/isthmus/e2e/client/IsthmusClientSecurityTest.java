package io.isthmus.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.Broker;
import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerBatch;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.client.security.SecuritySettings;
import io.isthmus.e2e.SaslSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnsupportedSaslMechanismException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The isthmus producer, consumer and admin client authenticating as Kafka's clients do (SASL_PLAINTEXT with SCRAM or
 * PLAIN, set with Kafka's own settings) against a broker that enforces ACLs: what a principal may do works, what it may
 * not fails with Kafka's exceptions, wrong credentials and unknown mechanisms are refused, TLS is refused with the
 * reason.
 */
class IsthmusClientSecurityTest {
    private static final String PLAIN_JAAS = SaslSettings.plainUsers("admin", "admin-secret", "bob", "bob-secret");

    @TempDir
    Path dir;

    private Broker broker;

    @BeforeEach
    void start() throws Exception {
        final Map<String, String> settings = new HashMap<>();
        settings.put("listeners", "SASL_PLAINTEXT://127.0.0.1:0");
        settings.put("sasl.enabled.mechanisms", "SCRAM-SHA-256,PLAIN");
        settings.put("listener.name.sasl_plaintext.plain.sasl.jaas.config", PLAIN_JAAS);
        settings.put("authorizer.class.name", "io.isthmus.broker.security.AclAuthorizer");
        settings.put("super.users", "User:admin");
        settings.put("num.network.threads", "2");
        broker = Broker.startEmbedded(dir.resolve("logs"), settings);
        try (Admin admin =
                Admin.create(SaslSettings.client(broker.bootstrapServers(), "PLAIN", "admin", "admin-secret"))) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                            "carol", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), "carol-secret")))
                    .all()
                    .get();
            admin.createAcls(List.of(
                            allow(ResourceType.TOPIC, "carols", "User:carol", AclOperation.WRITE),
                            allow(ResourceType.TOPIC, "carols", "User:carol", AclOperation.READ),
                            allow(ResourceType.TOPIC, "carols", "User:carol", AclOperation.CREATE),
                            allow(ResourceType.GROUP, "carol-group", "User:carol", AclOperation.READ)))
                    .all()
                    .get();
        }
    }

    @AfterEach
    void stop() throws Exception {
        broker.close();
    }

    private static AclBinding allow(
            final ResourceType type, final String name, final String principal, final AclOperation operation) {
        return new AclBinding(
                new ResourcePattern(type, name, PatternType.LITERAL),
                new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
    }

    private Map<String, Object> client(final String mechanism, final String user, final String password) {
        final Map<String, Object> settings = SaslSettings.client(broker.bootstrapServers(), mechanism, user, password);
        settings.put("request.timeout.ms", "10000");
        return settings;
    }

    @Test
    void aScramPrincipalProducesAndConsumesWhatItsAclsAllow() {
        final Map<String, Object> carol = client("SCRAM-SHA-256", "carol", "carol-secret");
        try (IsthmusAdmin admin =
                new IsthmusAdmin(broker.bootstrapServers(), Duration.ofSeconds(10), SecuritySettings.of(carol))) {
            admin.createTopic("carols", 2, (short) 1);
        }
        final int records = 2_000;
        try (IsthmusProducer producer = new IsthmusProducer(carol)) {
            for (int i = 0; i < records; i++) {
                producer.send("carols", null, ("v" + i).getBytes(StandardCharsets.UTF_8));
            }
            producer.flush();
        }
        final Map<String, Object> group = new HashMap<>(carol);
        group.put("group.id", "carol-group");
        group.put("auto.offset.reset", "earliest");
        int seen = 0;
        try (IsthmusConsumer consumer = new IsthmusConsumer(group)) {
            consumer.subscribe(List.of("carols"));
            final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (seen < records && System.nanoTime() < deadline) {
                try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(500))) {
                    for (final ConsumedRecord ignored : batch) {
                        seen++;
                    }
                }
            }
            consumer.commitSync();
        }
        assertThat(seen).isEqualTo(records);
    }

    @Test
    void aPrincipalWithoutTheAclsGetsKafkasAuthorizationExceptions() {
        final Map<String, Object> admin = client("PLAIN", "admin", "admin-secret");
        try (IsthmusAdmin isthmusAdmin =
                new IsthmusAdmin(broker.bootstrapServers(), Duration.ofSeconds(10), SecuritySettings.of(admin))) {
            isthmusAdmin.createTopic("carols", 1, (short) 1);
        }
        try (IsthmusProducer producer = new IsthmusProducer(admin)) {
            producer.send("carols", null, "written by admin".getBytes(StandardCharsets.UTF_8));
            producer.flush();
        }
        final Map<String, Object> bob = client("PLAIN", "bob", "bob-secret");
        try (IsthmusConsumer consumer = new IsthmusConsumer(bob)) {
            final TopicPartition partition = new TopicPartition("carols", 0);
            assertThatThrownBy(() -> {
                        // The isthmus consumer looks positions up when asked to seek; KafkaConsumer at its next poll.
                        consumer.assign(List.of(partition));
                        consumer.seekToBeginning(List.of(partition));
                        for (int i = 0; i < 20; i++) {
                            consumer.poll(Duration.ofMillis(250)).close();
                        }
                    })
                    .isInstanceOf(TopicAuthorizationException.class)
                    .hasMessageContaining("carols");
        }
        final Map<String, Object> bobProducer = new HashMap<>(bob);
        bobProducer.put("enable.idempotence", "false");
        try (IsthmusProducer producer = new IsthmusProducer(bobProducer)) {
            assertThatThrownBy(() -> producer.sendAsync(
                                    "carols",
                                    0,
                                    IsthmusProducer.NOW,
                                    null,
                                    "refused".getBytes(StandardCharsets.UTF_8),
                                    null)
                            .join())
                    .isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
    }

    @Test
    void wrongCredentialsAndUnofferedMechanismsAreRefusedAndTlsIsRefusedWithTheReason() {
        assertThatThrownBy(() -> {
                    try (IsthmusConsumer consumer =
                            new IsthmusConsumer(client("SCRAM-SHA-256", "carol", "not-her-password"))) {
                        consumer.assign(List.of(new TopicPartition("carols", 0)));
                        consumer.poll(Duration.ofSeconds(2)).close();
                    }
                })
                .isInstanceOf(SaslAuthenticationException.class)
                .hasMessageContaining("carol");
        assertThatThrownBy(() -> {
                    try (IsthmusAdmin admin = new IsthmusAdmin(
                            broker.bootstrapServers(),
                            Duration.ofSeconds(5),
                            SecuritySettings.of(client("SCRAM-SHA-512", "carol", "carol-secret")))) {
                        admin.partitionsOf("carols");
                    }
                })
                .isInstanceOf(UnsupportedSaslMechanismException.class)
                .hasMessageContaining("SCRAM-SHA-256");
        final Map<String, Object> tls = client("PLAIN", "bob", "bob-secret");
        tls.put("security.protocol", "SASL_SSL");
        assertThatThrownBy(() -> new IsthmusConsumer(tls))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no TLS");
    }
}
