package io.isthmus.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.Broker;
import io.isthmus.broker.config.Endpoint;
import io.isthmus.testing.TestCertificates;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SecurityDisabledException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ACLs as Kafka users write and meet them, with kafka-clients 4.4 and kcat: the broker configured with Kafka's own
 * authorizer name, ACLs managed with Admin, and every principal held to them on produce, fetch, metadata, groups,
 * transactions and topic administration, over SASL_SSL with SCRAM and SASL_PLAINTEXT with PLAIN.
 */
class AuthorizationTest {
    private static final String PLAIN_JAAS =
            SaslSettings.plainUsers("admin", "admin-secret", "alice", "alice-secret", "bob", "bob-secret");

    @TempDir
    Path dir;

    private TestCertificates certificates;
    private Broker broker;

    @BeforeEach
    void start() throws Exception {
        certificates = TestCertificates.create(dir);
        broker = startBroker(true);
    }

    @AfterEach
    void stop() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    private Broker startBroker(final boolean authorizer) throws Exception {
        final Map<String, String> settings = new HashMap<>();
        settings.put("listeners", "SASL_SSL://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0");
        settings.put("sasl.enabled.mechanisms", "SCRAM-SHA-256,SCRAM-SHA-512,PLAIN");
        settings.put("listener.name.sasl_ssl.plain.sasl.jaas.config", PLAIN_JAAS);
        settings.put("listener.name.sasl_plaintext.plain.sasl.jaas.config", PLAIN_JAAS);
        settings.put("ssl.keystore.location", certificates.keystore().toString());
        settings.put("ssl.keystore.password", certificates.password());
        settings.put("ssl.keystore.type", "PKCS12");
        settings.put("num.network.threads", "2");
        settings.put("log.segment.bytes", Integer.toString(8 << 20));
        if (authorizer) {
            // Kafka's own name for its authorizer: a Kafka configuration works unchanged.
            settings.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
            settings.put("super.users", "User:admin");
        }
        return Broker.startEmbedded(dir.resolve("logs"), settings);
    }

    private String address(final String listener) {
        for (final Endpoint endpoint : broker.endpoints()) {
            if (endpoint.listenerName().equals(listener)) {
                return endpoint.host() + ":" + endpoint.port();
            }
        }
        throw new IllegalStateException("no listener " + listener + " in " + broker.endpoints());
    }

    /** A PLAIN user's client settings on the SASL_PLAINTEXT listener. */
    private Map<String, Object> plain(final String user) {
        return SaslSettings.client(address("SASL_PLAINTEXT"), "PLAIN", user, user + "-secret");
    }

    /** A SCRAM user's client settings on the SASL_SSL listener. */
    private Map<String, Object> scramOverTls(final String user, final String password) {
        final Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", address("SASL_SSL"));
        props.put("security.protocol", "SASL_SSL");
        props.put("sasl.mechanism", "SCRAM-SHA-512");
        props.put("sasl.jaas.config", SaslSettings.scramLogin(user, password));
        props.put("ssl.truststore.location", certificates.truststore().toString());
        props.put("ssl.truststore.password", certificates.password());
        props.put("ssl.truststore.type", "PKCS12");
        return props;
    }

    private Admin admin() {
        return Admin.create(plain("admin"));
    }

    private void createTopics(final String... names) throws Exception {
        final List<NewTopic> topics = new ArrayList<>();
        for (final String name : names) {
            topics.add(new NewTopic(name, 1, (short) 1));
        }
        try (Admin admin = admin()) {
            admin.createTopics(topics).all().get();
        }
    }

