package io.isthmus.client.producer;

import io.isthmus.client.cluster.BrokerConnections;
import io.isthmus.client.config.ConfigReader;
import io.isthmus.client.config.Transport;
import io.isthmus.client.network.SocketBuffers;
import io.isthmus.client.rdma.RdmaClientSettings;
import io.isthmus.client.security.SecuritySettings;
import io.isthmus.protocol.record.CompressionType;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/** Producer settings, with Kafka's names and defaults. */
public final class ProducerConfig {
    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
    public static final String CLIENT_ID = "client.id";
    public static final String ACKS = "acks";
    public static final String LINGER_MS = "linger.ms";
    public static final String BATCH_SIZE = "batch.size";
    public static final String BUFFER_MEMORY = "buffer.memory";
    public static final String MAX_BLOCK_MS = "max.block.ms";
    public static final String MAX_IN_FLIGHT = "max.in.flight.requests.per.connection";
    public static final String COMPRESSION_TYPE = "compression.type";
    public static final String RETRIES = "retries";
    public static final String RETRY_BACKOFF_MS = "retry.backoff.ms";
    public static final String DELIVERY_TIMEOUT_MS = "delivery.timeout.ms";
    public static final String REQUEST_TIMEOUT_MS = "request.timeout.ms";
    /** Kafka's name: how long opening a broker connection (connect, ApiVersions, SASL) may take. */
    public static final String SOCKET_CONNECTION_SETUP_TIMEOUT_MS = "socket.connection.setup.timeout.ms";

    public static final String ENABLE_IDEMPOTENCE = "enable.idempotence";
    public static final String METADATA_MAX_AGE_MS = "metadata.max.age.ms";
    public static final String TRANSACTIONAL_ID = "transactional.id";
    public static final String TRANSACTION_TIMEOUT_MS = "transaction.timeout.ms";
    public static final String TRANSPORT = "transport";

    private static final Set<String> KNOWN = ConfigReader.union(
            SecuritySettings.NAMES,
            SocketBuffers.NAMES,
            Set.of(
                    BOOTSTRAP_SERVERS,
                    CLIENT_ID,
                    ACKS,
                    LINGER_MS,
                    BATCH_SIZE,
                    BUFFER_MEMORY,
                    MAX_BLOCK_MS,
                    MAX_IN_FLIGHT,
                    COMPRESSION_TYPE,
                    RETRIES,
                    RETRY_BACKOFF_MS,
                    DELIVERY_TIMEOUT_MS,
                    REQUEST_TIMEOUT_MS,
                    SOCKET_CONNECTION_SETUP_TIMEOUT_MS,
                    ENABLE_IDEMPOTENCE,
                    METADATA_MAX_AGE_MS,
                    TRANSACTIONAL_ID,
                    TRANSACTION_TIMEOUT_MS,
                    TRANSPORT,
                    RdmaClientSettings.DEVICE,
                    RdmaClientSettings.PORT,
                    RdmaClientSettings.GID_INDEX,
                    RdmaClientSettings.READ_BYTES,
                    RdmaClientSettings.CREDITS,
                    RdmaClientSettings.PRODUCE_MODE));
    private static final AtomicInteger CLIENT_IDS = new AtomicInteger();

    private final String bootstrapServers;
    private final String clientId;
    private final short acks;
    private final long lingerMs;
    private final int batchSize;
    private final long bufferMemory;
    private final long maxBlockMs;
    private final int maxInFlight;
    private final CompressionType compression;
    private final int retries;
    private final long retryBackoffMs;
    private final long deliveryTimeoutMs;
    private final long requestTimeoutMs;
    private final long connectionSetupTimeoutMs;
    private final boolean idempotence;
    private final long metadataMaxAgeMs;
    private final String transactionalId;
    private final int transactionTimeoutMs;
    private final Transport transport;
    private final RdmaClientSettings rdmaSettings;
    private final SecuritySettings security;
    private final SocketBuffers socketBuffers;

