package io.isthmus.e2e.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.Broker;
import io.isthmus.client.config.Transport;
import io.isthmus.client.consumer.ConsumerBatch;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.e2e.EmbeddedBroker;
import io.isthmus.e2e.SaslSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * ACLs on the RDMA datapath, on a real device: the isthmus clients authenticate their RDMA control connection with
 * SASL, the broker grants RDMA produce and consume access only to principals the ACLs allow (a principal that may see
 * a topic but not read it is refused consume access), and deleting an ACL ends a reader's RDMA session, so its next
 * READs fail at the NIC and it is told TOPIC_AUTHORIZATION_FAILED.
 */
@Tag("rdma")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RdmaAuthorizationTest {
    private static final String PLAIN_JAAS =
            SaslSettings.plainUsers("admin", "admin-secret", "alice", "alice-secret", "bob", "bob-secret");

    private Path logDir;

    private Broker broker;

    @BeforeAll
    void startBroker() throws Exception {
        // Made by hand: JUnit's @TempDir field is not injected before a per-class @BeforeAll in the guest's launcher.
        logDir = Files.createTempDirectory("rdma-acl");
        broker = EmbeddedBroker.start(
                logDir,
                "listeners=SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms=PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config=" + PLAIN_JAAS,
                "authorizer.class.name=io.isthmus.broker.security.AclAuthorizer",
                "super.users=User:admin",
                "log.segment.bytes=" + (256 * 1024),
                "rdma.enabled=true",
                "rdma.device=" + GuestDevice.name(),
                "rdma.gid.index=" + GuestDevice.gidIndex(),
                "rdma.cq.size=1024",
                "rdma.max.connections=8",
                "num.network.threads=1");
        assertThat(broker.rdma().unavailableReason()).isEmpty();
    }

    @AfterAll
    void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
        try (Stream<Path> paths = Files.walk(logDir)) {
            for (final Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    private Map<String, Object> settings(final String user) {
        final Map<String, Object> settings =
                SaslSettings.client(broker.bootstrapServers(), "PLAIN", user, user + "-secret");
        settings.put("transport", "rdma");
        settings.put("rdma.device", GuestDevice.name());
        settings.put("rdma.gid.index", GuestDevice.gidIndex());
        settings.put("rdma.read.bytes", Integer.toString(32 * 1024));
        settings.put("request.timeout.ms", "20000");
        return settings;
    }

    private Admin admin() {
        final Map<String, Object> props = new HashMap<>(settings("admin"));
        props.remove("transport");
        props.remove("rdma.device");
        props.remove("rdma.gid.index");
        props.remove("rdma.read.bytes");
        return Admin.create(props);
    }

    private static AclBinding allow(final String topic, final String user, final AclOperation operation) {
        return new AclBinding(
                new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                new AccessControlEntry("User:" + user, "*", operation, AclPermissionType.ALLOW));
    }

    private void produceOverRdma(final String user, final String topic, final int records) {
        try (IsthmusProducer producer = new IsthmusProducer(settings(user))) {
            assertThat(producer.transport()).isEqualTo(Transport.RDMA);
            for (int i = 0; i < records; i++) {
                producer.send(topic, null, ("v" + i + "-" + "x".repeat(200)).getBytes(StandardCharsets.UTF_8));
            }
            producer.flush();
        }
    }

    private static int drain(final IsthmusConsumer consumer, final int expected) {
        int seen = 0;
        final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (seen < expected && System.nanoTime() < deadline) {
            try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(200))) {
                while (batch.next()) {
                    seen++;
                }
            }
        }
        return seen;
    }

    @Test
    void rdmaAccessFollowsTheAclsOfTheAuthenticatedPrincipal() throws Exception {
        final String topic = "acl-rdma";
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
            admin.createAcls(List.of(
                            allow(topic, "alice", AclOperation.WRITE),
                            allow(topic, "alice", AclOperation.READ),
                            allow(topic, "bob", AclOperation.DESCRIBE)))
                    .all()
                    .get();
        }
        final int records = 2_000;
        produceOverRdma("alice", topic, records);

        final TopicPartition partition = new TopicPartition(topic, 0);
        try (IsthmusConsumer bob = new IsthmusConsumer(settings("bob"))) {
            assertThat(bob.transport()).isEqualTo(Transport.RDMA);
            bob.assign(List.of(partition));
            bob.seek(partition, 0);
            assertThatThrownBy(() -> drain(bob, 1))
                    .as("bob may see the topic (DESCRIBE) but not read it: no RDMA consume access")
                    .isInstanceOf(TopicAuthorizationException.class)
                    .hasMessageContaining("RDMA consume access refused");
        }

        final long revokedBefore = broker.rdma().datapath().orElseThrow().revokedGrants();
        try (IsthmusConsumer alice = new IsthmusConsumer(settings("alice"))) {
            assertThat(alice.transport()).isEqualTo(Transport.RDMA);
            alice.assign(List.of(partition));
            alice.seek(partition, 0);
            assertThat(drain(alice, records)).isEqualTo(records);
            assertThat(alice.rdmaTransport().slotReads()).isPositive();

            try (Admin admin = admin()) {
                assertThat(admin.deleteAcls(List.of(new AclBindingFilter(
                                        new ResourcePatternFilter(ResourceType.TOPIC, topic, PatternType.LITERAL),
                                        new AccessControlEntryFilter(
                                                "User:alice", null, AclOperation.READ, AclPermissionType.ANY))))
                                .all()
                                .get())
                        .hasSize(1);
            }
            final long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (broker.rdma().datapath().orElseThrow().revokedGrants() == revokedBefore
                    && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(broker.rdma().datapath().orElseThrow().revokedGrants())
                    .as("alice's RDMA session is closed when her READ ACL goes")
                    .isGreaterThan(revokedBefore);
            produceOverRdma("alice", topic, 10);
            assertThatThrownBy(() -> drain(alice, 10))
                    .as("her queue pair is gone and access is asked again: refused")
                    .isInstanceOf(TopicAuthorizationException.class);
        }
    }
}