    private static AclBinding allow(
            final ResourceType type, final String name, final String principal, final AclOperation operation) {
        return new AclBinding(
                new ResourcePattern(type, name, PatternType.LITERAL),
                new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
    }

    private void grant(final AclBinding... bindings) throws Exception {
        try (Admin admin = admin()) {
            admin.createAcls(List.of(bindings)).all().get();
        }
    }

    private static KafkaProducer<String, String> producer(final Map<String, Object> props) {
        final Map<String, Object> settings = new HashMap<>(props);
        settings.put("max.block.ms", "10000");
        settings.put("delivery.timeout.ms", "10000");
        settings.put("request.timeout.ms", "5000");
        settings.put("linger.ms", "0");
        return new KafkaProducer<>(settings, new StringSerializer(), new StringSerializer());
    }

    private static KafkaConsumer<String, String> consumer(final Map<String, Object> props, final String group) {
        final Map<String, Object> settings = new HashMap<>(props);
        settings.put("auto.offset.reset", "earliest");
        settings.put("enable.auto.commit", "false");
        if (group != null) {
            settings.put("group.id", group);
        }
        return new KafkaConsumer<>(settings, new StringDeserializer(), new StringDeserializer());
    }

    /** The cause of a failed future's get. */
    private static Throwable failure(final ThrowingCall call) {
        try {
            call.run();
        } catch (final ExecutionException e) {
            return e.getCause();
        } catch (final Exception e) {
            return e;
        }
        return null;
    }

    @FunctionalInterface
    private interface ThrowingCall {
        void run() throws Exception;
    }

    private static List<String> drain(final KafkaConsumer<String, String> consumer, final int expected) {
        final List<String> values = new ArrayList<>();
        final long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (values.size() < expected && System.nanoTime() < deadline) {
            for (final ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                values.add(record.value());
            }
        }
        return values;
    }

    @Test
    void aScramPrincipalWithoutTheAclGetsTopicAuthorizationFailedUntilItIsGranted() throws Exception {
        createTopics("orders");
        try (Admin admin = admin()) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                            "carol", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "carol-secret")))
                    .all()
                    .get();
        }
        final Map<String, Object> carol = scramOverTls("carol", "carol-secret");

        try (KafkaProducer<String, String> producer = producer(carol)) {
            assertThat(failure(() -> producer.send(new ProducerRecord<>("orders", "k", "refused"))
                            .get()))
                    .isInstanceOfAny(TopicAuthorizationException.class, ClusterAuthorizationException.class);
        }
        try (KafkaConsumer<String, String> consumer = consumer(carol, null)) {
            consumer.assign(List.of(new TopicPartition("orders", 0)));
            assertThatThrownBy(() -> consumer.poll(Duration.ofSeconds(5)))
                    .isInstanceOf(TopicAuthorizationException.class);
        }

        grant(
                allow(ResourceType.TOPIC, "orders", "User:carol", AclOperation.WRITE),
                allow(ResourceType.TOPIC, "orders", "User:carol", AclOperation.READ),
                allow(ResourceType.GROUP, "carols", "User:carol", AclOperation.READ));
        try (KafkaProducer<String, String> producer = producer(carol)) {
            for (int i = 0; i < 100; i++) {
                producer.send(new ProducerRecord<>("orders", "k", "v" + i)).get();
            }
        }
        try (KafkaConsumer<String, String> consumer = consumer(carol, "carols")) {
            consumer.subscribe(List.of("orders"));
            assertThat(drain(consumer, 100)).hasSize(100);
            consumer.commitSync();
        }
    }

    @Test
    void aclsAreManagedWithAdminByTheClusterAltererAndSurviveARestart() throws Exception {
        final AclBinding readOrders = allow(ResourceType.TOPIC, "orders", "User:alice", AclOperation.READ);
        final AclBinding prefixedGroups = new AclBinding(
                new ResourcePattern(ResourceType.GROUP, "team-", PatternType.PREFIXED),
                new AccessControlEntry("User:alice", "127.0.0.1", AclOperation.READ, AclPermissionType.DENY));
        try (Admin alice = Admin.create(plain("alice"))) {
            assertThat(failure(() -> alice.createAcls(List.of(readOrders)).all().get()))
                    .isInstanceOf(ClusterAuthorizationException.class);
            assertThat(failure(() ->
                            alice.describeAcls(AclBindingFilter.ANY).values().get()))
                    .isInstanceOf(ClusterAuthorizationException.class);
        }
        grant(readOrders, prefixedGroups);
        try (Admin admin = admin()) {
            assertThat(admin.describeAcls(AclBindingFilter.ANY).values().get())
                    .containsExactlyInAnyOrder(readOrders, prefixedGroups);
            assertThat(admin.describeAcls(new AclBindingFilter(
                                    new ResourcePatternFilter(ResourceType.GROUP, "team-eu", PatternType.MATCH),
                                    AccessControlEntryFilter.ANY))
                            .values()
                            .get())
                    .containsExactly(prefixedGroups);
        }

        broker.close();
        broker = startBroker(true);

        try (Admin admin = admin()) {
            assertThat(admin.describeAcls(AclBindingFilter.ANY).values().get())
                    .containsExactlyInAnyOrder(readOrders, prefixedGroups);
            final Collection<AclBinding> deleted = admin.deleteAcls(List.of(new AclBindingFilter(
                            ResourcePatternFilter.ANY,
                            new AccessControlEntryFilter(
                                    "User:alice", null, AclOperation.READ, AclPermissionType.ALLOW))))
                    .all()
                    .get();
            assertThat(deleted).containsExactly(readOrders);
            assertThat(admin.describeAcls(AclBindingFilter.ANY).values().get()).containsExactly(prefixedGroups);
        }
    }

    @Test
    void metadataShowsOnlyTheTopicsAPrincipalMayDescribeAndItsAuthorizedOperations() throws Exception {
        createTopics("visible", "hidden");
        grant(allow(ResourceType.TOPIC, "visible", "User:alice", AclOperation.READ));
        try (Admin alice = Admin.create(plain("alice"))) {
            assertThat(alice.listTopics().names().get()).containsExactly("visible");
            assertThat(failure(() -> alice.describeTopics(List.of("hidden"))
                            .allTopicNames()
                            .get()))
                    .isInstanceOf(TopicAuthorizationException.class);
            assertThat(alice.describeTopics(
                                    List.of("visible"), new DescribeTopicsOptions().includeAuthorizedOperations(true))
                            .allTopicNames()
                            .get()
                            .get("visible")
                            .authorizedOperations())
                    .containsExactlyInAnyOrder(AclOperation.READ, AclOperation.DESCRIBE);
            assertThat(alice.describeCluster(new DescribeClusterOptions().includeAuthorizedOperations(true))
                            .authorizedOperations()
                            .get())
                    .isEmpty();
        }
        try (Admin admin = admin()) {
            assertThat(admin.describeCluster(new DescribeClusterOptions().includeAuthorizedOperations(true))
                            .authorizedOperations()
                            .get())
                    .contains(AclOperation.ALTER, AclOperation.DESCRIBE, AclOperation.CREATE);
        }
    }

    @Test
    void groupsTransactionsAndIdempotentProducersNeedTheirOwnAcls() throws Exception {
        createTopics("events");
        grant(allow(ResourceType.TOPIC, "events", "User:alice", AclOperation.READ));
        try (KafkaConsumer<String, String> consumer = consumer(plain("alice"), "no-acl-group")) {
            consumer.subscribe(List.of("events"));
            assertThatThrownBy(() -> consumer.poll(Duration.ofSeconds(5)))
                    .isInstanceOf(GroupAuthorizationException.class);
        }
        // An idempotent producer (kafka-clients' default) may get a producer id only if it may write somewhere.
        try (KafkaProducer<String, String> producer = producer(plain("alice"))) {
            assertThat(failure(() -> producer.send(new ProducerRecord<>("events", "k", "v"))
                            .get()))
                    .isInstanceOf(ClusterAuthorizationException.class);
        }
        grant(allow(ResourceType.TOPIC, "events", "User:alice", AclOperation.WRITE));
        final Map<String, Object> transactional = new HashMap<>(plain("alice"));
        transactional.put("transactional.id", "alice-tx");
        try (KafkaProducer<String, String> producer = producer(transactional)) {
            assertThatThrownBy(producer::initTransactions).isInstanceOf(TransactionalIdAuthorizationException.class);
        }
        grant(allow(ResourceType.TRANSACTIONAL_ID, "alice-tx", "User:alice", AclOperation.WRITE));
        try (KafkaProducer<String, String> producer = producer(transactional)) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("events", "k", "in a transaction"));
            producer.commitTransaction();
        }
        try (KafkaConsumer<String, String> consumer = consumer(plain("alice"), null)) {
            consumer.assign(List.of(new TopicPartition("events", 0)));
            assertThat(drain(consumer, 1)).containsExactly("in a transaction");
        }
    }

    @Test
    void topicAdministrationNeedsCreateDeleteAndAlter() throws Exception {
        try (Admin alice = Admin.create(plain("alice"))) {
            assertThat(failure(() -> alice.createTopics(List.of(new NewTopic("alice-1", 1, (short) 1)))
                            .all()
                            .get()))
                    .isInstanceOf(TopicAuthorizationException.class);
            grant(new AclBinding(
                    new ResourcePattern(ResourceType.TOPIC, "alice-", PatternType.PREFIXED),
                    new AccessControlEntry("User:alice", "*", AclOperation.CREATE, AclPermissionType.ALLOW)));
            alice.createTopics(List.of(new NewTopic("alice-1", 1, (short) 1)))
                    .all()
                    .get();
            assertThat(failure(() -> alice.createTopics(List.of(new NewTopic("bob-1", 1, (short) 1)))
                            .all()
                            .get()))
                    .isInstanceOf(TopicAuthorizationException.class);
            assertThat(failure(
                            () -> alice.deleteTopics(List.of("alice-1")).all().get()))
                    .isInstanceOf(TopicAuthorizationException.class);
        }
        try (Admin admin = admin()) {
            assertThat(admin.listTopics().names().get()).contains("alice-1").doesNotContain("bob-1");
        }
    }

    @Test
    void aDenyWinsOverAnAllowForEveryone() throws Exception {
        createTopics("shared");
        grant(
                allow(ResourceType.TOPIC, "shared", "User:*", AclOperation.ALL),
                new AclBinding(
                        new ResourcePattern(ResourceType.TOPIC, "shared", PatternType.LITERAL),
                        new AccessControlEntry("User:bob", "*", AclOperation.READ, AclPermissionType.DENY)));
        try (KafkaProducer<String, String> producer = producer(plain("bob"))) {
            producer.send(new ProducerRecord<>("shared", "k", "bob wrote this")).get();
        }
        try (KafkaConsumer<String, String> consumer = consumer(plain("alice"), null)) {
            consumer.assign(List.of(new TopicPartition("shared", 0)));
            assertThat(drain(consumer, 1)).containsExactly("bob wrote this");
        }
        try (KafkaConsumer<String, String> consumer = consumer(plain("bob"), null)) {
            consumer.assign(List.of(new TopicPartition("shared", 0)));
            assertThatThrownBy(() -> consumer.poll(Duration.ofSeconds(5)))
                    .isInstanceOf(TopicAuthorizationException.class);
        }
    }

    @Test
    void kcatWithoutTheAclIsToldTopicAuthorizationFailed() throws Exception {
        createTopics("kcat-denied");
        final Process process = new ProcessBuilder(
                        "/usr/bin/kcat",
                        "-b",
                        address("SASL_SSL"),
                        "-X",
                        "security.protocol=SASL_SSL",
                        "-X",
                        "sasl.mechanisms=PLAIN",
                        "-X",
                        "sasl.username=bob",
                        "-X",
                        "sasl.password=bob-secret",
                        "-X",
                        "ssl.ca.location=" + certificates.pem(),
                        "-C",
                        "-t",
                        "kcat-denied",
                        "-o",
                        "beginning",
                        "-e",
                        "-m",
                        "10")
                .redirectErrorStream(true)
                .start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        process.waitFor();
        assertThat(output).containsIgnoringCase("authorization failed");
        assertThat(process.exitValue()).isNotZero();
    }

    @Test
    void aBrokerWithoutAnAuthorizerAnswersAclRequestsWithSecurityDisabled() throws Exception {
        broker.close();
        broker = startBroker(false);
        try (Admin admin = admin()) {
            assertThat(failure(() -> admin.createAcls(
                                    List.of(allow(ResourceType.TOPIC, "t", "User:alice", AclOperation.READ)))
                            .all()
                            .get()))
                    .isInstanceOf(SecurityDisabledException.class);
            assertThat(failure(() ->
                            admin.describeAcls(AclBindingFilter.ANY).values().get()))
                    .isInstanceOf(SecurityDisabledException.class);
        }
        // And everyone may do everything, as in Kafka without an authorizer.
        createTopics("open");
        try (KafkaProducer<String, String> producer = producer(plain("bob"))) {
            producer.send(new ProducerRecord<>("open", "k", "v")).get();
        }
    }
}