    public ProducerConfig(final Map<String, ?> settings) {
        final ConfigReader r = new ConfigReader(settings, KNOWN, "producer");
        bootstrapServers = r.string(BOOTSTRAP_SERVERS, null);
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("producer setting missing: key=" + BOOTSTRAP_SERVERS);
        }
        clientId = r.string(CLIENT_ID, "isthmus-producer-" + CLIENT_IDS.incrementAndGet());
        final String ackValue = r.oneOf(ACKS, "all", "all", "-1", "0", "1");
        acks = switch (ackValue) {
            case "0" -> 0;
            case "1" -> 1;
            default -> -1;
        };
        lingerMs = r.longValue(LINGER_MS, 5, 0);
        batchSize = r.integer(BATCH_SIZE, 16384, 128);
        bufferMemory = r.longValue(BUFFER_MEMORY, 32L * 1024 * 1024, batchSize);
        maxBlockMs = r.longValue(MAX_BLOCK_MS, 60_000, 0);
        maxInFlight = r.integer(MAX_IN_FLIGHT, 5, 1);
        compression = CompressionType.forName(r.string(COMPRESSION_TYPE, "none"));
        retries = r.integer(RETRIES, Integer.MAX_VALUE, 0);
        retryBackoffMs = r.longValue(RETRY_BACKOFF_MS, 100, 0);
        requestTimeoutMs = r.longValue(REQUEST_TIMEOUT_MS, 30_000, 1);
        connectionSetupTimeoutMs =
                r.longValue(SOCKET_CONNECTION_SETUP_TIMEOUT_MS, BrokerConnections.DEFAULT_SETUP_TIMEOUT.toMillis(), 1);
        deliveryTimeoutMs = r.longValue(DELIVERY_TIMEOUT_MS, 120_000, 1);
        idempotence = r.bool(ENABLE_IDEMPOTENCE, true);
        metadataMaxAgeMs = r.longValue(METADATA_MAX_AGE_MS, 300_000, 0);
        transactionalId = r.string(TRANSACTIONAL_ID, null);
        transactionTimeoutMs = r.integer(TRANSACTION_TIMEOUT_MS, 60_000, 1);
        transport = Transport.forName(r.string(TRANSPORT, "auto"));
        security = SecuritySettings.from(r);
        socketBuffers = SocketBuffers.from(r, SocketBuffers.DEFAULT);
        rdmaSettings = RdmaClientSettings.from(r, requestTimeoutMs, security);
        if (idempotence && acks != -1) {
            throw new IllegalArgumentException("enable.idempotence=true needs acks=all: acks=" + ackValue
                    + " (set enable.idempotence=false to use acks=" + ackValue + ")");
        }
        if (transactionalId != null) {
            if (transactionalId.isEmpty()) {
                throw new IllegalArgumentException(TRANSACTIONAL_ID + " must not be empty (leave it unset for a"
                        + " producer without transactions)");
            }
            if (!idempotence) {
                throw new IllegalArgumentException("transactional.id needs enable.idempotence=true: transactional.id="
                        + transactionalId + " (Kafka's rule: transactions are built on the idempotent producer)");
            }
            if (transport == Transport.RDMA || transport == Transport.SHM) {
                // The one-sided produce paths hand batches over without a Produce request, so the broker cannot check
                // them against the transaction coordinator; refusing is better than a silent TCP.
                throw new IllegalArgumentException("transactional.id needs transport=tcp or auto: transactional produce"
                        + " over RDMA or shared memory is not supported (their writes bypass the Produce request the"
                        + " broker checks transactions on); transactional.id=" + transactionalId + ", transport="
                        + transport.configName());
            }
        }
        if (idempotence && maxInFlight > 5) {
            throw new IllegalArgumentException("enable.idempotence=true allows at most 5 in-flight requests: "
                    + MAX_IN_FLIGHT + "=" + maxInFlight);
        }
    }

    /** Every setting name the isthmus producer knows; any other key is refused. */
    public static Set<String> names() {
        return KNOWN;
    }

    public static ProducerConfig of(final Properties properties) {
        return new ProducerConfig(ConfigReader.toMap(properties));
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    public String clientId() {
        return clientId;
    }

    /** -1 (all), 0 or 1. */
    public short acks() {
        return acks;
    }

    public long lingerMs() {
        return lingerMs;
    }

    public int batchSize() {
        return batchSize;
    }

    public long bufferMemory() {
        return bufferMemory;
    }

    public long maxBlockMs() {
        return maxBlockMs;
    }

    public int maxInFlight() {
        return maxInFlight;
    }

    public CompressionType compression() {
        return compression;
    }

    public int retries() {
        return retries;
    }

    public long retryBackoffMs() {
        return retryBackoffMs;
    }

    public long deliveryTimeoutMs() {
        return deliveryTimeoutMs;
    }

    public Duration requestTimeout() {
        return Duration.ofMillis(requestTimeoutMs);
    }

    /** {@code socket.connection.setup.timeout.ms}: the longest a new broker connection may take to be ready. */
    public Duration connectionSetupTimeout() {
        return Duration.ofMillis(connectionSetupTimeoutMs);
    }

    public boolean idempotence() {
        return idempotence;
    }

    /**
     * How old the metadata of the topics sent to may grow before the sender refreshes it unasked; that refresh is how
     * partitions added to a topic come into use for keyed and sticky records.
     */
    public long metadataMaxAgeMs() {
        return metadataMaxAgeMs;
    }

    /** The transactional id ({@code transactional.id}), or null for a producer without transactions. */
    public String transactionalId() {
        return transactionalId;
    }

    /** Whether {@code transactional.id} is set: the producer then writes only inside transactions. */
    public boolean transactional() {
        return transactionalId != null;
    }

    /**
     * {@code transaction.timeout.ms} (Kafka's default 60000): how long the transaction coordinator lets a transaction
     * stay open before it aborts it; sent with InitProducerId.
     */
    public int transactionTimeoutMs() {
        return transactionTimeoutMs;
    }

    /** {@code security.protocol} and SASL: how every connection of this client authenticates. */
    /** {@code receive.buffer.bytes} and {@code send.buffer.bytes} of every broker connection. */
    public SocketBuffers socketBuffers() {
        return socketBuffers;
    }

    public SecuritySettings security() {
        return security;
    }

    /** The {@code rdma.*} settings, used with transport rdma (or auto where RDMA is picked). */
    public RdmaClientSettings rdmaSettings() {
        return rdmaSettings;
    }

    public Transport transport() {
        return transport;
    }
}
