package io.isthmus.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.Broker;
import io.isthmus.broker.config.Endpoint;
import io.isthmus.testing.TestCertificates;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Authentication and encryption as Kafka users configure them, with kafka-clients 4.4: SCRAM credentials set and
 * described with Admin, a producer and a consumer over SASL_SSL with SCRAM, PLAIN over SASL_PLAINTEXT from the
 * listener's JAAS entry, a wrong password or a deleted credential refused, nothing served before authentication, and
 * credentials that survive a restart.
 */
class SecurityTest {
    private static final String PLAIN_JAAS = SaslSettings.plainUsers("bob", "bob-secret");

    @TempDir
    Path dir;

    private TestCertificates certificates;
    private Broker broker;

    @BeforeEach
    void start() throws Exception {
        certificates = TestCertificates.create(dir);
        broker = startBroker();
    }

    private Broker startBroker() throws Exception {
        final Map<String, String> settings = new HashMap<>();
        settings.put("listeners", "PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0");
        settings.put("sasl.enabled.mechanisms", "SCRAM-SHA-256,SCRAM-SHA-512,PLAIN");
        settings.put("listener.name.sasl_ssl.plain.sasl.jaas.config", PLAIN_JAAS);
        settings.put("listener.name.sasl_plaintext.plain.sasl.jaas.config", PLAIN_JAAS);
        settings.put("ssl.keystore.location", certificates.keystore().toString());
        settings.put("ssl.keystore.password", certificates.password());
        settings.put("ssl.keystore.type", "PKCS12");
        settings.put("num.network.threads", "2");
        settings.put("log.segment.bytes", Integer.toString(8 << 20));
        return Broker.startEmbedded(dir.resolve("logs"), settings);
    }

    @AfterEach
    void stop() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    private String address(final String listener) {
        for (final Endpoint endpoint : broker.endpoints()) {
            if (endpoint.listenerName().equals(listener)) {
                return endpoint.host() + ":" + endpoint.port();
            }
        }
        throw new IllegalStateException("no listener " + listener + " in " + broker.endpoints());
    }

    private Map<String, Object> scramOverTls(final String mechanism, final String user, final String password) {
        final Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", address("SASL_SSL"));
        props.put("security.protocol", "SASL_SSL");
        props.put("sasl.mechanism", mechanism);
        props.put("sasl.jaas.config", SaslSettings.scramLogin(user, password));
        props.put("ssl.truststore.location", certificates.truststore().toString());
        props.put("ssl.truststore.password", certificates.password());
        props.put("ssl.truststore.type", "PKCS12");
        return props;
    }

