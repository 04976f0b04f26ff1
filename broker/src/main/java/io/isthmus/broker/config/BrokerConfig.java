package io.isthmus.broker.config;

import io.isthmus.broker.log.LogConfig;
import io.isthmus.broker.producer.ProducerStateTable;
import io.isthmus.broker.security.AclAuthorizer;
import io.isthmus.broker.security.AclStore;
import io.isthmus.broker.security.ListenerSecurity;
import io.isthmus.broker.security.SaslMechanisms;
import io.isthmus.broker.security.ScramCredentialStore;
import io.isthmus.broker.security.TlsSettings;
import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.io.Reader;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * The broker's settings, under the names Kafka uses for the same concepts.
 *
 * <p>Declared with kafka-clients' {@link ConfigDef}, so types, defaults, validation and documentation come
 * from one table (printed by {@code ./isthmus broker --help-config}). Log settings ({@code log.*},
 * {@code flush.*}) are kept verbatim in {@link #originalsStrings()} and interpreted by the log's own
 * configuration.
 */
public final class BrokerConfig extends AbstractConfig {
    /** Kafka's per-listener settings; of them isthmus reads PLAIN's JAAS entry ({@link SaslMechanisms}), as given. */
    private static final String LISTENER_PREFIX = "listener.name.";

    private static final String PLAIN_JAAS_SUFFIX = ".plain.sasl.jaas.config";

    public static final String NODE_ID = "node.id";
    public static final String PROCESS_ROLES = "process.roles";
    public static final String CONTROLLER_QUORUM_VOTERS = "controller.quorum.voters";
    public static final String METADATA_LOG_DIR = "metadata.log.dir";
    public static final String CONTROLLER_QUORUM_ELECTION_TIMEOUT_MS = "controller.quorum.election.timeout.ms";
    public static final String BROKER_SESSION_TIMEOUT_MS = "broker.session.timeout.ms";
    public static final String BROKER_HEARTBEAT_INTERVAL_MS = "broker.heartbeat.interval.ms";
    public static final String DEFAULT_REPLICATION_FACTOR = "default.replication.factor";
    public static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";
    public static final String REPLICA_LAG_TIME_MAX_MS = "replica.lag.time.max.ms";
    public static final String REPLICA_FETCH_WAIT_MAX_MS = "replica.fetch.wait.max.ms";
    public static final String REPLICA_FETCH_MAX_BYTES = "replica.fetch.max.bytes";
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = "unclean.leader.election.enable";
    public static final String LISTENERS = "listeners";
    public static final String ADVERTISED_LISTENERS = "advertised.listeners";
    public static final String LISTENER_SECURITY_PROTOCOL_MAP = "listener.security.protocol.map";
    public static final String SASL_ENABLED_MECHANISMS = "sasl.enabled.mechanisms";
    public static final String SSL_KEYSTORE_LOCATION = "ssl.keystore.location";
    public static final String SSL_KEYSTORE_PASSWORD = "ssl.keystore.password";
    public static final String SSL_KEYSTORE_TYPE = "ssl.keystore.type";
    public static final String SSL_KEY_PASSWORD = "ssl.key.password";
    public static final String SSL_TRUSTSTORE_LOCATION = "ssl.truststore.location";
    public static final String SSL_TRUSTSTORE_PASSWORD = "ssl.truststore.password";
    public static final String SSL_TRUSTSTORE_TYPE = "ssl.truststore.type";
    public static final String SSL_CLIENT_AUTH = "ssl.client.auth";
    public static final String SSL_ENABLED_PROTOCOLS = "ssl.enabled.protocols";
    public static final String AUTHORIZER_CLASS_NAME = "authorizer.class.name";
    public static final String SUPER_USERS = "super.users";
    public static final String ALLOW_EVERYONE_IF_NO_ACL_FOUND = "allow.everyone.if.no.acl.found";
    public static final String LOG_DIRS = "log.dirs";
    public static final String NUM_PARTITIONS = "num.partitions";
    public static final String AUTO_CREATE_TOPICS_ENABLE = "auto.create.topics.enable";
    public static final String MAX_BROKER_PARTITIONS = "max.broker.partitions";
    public static final String SOCKET_REQUEST_MAX_BYTES = "socket.request.max.bytes";
    public static final String NUM_NETWORK_THREADS = "num.network.threads";
    public static final String CLUSTER_ID = "cluster.id";
    public static final String GROUP_INITIAL_REBALANCE_DELAY_MS = "group.initial.rebalance.delay.ms";
    public static final String GROUP_MIN_SESSION_TIMEOUT_MS = "group.min.session.timeout.ms";
    public static final String GROUP_MAX_SESSION_TIMEOUT_MS = "group.max.session.timeout.ms";
    public static final String MAX_INFLIGHT_REQUESTS_PER_CONNECTION = "isthmus.max.inflight.requests.per.connection";
    public static final String CONNECTIONS_MAX_IDLE_MS = "connections.max.idle.ms";
    public static final String REQUEST_READ_TIMEOUT_MS = "isthmus.request.read.timeout.ms";
    public static final String MAX_CONNECTIONS = "max.connections";
    public static final String SOCKET_RECEIVE_BUFFER_BYTES = "socket.receive.buffer.bytes";
    public static final String SOCKET_SEND_BUFFER_BYTES = "socket.send.buffer.bytes";
    public static final String MAX_CONNECTIONS_PER_IP = "max.connections.per.ip";
    public static final String MAX_CONNECTIONS_PER_IP_OVERRIDES = "max.connections.per.ip.overrides";
    public static final String TRANSACTION_MAX_TIMEOUT_MS = "transaction.max.timeout.ms";
    public static final String TRANSACTIONAL_ID_EXPIRATION_MS = "transactional.id.expiration.ms";
    public static final String TRANSACTION_ABORT_TIMED_OUT_INTERVAL_MS =
            "transaction.abort.timed.out.transaction.cleanup.interval.ms";
    public static final String TRANSACTION_REMOVE_EXPIRED_INTERVAL_MS =
            "transaction.remove.expired.transaction.cleanup.interval.ms";
    public static final String TRANSACTION_STATE_LOG_SEGMENT_BYTES = "transaction.state.log.segment.bytes";
    public static final String TRANSACTION_STATE_LOG_NUM_PARTITIONS = "transaction.state.log.num.partitions";
    public static final String TRANSACTION_STATE_LOG_REPLICATION_FACTOR = "transaction.state.log.replication.factor";
    public static final String TRANSACTION_STATE_LOG_MIN_ISR = "transaction.state.log.min.isr";
    public static final String OFFSETS_TOPIC_NUM_PARTITIONS = "offsets.topic.num.partitions";
    public static final String OFFSETS_TOPIC_REPLICATION_FACTOR = "offsets.topic.replication.factor";
    public static final String OFFSETS_TOPIC_SEGMENT_BYTES = "offsets.topic.segment.bytes";
    public static final String OFFSETS_COMMIT_TIMEOUT_MS = "offsets.commit.timeout.ms";
    public static final String SHM_ENABLED = "shm.enabled";
    public static final String SHM_DIR = "shm.dir";
    public static final String SHM_MAX_CONNECTIONS = "shm.max.connections";
    public static final String SHM_SLOTS_PER_CONNECTION = "shm.slots.per.connection";
    public static final String SHM_PRODUCE_SLOTS = "shm.produce.slots";
    public static final String RDMA_ENABLED = "rdma.enabled";
    public static final String RDMA_DEVICE = "rdma.device";
    public static final String RDMA_PORT = "rdma.port";
    public static final String RDMA_GID_INDEX = "rdma.gid.index";
    public static final String RDMA_CQ_SIZE = "rdma.cq.size";
    public static final String RDMA_QP_MAX_SEND_WR = "rdma.qp.max.send.wr";
    public static final String RDMA_QP_MAX_RECV_WR = "rdma.qp.max.recv.wr";
    public static final String RDMA_PRODUCE_CREDITS = "rdma.produce.credits";
    public static final String RDMA_MAX_CONNECTIONS = "rdma.max.connections";
    public static final String RDMA_SLOTS_PER_CONNECTION = "rdma.slots.per.connection";
    public static final String RDMA_PRODUCE_RESERVATION_TIMEOUT_MS = "rdma.produce.reservation.timeout.ms";
    public static final String RDMA_REPLICATION_PUSH = "rdma.replication.push";

    public static final ConfigDef DEFINITION = new ConfigDef()
            .define(NODE_ID, Type.INT, 0, Range.atLeast(0), Importance.HIGH, "The id of this broker.")
            .define(
                    PROCESS_ROLES,
                    Type.LIST,
                    "",
                    Importance.HIGH,
                    "Empty: a single broker that is its own cluster. 'broker,controller': one node of a cluster, a"
                            + " broker that is also a voter of the metadata quorum named by controller.quorum.voters.")
            .define(
                    CONTROLLER_QUORUM_VOTERS,
                    Type.STRING,
                    "",
                    Importance.HIGH,
                    "The metadata quorum's voters, id@host:port,...; the same on every node of the cluster. Each port"
                            + " is the quorum's own (gRPC), not a Kafka listener.")
            .define(
                    METADATA_LOG_DIR,
                    Type.STRING,
                    null,
                    Importance.MEDIUM,
                    "Where this node keeps the metadata quorum's log and snapshots. Default: __cluster_metadata in the"
                            + " first of log.dirs. Formatted once with ./isthmus broker --format.")
            .define(
                    CONTROLLER_QUORUM_ELECTION_TIMEOUT_MS,
                    Type.INT,
                    1000,
                    Range.atLeast(10),
                    Importance.LOW,
                    "How long a voter waits for the quorum leader before it stands for election.")
            .define(
                    BROKER_SESSION_TIMEOUT_MS,
                    Type.INT,
                    9000,
                    Range.atLeast(20),
                    Importance.MEDIUM,
                    "A broker whose heartbeats stop for this long is fenced: it leads nothing until it heartbeats"
                            + " again, and it stops serving as leader on its own when its last heartbeat is this old.")
            .define(
                    BROKER_HEARTBEAT_INTERVAL_MS,
                    Type.INT,
                    2000,
                    Range.atLeast(1),
                    Importance.LOW,
                    "How often a broker heartbeats to the metadata quorum; below broker.session.timeout.ms.")
            .define(
                    DEFAULT_REPLICATION_FACTOR,
                    Type.SHORT,
                    (short) 1,
                    Range.atLeast(1),
                    Importance.MEDIUM,
                    "Replicas of each partition of a topic created without a replication factor (a cluster only).")
            .define(
                    MIN_INSYNC_REPLICAS,
                    Type.INT,
                    1,
                    Range.atLeast(1),
                    Importance.HIGH,
                    "The in-sync replicas an acks=all produce needs: with fewer it is refused with"
                            + " NOT_ENOUGH_REPLICAS and nothing is appended.")
            .define(
                    REPLICA_LAG_TIME_MAX_MS,
                    Type.LONG,
                    30_000L,
                    Range.atLeast(1),
                    Importance.MEDIUM,
                    "A follower that has not caught up with its leader's log end for this long leaves the ISR.")
            .define(
                    REPLICA_FETCH_WAIT_MAX_MS,
                    Type.INT,
                    500,
                    Range.atLeast(0),
                    Importance.LOW,
                    "How long a follower's fetch waits at its leader for new data; below replica.lag.time.max.ms.")
            .define(
                    REPLICA_FETCH_MAX_BYTES,
                    Type.INT,
                    1 << 20,
                    Range.atLeast(1),
                    Importance.LOW,
                    "Bytes a follower fetches per partition and request (at least one batch).")
            .define(
                    UNCLEAN_LEADER_ELECTION_ENABLE,
                    Type.BOOLEAN,
                    false,
                    Importance.LOW,
                    "Must stay false: a leader is only ever elected from the ISR, so no acknowledged record is lost.")
            .define(
                    LISTENERS,
                    Type.LIST,
                    "PLAINTEXT://127.0.0.1:9092",
                    Importance.HIGH,
                    "Comma-separated listeners, NAME://host:port. Port 0 picks a free port.")
            .define(
                    ADVERTISED_LISTENERS,
                    Type.LIST,
                    null,
                    Importance.MEDIUM,
                    "Listeners as clients should reach them; defaults to the bound listeners.")
            .define(
                    LISTENER_SECURITY_PROTOCOL_MAP,
                    Type.LIST,
                    "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL",
                    Importance.LOW,
                    "The security protocol of each listener name, NAME:PROTOCOL pairs; protocols are PLAINTEXT, SSL,"
                            + " SASL_PLAINTEXT and SASL_SSL.")
            .define(
                    SASL_ENABLED_MECHANISMS,
                    Type.LIST,
                    "SCRAM-SHA-256,SCRAM-SHA-512",
                    Importance.MEDIUM,
                    "SASL mechanisms offered on SASL listeners: SCRAM-SHA-256 and SCRAM-SHA-512 (credentials managed"
                            + " with AlterUserScramCredentials, kept by the broker) and PLAIN (users from"
                            + " listener.name.<listener>.plain.sasl.jaas.config). Kafka's default, GSSAPI, is not"
                            + " served.")
            .define(
                    SSL_KEYSTORE_LOCATION,
                    Type.STRING,
                    null,
                    Importance.HIGH,
                    "The keystore with the broker's key and certificate, for SSL and SASL_SSL listeners.")
            .define(SSL_KEYSTORE_PASSWORD, Type.PASSWORD, null, Importance.HIGH, "The keystore's password.")
            .define(SSL_KEYSTORE_TYPE, Type.STRING, "JKS", Importance.MEDIUM, "JKS or PKCS12.")
            .define(
                    SSL_KEY_PASSWORD,
                    Type.PASSWORD,
                    null,
                    Importance.HIGH,
                    "The key's password, when it differs from the keystore's.")
            .define(
                    SSL_TRUSTSTORE_LOCATION,
                    Type.STRING,
                    null,
                    Importance.HIGH,
                    "The CAs client certificates must chain to (with ssl.client.auth).")
            .define(SSL_TRUSTSTORE_PASSWORD, Type.PASSWORD, null, Importance.HIGH, "The truststore's password.")
            .define(SSL_TRUSTSTORE_TYPE, Type.STRING, "JKS", Importance.MEDIUM, "JKS or PKCS12.")
            .define(
                    SSL_CLIENT_AUTH,
                    Type.STRING,
                    "none",
                    Importance.MEDIUM,
                    "none, requested or required: whether SSL clients must present a certificate; its subject is"
                            + " then the principal (User:<DN>).")
            .define(SSL_ENABLED_PROTOCOLS, Type.LIST, "TLSv1.2,TLSv1.3", Importance.MEDIUM, "TLS versions served.")
            .define(
                    AUTHORIZER_CLASS_NAME,
                    Type.STRING,
                    "",
                    Importance.HIGH,
                    "Empty: no authorization, every client may do everything (Kafka's default). "
                            + "io.isthmus.broker.security.AclAuthorizer, or Kafka's"
                            + " org.apache.kafka.metadata.authorizer.StandardAuthorizer as another name for it: ACLs"
                            + " managed with CreateAcls/DescribeAcls/DeleteAcls, kept by the broker, enforced on every"
                            + " API and on RDMA access grants.")
            .define(
                    SUPER_USERS,
                    Type.STRING,
                    "",
                    Importance.MEDIUM,
                    "Principals the ACLs do not bind, separated by semicolons: User:admin;User:CN=ops.")
            .define(
                    ALLOW_EVERYONE_IF_NO_ACL_FOUND,
                    Type.BOOLEAN,
                    false,
                    Importance.MEDIUM,
                    "Whether a resource no ACL applies to is open to everyone (true) or to super users only.")
            .define(
                    LOG_DIRS,
                    Type.LIST,
                    "/tmp/isthmus-logs",
                    Importance.HIGH,
                    "Comma-separated directories holding the partition logs.")
            .define(
                    NUM_PARTITIONS,
                    Type.INT,
                    1,
                    Range.atLeast(1),
                    Importance.MEDIUM,
                    "Partitions of an auto-created topic.")
            .define(
                    AUTO_CREATE_TOPICS_ENABLE,
                    Type.BOOLEAN,
                    true,
                    Importance.MEDIUM,
                    "Create a topic when a client asks for metadata of a topic that does not exist.")
            .define(
                    MAX_BROKER_PARTITIONS,
                    Type.INT,
                    4000,
                    Range.atLeast(1),
                    Importance.MEDIUM,
                    "The most partitions this broker holds (KIP-578's name); creating topics or partitions past it is"
                            + " refused with POLICY_VIOLATION. Each partition maps its segments and their indexes for"
                            + " their whole life, three mappings a segment against the kernel's vm.max_map_count"
                            + " (65530 by default), and uses segment ids, of which a broker has 65536; 4000 is"
                            + " Kafka's own advice per broker.")
            .define(
                    SOCKET_REQUEST_MAX_BYTES,
                    Type.INT,
                    100 * 1024 * 1024,
                    Range.atLeast(1024),
                    Importance.MEDIUM,
                    "The largest request frame accepted; a larger size prefix closes the connection.")
            .define(
                    NUM_NETWORK_THREADS,
                    Type.INT,
                    Math.max(1, Runtime.getRuntime().availableProcessors()),
                    Range.atLeast(1),
                    Importance.LOW,
                    "Netty event-loop threads serving connections.")
            .define(
                    CLUSTER_ID,
                    Type.STRING,
                    "isthmus-cluster",
                    Importance.LOW,
                    "The cluster id reported in Metadata and DescribeCluster.")
            .define(
                    GROUP_INITIAL_REBALANCE_DELAY_MS,
                    Type.INT,
                    0,
                    Range.atLeast(0),
                    Importance.LOW,
                    "How long the first rebalance of an empty group waits for more members.")
            .define(
                    GROUP_MIN_SESSION_TIMEOUT_MS,
                    Type.INT,
                    6000,
                    Range.atLeast(1),
                    Importance.LOW,
                    "The smallest session timeout a group member may ask for.")
            .define(
                    GROUP_MAX_SESSION_TIMEOUT_MS,
                    Type.INT,
                    1800000,
                    Range.atLeast(1),
                    Importance.LOW,
                    "The largest session timeout a group member may ask for.")
            .define(
                    TRANSACTION_MAX_TIMEOUT_MS,
                    Type.INT,
                    900000,
                    Range.atLeast(1),
                    Importance.HIGH,
                    "The largest transaction.timeout.ms a transactional producer may ask for; a larger one is"
                            + " refused with INVALID_TRANSACTION_TIMEOUT.")
            .define(
                    TRANSACTIONAL_ID_EXPIRATION_MS,
                    Type.INT,
                    604800000,
                    Range.atLeast(1),
                    Importance.LOW,
                    "How long the coordinator keeps a transactional id whose producer sent no transaction request.")
            .define(
                    TRANSACTION_ABORT_TIMED_OUT_INTERVAL_MS,
                    Type.INT,
                    10000,
                    Range.atLeast(1),
                    Importance.LOW,
                    "How often the coordinator aborts transactions open longer than their timeout (and fences their"
                            + " producers).")
            .define(
                    TRANSACTION_REMOVE_EXPIRED_INTERVAL_MS,
                    Type.INT,
                    3600000,
                    Range.atLeast(1),
                    Importance.LOW,
                    "How often the coordinator removes expired transactional ids.")
            .define(
                    TRANSACTION_STATE_LOG_SEGMENT_BYTES,
                    Type.INT,
                    104857600,
                    Range.atLeast(1 << 20),
                    Importance.LOW,
                    "Segment size of the transaction state log; when a segment fills, the live states are written"
                            + " anew and older segments deleted.")
            .define(
                    TRANSACTION_STATE_LOG_NUM_PARTITIONS,
                    Type.INT,
                    50,
                    Range.atLeast(1),
                    Importance.MEDIUM,
                    "Partitions of a cluster's replicated transaction state topic, __transaction_state; the leader"
                            + " of a transactional id's partition is its coordinator (a cluster only).")
            .define(
                    TRANSACTION_STATE_LOG_REPLICATION_FACTOR,
                    Type.SHORT,
                    (short) 3,
                    Range.atLeast(1),
                    Importance.MEDIUM,
                    "Replicas of each partition of __transaction_state; the topic is created on the first"
                            + " transactional FindCoordinator once this many brokers are up (a cluster only).")
            .define(
                    TRANSACTION_STATE_LOG_MIN_ISR,
                    Type.INT,
                    2,
                    Range.atLeast(1),
                    Importance.MEDIUM,
                    "In-sync replicas of a __transaction_state partition that must hold a coordinator's state change"
                            + " before it counts (a cluster only).")
            .define(
                    OFFSETS_TOPIC_NUM_PARTITIONS,
                    Type.INT,
                    50,
                    Range.atLeast(1),
                    Importance.MEDIUM,
                    "Partitions of a cluster's replicated topic of committed offsets, __consumer_offsets; the leader"
                            + " of a group's partition is its coordinator (a cluster only).")
            .define(
                    OFFSETS_TOPIC_REPLICATION_FACTOR,
                    Type.SHORT,
                    (short) 3,
                    Range.atLeast(1),
                    Importance.MEDIUM,
                    "Replicas of each partition of __consumer_offsets; the topic is created on the first group"
                            + " FindCoordinator once this many brokers are up (a cluster only).")
            .define(
                    OFFSETS_TOPIC_SEGMENT_BYTES,
                    Type.INT,
                    104857600,
                    Range.atLeast(1 << 20),
                    Importance.LOW,
                    "Segment size of a __consumer_offsets partition; when a segment fills, the latest offsets are"
                            + " written anew and older segments deleted (a cluster only).")
            .define(
                    OFFSETS_COMMIT_TIMEOUT_MS,
                    Type.INT,
                    5000,
                    Range.atLeast(1),
                    Importance.MEDIUM,
                    "How long an offset commit waits for min.insync.replicas replicas of its __consumer_offsets"
                            + " partition before it is answered COORDINATOR_NOT_AVAILABLE (a cluster only).")
            .define(
                    MAX_INFLIGHT_REQUESTS_PER_CONNECTION,
                    Type.INT,
                    64,
                    Range.atLeast(1),
                    Importance.LOW,
                    "Requests one connection may have in flight before the broker stops reading from it.")
            .define(
                    CONNECTIONS_MAX_IDLE_MS,
                    Type.LONG,
                    ConnectionLimits.DEFAULT_IDLE_TIMEOUT_MS,
                    Importance.MEDIUM,
                    "Close a connection after this long with nothing read or written and no request waiting for its"
                            + " answer; 0 or less never. Connections carrying an RDMA session are exempt.")
            .define(
                    REQUEST_READ_TIMEOUT_MS,
                    Type.LONG,
                    ConnectionLimits.DEFAULT_REQUEST_READ_TIMEOUT_MS,
                    Importance.LOW,
                    "How long a request frame may take from its first byte to its last while the broker reads;"
                            + " a slower one closes the connection as bad input. 0 or less: no limit.")
            .define(
                    SOCKET_RECEIVE_BUFFER_BYTES,
                    Type.INT,
                    ConnectionLimits.DEFAULT_SOCKET_BUFFER_BYTES,
                    Range.atLeast(-1),
                    Importance.MEDIUM,
                    "SO_RCVBUF of each connection (set on the listening socket, so window scaling follows); -1 the"
                            + " system's, which lets the kernel buffer tens of MB for a client the broker has stopped"
                            + " reading.")
            .define(
                    SOCKET_SEND_BUFFER_BYTES,
                    Type.INT,
                    ConnectionLimits.SYSTEM_SOCKET_BUFFER,
                    Range.atLeast(-1),
                    Importance.MEDIUM,
                    "SO_SNDBUF of each connection; -1 (the default, unlike Kafka's 102400) the system's, which grows"
                            + " only to net.ipv4.tcp_wmem's maximum (4 MiB by default) and lets large fetches stream at"
                            + " full speed; a fixed 100 KiB cost the zero-copy consumer about a fifth of its loopback"
                            + " throughput in ./isthmus bench --quick.")
            .define(
                    MAX_CONNECTIONS,
                    Type.INT,
                    Integer.MAX_VALUE,
                    Range.atLeast(1),
                    Importance.MEDIUM,
                    "Connections open at once on all listeners; one more is closed as soon as it is accepted.")
            .define(
                    MAX_CONNECTIONS_PER_IP,
                    Type.INT,
                    Integer.MAX_VALUE,
                    Range.atLeast(1),
                    Importance.MEDIUM,
                    "Connections open at once from one address; one more is closed as soon as it is accepted.")
            .define(
                    MAX_CONNECTIONS_PER_IP_OVERRIDES,
                    Type.STRING,
                    "",
                    Importance.LOW,
                    "Per-address exceptions to max.connections.per.ip, as host-or-ip:count pairs separated by"
                            + " commas, e.g. 127.0.0.1:200,client.example.com:50.")
            .define(
                    SHM_ENABLED,
                    Type.BOOLEAN,
                    true,
                    Importance.MEDIUM,
                    "Let clients on this host read the log over shared memory (transport=shm): they prove with a"
                            + " token in shm.dir, readable by the broker's OS user only, that they may read it, then"
                            + " map segment files and their metadata slots read-only.")
            .define(
                    SHM_DIR,
                    Type.STRING,
                    null,
                    Importance.LOW,
                    "The shared-memory directory (token and slot file); .isthmus-shm in the first log directory when"
                            + " unset.")
            .define(
                    SHM_MAX_CONNECTIONS,
                    Type.INT,
                    256,
                    Range.between(1, 65535),
                    Importance.LOW,
                    "Shared-memory sessions served at once; each owns a range of the slot file.")
            .define(
                    SHM_SLOTS_PER_CONNECTION,
                    Type.INT,
                    64,
                    Range.atLeast(1),
                    Importance.LOW,
                    "Metadata slots per shared-memory session: the partitions one consumer can read at once.")
            .define(
                    SHM_PRODUCE_SLOTS,
                    Type.INT,
                    16,
                    Range.between(1, 1024),
                    Importance.LOW,
                    "Staging slots a shared-memory producer may have per partition: the batches it keeps in flight"
                            + " there. Each slot is as large as the producer's biggest batch, at most"
                            + " message.max.bytes.")
            .define(
                    RDMA_ENABLED,
                    Type.BOOLEAN,
                    false,
                    Importance.HIGH,
                    "Serve the RDMA datapaths (one-sided produce and consume). Without a usable device the broker"
                            + " logs why and serves TCP only.")
            .define(
                    RDMA_DEVICE,
                    Type.STRING,
                    null,
                    Importance.MEDIUM,
                    "The RDMA device to use, e.g. mlx5_0 or rxe0; the first device when unset.")
            .define(
                    RDMA_REPLICATION_PUSH,
                    Type.BOOLEAN,
                    true,
                    Importance.MEDIUM,
                    "In a cluster, with the RDMA datapath running: push the batches of the partitions this broker"
                            + " leads to their followers with RDMA WRITE WITH IMM (KafkaDirect's push replication),"
                            + " beside the followers' TCP fetches, which carry what a push cannot (a follower's"
                            + " truncation, its records until it is granted push access, a follower without RDMA).")
            .define(RDMA_PORT, Type.INT, 1, Range.atLeast(1), Importance.LOW, "The device port to use.")
            .define(
                    RDMA_GID_INDEX,
                    Type.INT,
                    1,
                    Range.atLeast(0),
                    Importance.MEDIUM,
                    "The GID table index of the port; on RoCE v2 the IPv4-mapped GID, usually 1.")
            .define(
                    RDMA_CQ_SIZE,
                    Type.INT,
                    16384,
                    Range.atLeast(64),
                    Importance.LOW,
                    "Entries of the broker's completion queue. Connections are refused rather than let it overflow.")
            .define(
                    RDMA_QP_MAX_SEND_WR,
                    Type.INT,
                    64,
                    Range.atLeast(4),
                    Importance.LOW,
                    "Send queue depth of each client's queue pair (acknowledgements).")
            .define(
                    RDMA_QP_MAX_RECV_WR,
                    Type.INT,
                    256,
                    Range.atLeast(1),
                    Importance.LOW,
                    "Receive queue depth of each client's queue pair: the most produce credits a client can get.")
            .define(
                    RDMA_PRODUCE_CREDITS,
                    Type.INT,
                    32,
                    Range.between(1, ProducerStateTable.CACHED_BATCHES),
                    Importance.LOW,
                    "Produce WRITE WITH IMMs a client may have unacknowledged (receives kept posted for it). At most"
                            + " the batches the broker remembers per idempotent producer, so that every write whose"
                            + " ack a lost connection swallowed is recognised as a duplicate when it is retried.")
            .define(
                    RDMA_MAX_CONNECTIONS,
                    Type.INT,
                    64,
                    Range.between(1, 65535),
                    Importance.LOW,
                    "RDMA clients served at once; each owns a range of the metadata slot region.")
            .define(
                    RDMA_SLOTS_PER_CONNECTION,
                    Type.INT,
                    64,
                    Range.atLeast(1),
                    Importance.LOW,
                    "Metadata slots per RDMA client: the partitions one consumer connection can read at once.")
            .define(
                    RDMA_PRODUCE_RESERVATION_TIMEOUT_MS,
                    Type.LONG,
                    5000L,
                    Range.atLeast(1),
                    Importance.MEDIUM,
                    "Shared RDMA produce: how long the broker waits for the write of a space reservation before it"
                            + " revokes access to the segment (every pending write of it is answered ACCESS_REVOKED"
                            + " and the segment keeps its committed tail, so no hole is ever visible). Producers ask"
                            + " for access again after as long again. Keep it below the clients' request.timeout.ms.");

    private BrokerConfig(final Map<String, String> values) {
        super(DEFINITION, values, false);
    }

    /**
     * The settings given that neither this table nor the log's ({@link LogConfig#DEFINITION}) knows, nor a listener's
     * PLAIN JAAS entry ({@code listener.name.<listener>.plain.sasl.jaas.config}): a misspelling, or a Kafka setting
     * isthmus has no use for (another mechanism's JAAS entry among them). The broker ignores them, as Kafka does, and
     * says so when it starts.
     */
    public Set<String> unknownSettings() {
        final Set<String> unknown = new TreeSet<>();
        for (final String key : originalsStrings().keySet()) {
            if (!DEFINITION.names().contains(key)
                    && !LogConfig.DEFINITION.names().contains(key)
                    && !(key.startsWith(LISTENER_PREFIX) && key.endsWith(PLAIN_JAAS_SUFFIX))) {
                unknown.add(key);
            }
        }
        return unknown;
    }

    /** Settings from a map of raw values; unknown keys are kept for the log's configuration. */
    public static BrokerConfig of(final Map<String, String> values) {
        return new BrokerConfig(Map.copyOf(values));
    }

    /**
     * Settings from an optional properties file, then {@code key=value} overrides in order.
     *
     * @throws ConfigException naming the offending file, argument or key
     */
    public static BrokerConfig load(final Path file, final List<String> overrides) {
        final Map<String, String> values = new HashMap<>();
        if (file != null) {
            final Properties properties = new Properties();
            try (Reader reader = Files.newBufferedReader(file)) {
                properties.load(reader);
            } catch (final IOException e) {
                throw new ConfigException("cannot read config file=" + file + ": " + e.getMessage());
            }
            properties
                    .stringPropertyNames()
                    .forEach(key -> values.put(key, properties.getProperty(key).trim()));
        }
        values.putAll(parseSettings(overrides));
        return of(values);
    }

    /**
     * {@code key=value} arguments as a map, later ones winning.
     *
     * @throws ConfigException naming the first argument that is not {@code key=value}
     */
    public static Map<String, String> parseSettings(final List<String> arguments) {
        final Map<String, String> values = new HashMap<>();
        for (final String argument : arguments) {
            final int eq = argument.indexOf('=');
            if (eq <= 0) {
                throw new ConfigException("expected key=value but got argument='" + argument + "'");
            }
            values.put(
                    argument.substring(0, eq).trim(), argument.substring(eq + 1).trim());
        }
        return values;
    }

    public int nodeId() {
        return getInt(NODE_ID);
    }

    public List<Endpoint> listeners() {
        return endpoints(getList(LISTENERS), LISTENERS);
    }

    /** The advertised listeners, or an empty list when clients should see the bound addresses. */
    public List<Endpoint> advertisedListeners() {
        final List<String> advertised = getList(ADVERTISED_LISTENERS);
        return advertised == null ? List.of() : endpoints(advertised, ADVERTISED_LISTENERS);
    }

    public List<Path> logDirs() {
        final List<Path> dirs = new ArrayList<>();
        for (final String dir : getList(LOG_DIRS)) {
            dirs.add(Path.of(dir));
        }
        if (dirs.isEmpty()) {
            throw new ConfigException(LOG_DIRS, "", "at least one log directory is needed");
        }
        return dirs;
    }

    public int numPartitions() {
        return getInt(NUM_PARTITIONS);
    }

    /** {@code min.insync.replicas}: the ISR an acks=all produce needs. */
    public int offsetsTopicSegmentBytes() {
        return getInt(OFFSETS_TOPIC_SEGMENT_BYTES);
    }

    public int minInsyncReplicas() {
        return getInt(MIN_INSYNC_REPLICAS);
    }

    public boolean autoCreateTopics() {
        return getBoolean(AUTO_CREATE_TOPICS_ENABLE);
    }

    public int maxBrokerPartitions() {
        return getInt(MAX_BROKER_PARTITIONS);
    }

    public int socketRequestMaxBytes() {
        return getInt(SOCKET_REQUEST_MAX_BYTES);
    }

    public int networkThreads() {
        return getInt(NUM_NETWORK_THREADS);
    }

    public String clusterId() {
        return getString(CLUSTER_ID);
    }

    public int groupInitialRebalanceDelayMs() {
        return getInt(GROUP_INITIAL_REBALANCE_DELAY_MS);
    }

    public int groupMinSessionTimeoutMs() {
        return getInt(GROUP_MIN_SESSION_TIMEOUT_MS);
    }

    public int groupMaxSessionTimeoutMs() {
        return getInt(GROUP_MAX_SESSION_TIMEOUT_MS);
    }

    public int transactionMaxTimeoutMs() {
        return getInt(TRANSACTION_MAX_TIMEOUT_MS);
    }

    public int transactionalIdExpirationMs() {
        return getInt(TRANSACTIONAL_ID_EXPIRATION_MS);
    }

    public int transactionAbortTimedOutIntervalMs() {
        return getInt(TRANSACTION_ABORT_TIMED_OUT_INTERVAL_MS);
    }

    public int transactionRemoveExpiredIntervalMs() {
        return getInt(TRANSACTION_REMOVE_EXPIRED_INTERVAL_MS);
    }

    public int transactionStateLogSegmentBytes() {
        return getInt(TRANSACTION_STATE_LOG_SEGMENT_BYTES);
    }

    public int maxInflightRequestsPerConnection() {
        return getInt(MAX_INFLIGHT_REQUESTS_PER_CONNECTION);
    }

    /**
     * How each listener is secured: its protocol from {@code listener.security.protocol.map}, a TLS context from
     * {@code ssl.*} for SSL and SASL_SSL, the mechanisms of {@code sasl.enabled.mechanisms} for SASL ones.
     *
     * @throws ConfigException for a listener name the map does not know, a protocol that is not one, or missing TLS or
     *     SASL settings
     */
    public Map<String, ListenerSecurity> listenerSecurity(final ScramCredentialStore credentials) {
        final Map<String, SecurityProtocol> protocols = listenerProtocols();
        SslContext tls = null;
        final Map<String, ListenerSecurity> security = new HashMap<>();
        for (final Endpoint listener : listeners()) {
            final SecurityProtocol protocol = protocols.get(listener.listenerName());
            if (protocol == null) {
                throw new ConfigException(
                        LISTENER_SECURITY_PROTOCOL_MAP,
                        getList(LISTENER_SECURITY_PROTOCOL_MAP).toString(),
                        "no security protocol for listener " + listener.listenerName());
            }
            final boolean needsTls = protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL;
            if (needsTls && tls == null) {
                tls = tlsSettings().serverContext();
            }
            final boolean needsSasl =
                    protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL;
            security.put(
                    listener.listenerName(),
                    new ListenerSecurity(
                            protocol,
                            needsTls ? tls : null,
                            needsSasl
                                    ? new SaslMechanisms(
                                            listener.listenerName(),
                                            getList(SASL_ENABLED_MECHANISMS),
                                            credentials,
                                            originalsStrings())
                                    : null));
        }
        return security;
    }

    /**
     * The security protocol of each listener name in {@code listener.security.protocol.map}.
     *
     * @throws ConfigException for an entry that is not NAME:PROTOCOL or a protocol that is not one
     */
    public Map<String, SecurityProtocol> listenerProtocols() {
        final Map<String, SecurityProtocol> protocols = new HashMap<>();
        for (final String entry : getList(LISTENER_SECURITY_PROTOCOL_MAP)) {
            final int colon = entry.indexOf(':');
            if (colon <= 0) {
                throw new ConfigException(LISTENER_SECURITY_PROTOCOL_MAP, entry, "expected NAME:PROTOCOL");
            }
            final String protocol = entry.substring(colon + 1).trim().toUpperCase(Locale.ROOT);
            if (!SecurityProtocol.names().contains(protocol)) {
                throw new ConfigException(
                        LISTENER_SECURITY_PROTOCOL_MAP,
                        entry,
                        "unknown security protocol " + protocol + " (known: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL)");
            }
            protocols.put(
                    entry.substring(0, colon).trim().toUpperCase(Locale.ROOT), SecurityProtocol.forName(protocol));
        }
        return protocols;
    }

    /**
     * The ACL authorizer {@code authorizer.class.name} asks for, over the ACLs of {@code metadataDir}, or empty when it
     * is not set.
     *
     * @throws ConfigException for an authorizer this broker does not have, or a malformed {@code super.users}
     */
    public Optional<AclAuthorizer> aclAuthorizer(final Path metadataDir) {
        final String name = getString(AUTHORIZER_CLASS_NAME).trim();
        if (name.isEmpty()) {
            return Optional.empty();
        }
        if (!name.equals(AclAuthorizer.CLASS_NAME) && !AclAuthorizer.KAFKA_CLASS_NAMES.contains(name)) {
            throw new ConfigException(
                    AUTHORIZER_CLASS_NAME,
                    name,
                    "unknown authorizer; this broker has " + AclAuthorizer.CLASS_NAME + " (also accepted under Kafka's"
                            + " names " + AclAuthorizer.KAFKA_CLASS_NAMES + ")");
        }
        final Set<KafkaPrincipal> superUsers;
        try {
            superUsers = AclAuthorizer.parseSuperUsers(getString(SUPER_USERS));
        } catch (final IllegalArgumentException e) {
            throw new ConfigException(SUPER_USERS, getString(SUPER_USERS), e.getMessage());
        }
        return Optional.of(
                new AclAuthorizer(AclStore.open(metadataDir), superUsers, getBoolean(ALLOW_EVERYONE_IF_NO_ACL_FOUND)));
    }

    private TlsSettings tlsSettings() {
        return new TlsSettings(
                getString(SSL_KEYSTORE_LOCATION),
                password(SSL_KEYSTORE_PASSWORD),
                getString(SSL_KEYSTORE_TYPE),
                password(SSL_KEY_PASSWORD),
                getString(SSL_TRUSTSTORE_LOCATION),
                password(SSL_TRUSTSTORE_PASSWORD),
                getString(SSL_TRUSTSTORE_TYPE),
                getString(SSL_CLIENT_AUTH),
                getList(SSL_ENABLED_PROTOCOLS));
    }

    private String password(final String key) {
        final Password password = getPassword(key);
        return password == null ? null : password.value();
    }

    /**
     * The network layer's limits.
     *
     * @throws ConfigException if an entry of {@code max.connections.per.ip.overrides} is malformed or its host does not
     *     resolve
     */
    public ConnectionLimits connectionLimits() {
        return new ConnectionLimits(
                socketRequestMaxBytes(),
                maxInflightRequestsPerConnection(),
                getLong(CONNECTIONS_MAX_IDLE_MS),
                getLong(REQUEST_READ_TIMEOUT_MS),
                getInt(MAX_CONNECTIONS),
                getInt(MAX_CONNECTIONS_PER_IP),
                perIpOverrides(getString(MAX_CONNECTIONS_PER_IP_OVERRIDES)),
                getInt(SOCKET_RECEIVE_BUFFER_BYTES),
                getInt(SOCKET_SEND_BUFFER_BYTES));
    }

    private static Map<InetAddress, Integer> perIpOverrides(final String spec) {
        final Map<InetAddress, Integer> overrides = new HashMap<>();
        for (final String entry : spec.split(",")) {
            if (entry.isBlank()) {
                continue;
            }
            final int colon = entry.lastIndexOf(':');
            if (colon <= 0) {
                throw new ConfigException(
                        MAX_CONNECTIONS_PER_IP_OVERRIDES, spec, "expected host:count, got '" + entry + "'");
            }
            final String host = entry.substring(0, colon).trim();
            final int count;
            try {
                count = Integer.parseInt(entry.substring(colon + 1).trim());
            } catch (final NumberFormatException e) {
                throw new ConfigException(
                        MAX_CONNECTIONS_PER_IP_OVERRIDES, spec, "the count of '" + entry + "' is not a number");
            }
            if (count < 1) {
                throw new ConfigException(
                        MAX_CONNECTIONS_PER_IP_OVERRIDES, spec, "the count of '" + entry + "' must be at least 1");
            }
            try {
                overrides.put(InetAddress.getByName(host), count);
            } catch (final UnknownHostException e) {
                throw new ConfigException(MAX_CONNECTIONS_PER_IP_OVERRIDES, spec, "cannot resolve host '" + host + "'");
            }
        }
        return overrides;
    }

    public boolean rdmaEnabled() {
        return getBoolean(RDMA_ENABLED);
    }

    private static List<Endpoint> endpoints(final List<String> specs, final String key) {
        final List<Endpoint> endpoints = new ArrayList<>();
        for (final String spec : specs) {
            endpoints.add(Endpoint.parse(spec, key));
        }
        if (endpoints.isEmpty()) {
            throw new ConfigException(key, "", "at least one listener is needed");
        }
        return endpoints;
    }
}