    private void setCredential(final String user, final ScramMechanism mechanism, final String password)
            throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", address("PLAINTEXT")))) {
            admin.alterUserScramCredentials(List.of(
                            new UserScramCredentialUpsertion(user, new ScramCredentialInfo(mechanism, 4096), password)))
                    .all()
                    .get();
        }
    }

    @Test
    void aProducerAndAConsumerWorkOverSaslSslWithScram() throws Exception {
        setCredential("alice", ScramMechanism.SCRAM_SHA_512, "alice-secret");
        setCredential("alice", ScramMechanism.SCRAM_SHA_256, "alice-secret-256");
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", address("PLAINTEXT")))) {
            final UserScramCredentialsDescription alice = admin.describeUserScramCredentials(List.of("alice"))
                    .all()
                    .get()
                    .get("alice");
            assertThat(alice.credentialInfos())
                    .extracting(ScramCredentialInfo::mechanism, ScramCredentialInfo::iterations)
                    .containsExactlyInAnyOrder(
                            org.assertj.core.groups.Tuple.tuple(ScramMechanism.SCRAM_SHA_256, 4096),
                            org.assertj.core.groups.Tuple.tuple(ScramMechanism.SCRAM_SHA_512, 4096));
            admin.createTopics(List.of(new NewTopic("secured", 2, (short) 1)))
                    .all()
                    .get();
        }

        final Map<String, Object> producerProps = scramOverTls("SCRAM-SHA-512", "alice", "alice-secret");
        producerProps.put("acks", "all");
        producerProps.put("key.serializer", StringSerializer.class.getName());
        producerProps.put("value.serializer", StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps)) {
            for (int i = 0; i < 100; i++) {
                producer.send(new ProducerRecord<>("secured", "k" + i, "v" + i)).get();
            }
        }

        final Map<String, Object> consumerProps = scramOverTls("SCRAM-SHA-256", "alice", "alice-secret-256");
        consumerProps.put("group.id", "secured-readers");
        consumerProps.put("auto.offset.reset", "earliest");
        consumerProps.put("key.deserializer", StringDeserializer.class.getName());
        consumerProps.put("value.deserializer", StringDeserializer.class.getName());
        final List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps)) {
            consumer.subscribe(List.of("secured"));
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (values.size() < 100 && System.nanoTime() < deadline) {
                for (final ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(record.value());
                }
            }
        }
        assertThat(values).hasSize(100);
        for (int i = 0; i < 100; i++) {
            assertThat(values).contains("v" + i);
        }
    }

    @Test
    void largeFetchAnswersArriveWholeOverTls() throws Exception {
        // Over TLS a fetch answer's file regions are copied into 256 KiB buffers to be encrypted: 1 MiB answers
        // cross several of them, and every byte must arrive in order.
        setCredential("frank", ScramMechanism.SCRAM_SHA_512, "frank-secret");
        final Map<String, Object> producerProps = scramOverTls("SCRAM-SHA-512", "frank", "frank-secret");
        producerProps.put("key.serializer", StringSerializer.class.getName());
        producerProps.put("value.serializer", ByteArraySerializer.class.getName());
        final int records = 600;
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(producerProps)) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>("large-over-tls", Integer.toString(i), value(i)));
            }
            producer.flush();
        }
        final Map<String, Object> consumerProps = scramOverTls("SCRAM-SHA-512", "frank", "frank-secret");
        consumerProps.put("auto.offset.reset", "earliest");
        consumerProps.put("group.id", "large-over-tls");
        consumerProps.put("key.deserializer", StringDeserializer.class.getName());
        consumerProps.put("value.deserializer", ByteArrayDeserializer.class.getName());
        int read = 0;
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(consumerProps)) {
            consumer.subscribe(List.of("large-over-tls"));
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (read < records && System.nanoTime() < deadline) {
                for (final ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    assertThat(record.value()).isEqualTo(value(Integer.parseInt(record.key())));
                    read++;
                }
            }
        }
        assertThat(read).isEqualTo(records);
    }

    /** 10 KiB that differ by record and by position, so a misplaced chunk cannot go unnoticed. */
    private static byte[] value(final int record) {
        final byte[] value = new byte[10 * 1024];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) (record * 31 + i * 7);
        }
        return value;
    }

    @Test
    void aWrongPasswordAnUnknownUserAndADeletedCredentialAreRefused() throws Exception {
        setCredential("carol", ScramMechanism.SCRAM_SHA_256, "carol-secret");

        assertThat(describeCluster(scramOverTls("SCRAM-SHA-256", "carol", "carol-secret")))
                .as("the right password")
                .isNull();
        assertThat(describeCluster(scramOverTls("SCRAM-SHA-256", "carol", "not-her-password")))
                .isInstanceOf(SaslAuthenticationException.class);
        assertThat(describeCluster(scramOverTls("SCRAM-SHA-256", "nobody", "whatever")))
                .isInstanceOf(SaslAuthenticationException.class);
        assertThat(describeCluster(scramOverTls("SCRAM-SHA-512", "carol", "carol-secret")))
                .as("a mechanism she has no credential for")
                .isInstanceOf(SaslAuthenticationException.class);

        try (Admin admin = Admin.create(Map.of("bootstrap.servers", address("PLAINTEXT")))) {
            admin.alterUserScramCredentials(
                            List.of(new UserScramCredentialDeletion("carol", ScramMechanism.SCRAM_SHA_256)))
                    .all()
                    .get();
            // kafka-clients' own reading: all() shows a user without credentials as having none, description() fails.
            assertThat(admin.describeUserScramCredentials(List.of("carol"))
                            .all()
                            .get()
                            .get("carol")
                            .credentialInfos())
                    .isEmpty();
            assertThatThrownBy(() -> admin.describeUserScramCredentials(List.of("carol"))
                            .description("carol")
                            .get())
                    .hasCauseInstanceOf(org.apache.kafka.common.errors.ResourceNotFoundException.class);
        }
        assertThat(describeCluster(scramOverTls("SCRAM-SHA-256", "carol", "carol-secret")))
                .as("after the deletion")
                .isInstanceOf(SaslAuthenticationException.class);
        assertThat(broker.server().metrics().authenticationFailures()).isGreaterThanOrEqualTo(4);
    }

    @Test
    void kcatProducesAndConsumesOverSaslSslAndIsRefusedAWrongPassword() throws Exception {
        final List<String> lines = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            lines.add("key-" + (i % 7) + ":secret value " + i);
        }
        final Path input = dir.resolve("kcat-input.txt");
        java.nio.file.Files.write(input, lines);

        KcatCompatibilityTest.run(
                dir, kcat("PLAIN", "bob", "bob-secret", "-P", "-t", "kcat-secured", "-K:", "-l", input.toString()));
        final List<String> consumed = KcatCompatibilityTest.run(
                dir,
                kcat(
                        "PLAIN",
                        "bob",
                        "bob-secret",
                        "-C",
                        "-t",
                        "kcat-secured",
                        "-o",
                        "beginning",
                        "-e",
                        "-q",
                        "-f",
                        "%k:%s\\n"));
        assertThat(consumed).containsExactlyInAnyOrderElementsOf(lines);

        assertThat(kcatMetadata("PLAIN", "bob", "guess")).contains("Authentication failed");
    }

    /**
     * kcat with SCRAM: librdkafka before 2.6.1 (Debian 12 ships 2.0.2) sends the client nonce twice in its final
     * message (librdkafka#4895), which RFC 5802 forbids and Apache Kafka 4.x refuses since the fix for CVE-2024-56128;
     * isthmus refuses it too, with Kafka's own SCRAM server. A fixed librdkafka must get in.
     */
    @Test
    void kcatWithScramGetsInExactlyWhenItsLibrdkafkaFollowsRfc5802() throws Exception {
        setCredential("erin", ScramMechanism.SCRAM_SHA_256, "erin-secret");
        final String version = new String(
                new ProcessBuilder("/usr/bin/kcat", "-V")
                        .start()
                        .getInputStream()
                        .readAllBytes(),
                java.nio.charset.StandardCharsets.UTF_8);
        final java.util.regex.Matcher librdkafka = java.util.regex.Pattern.compile(
                        "librdkafka (\\d+)\\.(\\d+)\\.(\\d+)")
                .matcher(version);
        assertThat(librdkafka.find())
                .as("kcat -V names its librdkafka: %s", version)
                .isTrue();
        final int[] v = {
            Integer.parseInt(librdkafka.group(1)),
            Integer.parseInt(librdkafka.group(2)),
            Integer.parseInt(librdkafka.group(3))
        };
        final boolean fixed = v[0] > 2 || (v[0] == 2 && (v[1] > 6 || (v[1] == 6 && v[2] >= 1)));

        final String output = kcatMetadata("SCRAM-SHA-256", "erin", "erin-secret");

        if (fixed) {
            assertThat(output).contains("brokers:").doesNotContain("Authentication failed");
        } else {
            assertThat(output).contains("Authentication failed");
        }
    }

    /** kcat -L against the SASL_SSL listener: its output, whether it got in or not. */
    private String kcatMetadata(final String mechanism, final String user, final String password) throws Exception {
        final Process process = new ProcessBuilder(kcat(mechanism, user, password, "-L", "-m", "5"))
                .redirectErrorStream(true)
                .start();
        final String output =
                new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        process.waitFor();
        return output;
    }

    /** A kcat command line against the SASL_SSL listener. */
    private String[] kcat(final String mechanism, final String user, final String password, final String... args) {
        final List<String> command = new ArrayList<>(List.of(
                "/usr/bin/kcat",
                "-b",
                address("SASL_SSL"),
                "-X",
                "security.protocol=SASL_SSL",
                "-X",
                "sasl.mechanisms=" + mechanism,
                "-X",
                "sasl.username=" + user,
                "-X",
                "sasl.password=" + password,
                "-X",
                "ssl.ca.location=" + certificates.pem()));
        command.addAll(List.of(args));
        return command.toArray(String[]::new);
    }

    @Test
    void plainUsersComeFromTheListenersJaasEntry() throws Exception {
        final Map<String, Object> bob = SaslSettings.client(address("SASL_PLAINTEXT"), "PLAIN", "bob", "bob-secret");
        assertThat(describeCluster(bob)).isNull();

        bob.put("sasl.jaas.config", SaslSettings.plainLogin("bob", "guess"));
        assertThat(describeCluster(bob)).isInstanceOf(SaslAuthenticationException.class);
    }

    @Test
    void nothingButTheSaslExchangeIsServedBeforeAuthentication() throws Exception {
        final String[] hostPort = address("SASL_PLAINTEXT").split(":");
        try (Socket socket = new Socket(hostPort[0], Integer.parseInt(hostPort[1]))) {
            socket.setSoTimeout(10_000);
            final DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            final DataInputStream in = new DataInputStream(socket.getInputStream());
            send(
                    out,
                    new ApiVersionsRequest.Builder()
                            .build((short) 3)
                            .serializeWithHeader(new RequestHeader(ApiKeys.API_VERSIONS, (short) 3, "raw", 1)));
            final byte[] versions = new byte[in.readInt()];
            in.readFully(versions);
            assertThat(ByteBuffer.wrap(versions).getInt())
                    .as("ApiVersions is answered")
                    .isEqualTo(1);

            send(
                    out,
                    new MetadataRequest.Builder(new MetadataRequestData().setTopics(null))
                            .build((short) 12)
                            .serializeWithHeader(new RequestHeader(ApiKeys.METADATA, (short) 12, "raw", 2)));
            assertThat(in.read())
                    .as("Metadata before authentication closes the connection")
                    .isEqualTo(-1);
        }
    }

    @Test
    void credentialsSurviveARestart() throws Exception {
        setCredential("dave", ScramMechanism.SCRAM_SHA_512, "dave-secret");
        broker.close();
        broker = startBroker();

        assertThat(describeCluster(scramOverTls("SCRAM-SHA-512", "dave", "dave-secret")))
                .isNull();
    }

    private static void send(final DataOutputStream out, final ByteBuffer request) throws Exception {
        out.writeInt(request.remaining());
        out.write(request.array(), request.arrayOffset() + request.position(), request.remaining());
        out.flush();
    }

    /** Null if an Admin client with {@code props} can describe the cluster, else why it cannot. */
    private static Throwable describeCluster(final Map<String, Object> props) {
        final Properties admin = new Properties();
        admin.putAll(props);
        admin.put("default.api.timeout.ms", "15000");
        admin.put("request.timeout.ms", "10000");
        try (Admin client = Admin.create(admin)) {
            client.describeCluster().nodes().get();
            return null;
        } catch (final ExecutionException e) {
            return e.getCause();
        } catch (final Exception e) {
            return e;
        }
    }
}
