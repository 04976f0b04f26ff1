package io.isthmus.client.producer;

import io.isthmus.client.cluster.BrokerConnections;
import io.isthmus.client.cluster.ClusterMetadata;
import io.isthmus.client.cluster.TopicMetadata;
import io.isthmus.client.config.Transport;
import io.isthmus.client.network.KafkaConnection;
import io.isthmus.client.network.ReceiveBufferPool;
import io.isthmus.client.rdma.RdmaProducerTransport;
import io.isthmus.client.shm.ShmAttachable;
import io.isthmus.client.shm.ShmProducerTransport;
import io.isthmus.ffi.Rdma;
import io.isthmus.ffi.RdmaAvailability;
import io.isthmus.protocol.record.HeaderList;
import io.isthmus.protocol.record.RecordBatchBuilder;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * A Kafka-protocol producer that builds RecordBatch v2 batches in place in pooled off-heap buffers.
 *
 * <p>Settings have Kafka's names and defaults ({@link ProducerConfig}); idempotence is on by default. Records go to the
 * partition given, else keyed records to {@code murmur2(key) % partitions} exactly as Kafka's default partitioner, and
 * records without key to a sticky partition that moves on each full batch.
 *
 * <p>Three ways to learn about delivery:
 *
 * <ul>
 *   <li>{@link #send(String, int, long, byte[], byte[], HeaderList)} and the {@code MemorySegment} twin with no
 *       completion, plus a {@link DeliveryListener} per batch: allocates nothing per record;
 *   <li>a {@link Callback} per record, run on the sender thread;
 *   <li>{@link #sendAsync} returning a {@link CompletableFuture} per record.
 * </ul>
 *
 * <p>{@link #claim} writes a value in place (zero-copy produce). Thread-safe; callbacks run on the sender thread.
 *
 * <p>With {@code transactional.id}, Kafka's transactions: {@link #initTransactions()} once, then {@link
 * #beginTransaction()}, sends, optionally {@link #sendOffsetsToTransaction}, and {@link #commitTransaction()} or
 * {@link #abortTransaction()}; a transactional producer sends only inside a transaction, over TCP. {@link
 * #transactionHandle()} and {@link #resumeTransaction} let an exactly-once sink finish a transaction after a restart.
 */
public final class IsthmusProducer implements AutoCloseable {
    /** Let the partitioner choose. */
    public static final int ANY_PARTITION = -1;
    /** Use the current time as the record timestamp. */
    public static final long NOW = -1;

    private final ProducerConfig config;
    private final Transport transport;
    /** The shared-memory session when {@link #transport} is SHM; handed to the sender, which closes it. */
    private ShmProducerTransport shm;

    private final RecordAccumulator accumulator;
    /** Package-private for tests that pause it at a chosen point (see {@link Sender#failingTransactionSeen}). */
    final Sender sender;

    private final Thread senderThread;
    private final BrokerConnections metadataConnections;
    private final ReceiveBufferPool receivePool = new ReceiveBufferPool(64 * 1024);
    private final DeliveryListener listener;
    /** The transaction state with {@code transactional.id}; null without. */
    /** Package-private for tests that pause an abort (see {@link TransactionManager#abortFlushed}). */
    final TransactionManager transactions;

    private volatile boolean closed;

    public IsthmusProducer(final Map<String, ?> settings) {
        this(new ProducerConfig(settings), null);
    }

    public IsthmusProducer(final ProducerConfig config) {
        this(config, null);
    }

    /** A producer that tells {@code listener} about every batch delivered or failed. */
    public IsthmusProducer(final ProducerConfig config, final DeliveryListener listener) {
        this.config = config;
        this.listener = listener;
        final var bootstrap = BrokerConnections.parseBootstrap(config.bootstrapServers());
        this.metadataConnections = new BrokerConnections(
                bootstrap,
                config.clientId(),
                receivePool,
                config.requestTimeout(),
                config.connectionSetupTimeout(),
                config.security(),
                config.socketBuffers());
        try {
            this.transport = resolveTransport(config, metadataConnections);
        } catch (final RuntimeException e) {
            metadataConnections.close();
            receivePool.close();
            throw e;
        }
        this.accumulator = new RecordAccumulator(config, listener, transport == Transport.RDMA);
        if (config.transactional()) {
            // The producer id comes with initTransactions() (or resumeTransaction), from the transaction coordinator.
            this.transactions = new TransactionManager(
                    config, accumulator, new TransactionRequests(config, metadataConnections), this::flush);
            accumulator.transactions(transactions);
        } else {
            this.transactions = null;
            try {
                if (config.idempotence()) {
                    final InitProducerIdResponseData init = initProducerId();
                    accumulator.producerIdentity(init.producerId(), init.producerEpoch());
                }
            } catch (final RuntimeException e) {
                if (shm != null) {
                    shm.close();
                }
                metadataConnections.close();
                receivePool.close();
                throw e;
            }
        }
        this.sender = new Sender(
                config,
                accumulator,
                new BrokerConnections(
                        bootstrap,
                        config.clientId(),
                        receivePool,
                        config.requestTimeout(),
                        config.connectionSetupTimeout(),
                        config.security(),
                        config.socketBuffers()),
                transport == Transport.RDMA
                        ? new RdmaProducerTransport(
                                config.rdmaSettings(), config.clientId(), accumulator.bufferSlab(), config.acks())
                        : shm,
                transactions);
        accumulator.wakeSender(sender::wakeup);
        this.senderThread = Thread.ofPlatform()
                .name("isthmus-producer-sender-" + config.clientId())
                .daemon(true)
                .start(sender);
    }

    /**
     * The datapath {@code transport} resolves to, as for the consumer: shared memory ({@code shm}, or {@code auto} when
     * the broker advertises shared-memory produce and this process can attach to it: same host, allowed to read its
     * directory; the session is kept in {@link #shm}), then RDMA (see {@link Transport#resolve}), else TCP. A
     * transactional producer uses TCP ({@code transport=rdma} or {@code shm} with {@code transactional.id} is refused by
     * {@link ProducerConfig}): one-sided writes bypass the Produce request the broker checks transactions on.
     *
     * @throws UnsupportedOperationException for {@code transport=shm} or {@code rdma} where it cannot work, with the
     *     reason
     */
    private Transport resolveTransport(final ProducerConfig config, final BrokerConnections connections) {
        final Transport asked = config.transport();
        if (asked == Transport.TCP || config.transactional()) {
            return Transport.TCP;
        }
        if (asked == Transport.SHM || asked == Transport.AUTO) {
            shm = openShm(config, connections.any(), asked == Transport.SHM);
            if (shm != null) {
                return Transport.SHM;
            }
        }
        final RdmaAvailability local = Rdma.availability();
        final KafkaConnection broker = connections.any();
        return asked.resolve(local, local.usable() && broker.advertisesRdmaProduce());
    }

    /**
     * The shared-memory transport, attached to the bootstrap broker, or null where {@code auto} passes shared memory by
     * (logged with the reason).
     */
    private static ShmProducerTransport openShm(
            final ProducerConfig config, final KafkaConnection broker, final boolean required) {
        if (!broker.advertisesShmProduce()) {
            if (required) {
                throw new UnsupportedOperationException(Transport.SHM_UNAVAILABLE
                        + "the broker does not advertise the isthmus shared-memory produce requests (shm.enabled=false,"
                        + " or its directory could not be prepared); use --transport tcp, rdma or auto");
            }
            return null;
        }
        return ShmAttachable.attachOrPassBy(
                new ShmProducerTransport(
                        config.clientId(),
                        config.requestTimeout().toMillis(),
                        config.security(),
                        config.maxInFlight(),
                        config.acks()),
                broker.address(),
                required);
    }

    /** The shared-memory transport's counters (null unless shared memory is in use); for tests and metrics. */
    public ShmProducerTransport shmTransport() {
        return shm;
    }

    /** The transport in use: TCP, RDMA or SHM (what {@code transport=auto} resolved to). */
    public Transport transport() {
        return transport;
    }

    /** InitProducerId, retried while the broker answers with a retriable error (coordinator loading ...). */
    private InitProducerIdResponseData initProducerId() {
        final long deadline = System.nanoTime() + config.maxBlockMs() * 1_000_000L;
        long backoffMs = 20;
        while (true) {
            final InitProducerIdResponseData init = (InitProducerIdResponseData) metadataConnections
                    .any()
                    .request(
                            ApiKeys.INIT_PRODUCER_ID,
                            new InitProducerIdRequestData()
                                    .setTransactionalId(null)
                                    .setTransactionTimeoutMs(Integer.MAX_VALUE)
                                    .setProducerId(-1)
                                    .setProducerEpoch((short) -1),
                            config.requestTimeout());
            final Errors error = Errors.forCode(init.errorCode());
            if (error == Errors.NONE) {
                return init;
            }
            if (!(error.exception() instanceof org.apache.kafka.common.errors.RetriableException)
                    || System.nanoTime() - deadline > 0) {
                throw error.exception("InitProducerId failed: clientId=" + config.clientId() + ", error=" + error);
            }
            try {
                Thread.sleep(backoffMs);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptException(e);
            }
            backoffMs = Math.min(500, backoffMs * 2);
        }
    }

    public ProducerConfig config() {
        return config;
    }

    /**
     * The producer id (-1 without idempotence, and before {@link #initTransactions()} with {@code transactional.id}).
     */
    public long producerId() {
        return accumulator.producerId();
    }

    public short producerEpoch() {
        return accumulator.producerEpoch();
    }

    // ------------------------------------------------------------------ transactions
    //
    // Kafka's transactional producer API (transactional.id set), with Kafka's exceptions:
    // - ProducerFencedException: a newer producer with the same transactional.id took over (fatal: close the producer);
    // - TransactionAbortableException: the transaction failed (call abortTransaction() and go on);
    // - KafkaException: other fatal errors;
    // - IllegalStateException: a call the transaction's state does not allow (as kafka-clients);
    // - TimeoutException: the coordinator did not answer within max.block.ms (the call may be made again).

    /**
     * Gets this transactional id's producer id and epoch from its transaction coordinator: fences every earlier
     * producer with the same {@code transactional.id} and aborts a transaction one of them left open. Once per
     * producer, before the first {@link #beginTransaction()}.
     */
    public void initTransactions() {
        requireTransactions().initTransactions();
    }

    /** Opens a transaction: every record sent until {@link #commitTransaction()} or {@link #abortTransaction()} is in it. */
    public void beginTransaction() {
        requireTransactions().beginTransaction();
    }

    /**
     * Adds a consumer group's offsets to the open transaction (AddOffsetsToTxn, then TxnOffsetCommit to the group's
     * coordinator): they become the group's committed offsets if the transaction commits, and never if it aborts. The
     * consume-transform-produce loop of exactly-once processing; {@code groupMetadata} comes from the consumer ({@link
     * io.isthmus.client.consumer.IsthmusConsumer#groupMetadata()}), so that a member the group no longer has cannot
     * commit (the transaction becomes abortable with {@link org.apache.kafka.clients.consumer.CommitFailedException}).
     */
    public void sendOffsetsToTransaction(
            final Map<TopicPartition, OffsetAndMetadata> offsets, final ConsumerGroupMetadata groupMetadata) {
        requireTransactions().sendOffsetsToTransaction(offsets, groupMetadata);
    }

    /**
     * As {@link #sendOffsetsToTransaction(Map, ConsumerGroupMetadata)} for a group by id alone (no generation check),
     * with offsets as the isthmus consumer gives them ({@link io.isthmus.client.consumer.IsthmusConsumer#position}: the
     * next offset to read per partition).
     */
    public void sendOffsetsToTransaction(final Map<TopicPartition, Long> offsets, final String groupId) {
        final Map<TopicPartition, OffsetAndMetadata> withMetadata = new HashMap<>();
        offsets.forEach((tp, offset) -> withMetadata.put(tp, new OffsetAndMetadata(offset)));
        sendOffsetsToTransaction(withMetadata, new ConsumerGroupMetadata(groupId));
    }

    /**
     * Sends every record of the open transaction, waits until all are written, then commits the transaction (EndTxn).
     *
     * @throws org.apache.kafka.common.errors.TransactionAbortableException if a send of the transaction failed (its
     *     cause) or the transaction failed otherwise: call {@link #abortTransaction()}
     * @throws org.apache.kafka.common.errors.ProducerFencedException if a newer producer took the transactional id
     * @throws IllegalStateException if no transaction is open
     */
    public void commitTransaction() {
        requireTransactions().commitTransaction();
    }

    /**
     * Aborts the open transaction: records not sent yet fail with {@link
     * org.apache.kafka.common.errors.TransactionAbortedException}, those sent are written and marked aborted, so no
     * {@code read_committed} consumer ever sees them. Allowed after an abortable error.
     */
    public void abortTransaction() {
        requireTransactions().abortTransaction();
    }

    /**
     * The open transaction's transactional id, producer id and epoch: what finishes it after a restart ({@link
     * #resumeTransaction}). An exactly-once sink flushes the transaction, takes the handle into its checkpoint and
     * commits when the checkpoint completes.
     *
     * @throws IllegalStateException if no transaction is open
     */
    public TransactionHandle transactionHandle() {
        return requireTransactions().handle();
    }

    /**
     * Takes over the transaction {@code handle} names, which another producer with this {@code transactional.id}
     * opened and left open (it flushed and then died, or closed without ending it), so that {@link
     * #commitTransaction()} or {@link #abortTransaction()} finishes it; Flink's {@code resumeTransaction}. Only on a
     * producer that has not called {@link #initTransactions()}, which would abort that transaction. The resumed
     * transaction takes no sends and no offsets; once it is finished, {@link #initTransactions()} makes the producer
     * usable for transactions of its own.
     *
     * @throws IllegalArgumentException if the handle is for another transactional id
     * @throws IllegalStateException if this producer called {@link #initTransactions()} already
     */
    public void resumeTransaction(final TransactionHandle handle) {
        requireTransactions().resumeTransaction(handle);
    }

    private TransactionManager requireTransactions() {
        ensureOpen();
        if (transactions == null) {
            throw new IllegalStateException(
                    "Transactional method invoked on a non-transactional producer: set transactional.id, clientId="
                            + config.clientId());
        }
        return transactions;
    }

    /**
     * The partition count of {@code topic} as this producer knows it (fetching its metadata if needed); partitions
     * added to the topic count once a metadata refresh has seen them (every {@code metadata.max.age.ms}, or a send to
     * one of them).
     */
    public int partitionCount(final String topic) {
        return queues(topic).partitions.length;
    }

    private TopicQueues queues(final String topic) {
        final TopicQueues known = accumulator.topic(topic);
        return known != null ? known : fetchTopic(topic, 0);
    }

    /**
     * The queues of {@code topic} from fresh metadata unless the producer already has at least {@code partitions} of
     * them (0: any).
     */
    private TopicQueues fetchTopic(final String topic, final int partitions) {
        synchronized (metadataConnections) {
            final TopicQueues known = accumulator.topic(topic);
            if (known != null && known.partitions.length >= Math.max(1, partitions)) {
                return known;
            }
            final ClusterMetadata metadata =
                    metadataConnections.awaitTopics(List.of(topic), Duration.ofMillis(config.maxBlockMs()));
            final TopicMetadata t = metadata.topic(topic);
            return accumulator.register(t);
        }
    }

    private PartitionQueue queue(
            final String topic, final int partition, final MemorySegment keySegment, final byte[] keyArray) {
        ensureOpen();
        TopicQueues queues = queues(topic);
        final int p;
        if (partition >= 0) {
            if (partition >= queues.partitions.length) {
                // The topic may have gained partitions since its metadata was fetched: look once more, as Kafka's
                // producer waits for metadata that has the partition.
                queues = fetchTopic(topic, partition + 1);
            }
            if (partition >= queues.partitions.length) {
                throw new IllegalArgumentException("no such partition: topic=" + topic + ", partition=" + partition
                        + ", partitions=" + queues.partitions.length + " (after a metadata refresh)");
            }
            p = partition;
        } else if (keySegment != null) {
            p = Murmur2.partitionForKey(keySegment, queues.partitions.length);
        } else if (keyArray != null) {
            p = Murmur2.partitionForKey(keyArray, queues.partitions.length);
        } else {
            p = queues.stickyPartition();
        }
        return queues.partitions[p];
    }

    private static long timestamp(final long timestamp) {
        return timestamp == NOW ? System.currentTimeMillis() : timestamp;
    }

    // ------------------------------------------------------------------ send
    //
    // Each send comes in two payload types, arrays and segments, each written straight into the batch (nothing
    // allocated, nothing wrapped), and three shapes: the short form, the full form with an optional per-record
    // callback, and a future. All of them end in one append.

    /** Sends a record without a per-record completion (see {@link DeliveryListener}); allocates nothing. */
    public void send(final String topic, final byte[] key, final byte[] value) {
        append(topic, ANY_PARTITION, NOW, null, key, null, value, null, null);
    }

    /**
     * Sends a record to {@code partition} ({@link #ANY_PARTITION}: by key, or sticky without one) at {@code timestamp}
     * ({@link #NOW}) and calls {@code callback} when it is acknowledged or fails; with a null callback nothing is
     * allocated. Key, value and headers may be null.
     */
    public void send(
            final String topic,
            final int partition,
            final long timestamp,
            final byte[] key,
            final byte[] value,
            final HeaderList headers,
            final Callback callback) {
        append(topic, partition, timestamp, null, key, null, value, headers, callback);
    }

    /** Sends a record; the future completes when it is acknowledged. */
    public CompletableFuture<RecordMetadata> sendAsync(
            final String topic,
            final int partition,
            final long timestamp,
            final byte[] key,
            final byte[] value,
            final HeaderList headers) {
        final CompletableFuture<RecordMetadata> future = new CompletableFuture<>();
        try {
            append(topic, partition, timestamp, null, key, null, value, headers, future);
        } catch (final ApiException refused) {
            // As KafkaProducer: what the broker refuses (an unauthorized topic) fails the future, not the call.
            future.completeExceptionally(refused);
        }
        return future;
    }

    /** Sends a record without a per-record completion; allocates nothing. Key, value may be null. */
    public void send(final String topic, final MemorySegment key, final MemorySegment value) {
        append(topic, ANY_PARTITION, NOW, key, null, value, null, null, null);
    }

    /** As {@link #send(String, int, long, byte[], byte[], HeaderList, Callback)}, from memory segments. */
    public void send(
            final String topic,
            final int partition,
            final long timestamp,
            final MemorySegment key,
            final MemorySegment value,
            final HeaderList headers,
            final Callback callback) {
        append(topic, partition, timestamp, key, null, value, null, headers, callback);
    }

    /** As {@link #sendAsync(String, int, long, byte[], byte[], HeaderList)}, from memory segments. */
    public CompletableFuture<RecordMetadata> sendAsync(
            final String topic,
            final int partition,
            final long timestamp,
            final MemorySegment key,
            final MemorySegment value,
            final HeaderList headers) {
        final CompletableFuture<RecordMetadata> future = new CompletableFuture<>();
        try {
            append(topic, partition, timestamp, key, null, value, null, headers, future);
        } catch (final ApiException refused) {
            // As KafkaProducer: what the broker refuses (an unauthorized topic) fails the future, not the call.
            future.completeExceptionally(refused);
        }
        return future;
    }

    /**
     * Every send ends here. A payload comes either as segments or as arrays (the other pair null), and goes into the
     * batch through the builder's matching append, without being wrapped.
     */
    private void append(
            final String topic,
            final int partition,
            final long timestamp,
            final MemorySegment keySegment,
            final byte[] keyArray,
            final MemorySegment valueSegment,
            final byte[] valueArray,
            final HeaderList headers,
            final Object completion) {
        final PartitionQueue queue = queue(topic, partition, keySegment, keyArray);
        if (transactions != null) {
            transactions.beforeAppend(queue);
        }
        final long ts = timestamp(timestamp);
        final boolean sticky = partition < 0 && keySegment == null && keyArray == null;
        final boolean arrays = keyArray != null || valueArray != null;
        final int keyLength = arrays ? length(keyArray) : size(keySegment);
        final int valueLength = arrays ? length(valueArray) : size(valueSegment);
        queue.lock.lock();
        try {
            final RecordBatchBuilder builder = accumulator.reserve(queue, ts, keyLength, valueLength, headers, sticky);
            final int delta = arrays
                    ? builder.append(ts, keyArray, valueArray, headers)
                    : builder.append(ts, keySegment, valueSegment, headers);
            accumulator.appended(queue, delta, completion, ts);
        } finally {
            queue.lock.unlock();
        }
    }

    private static int size(final MemorySegment segment) {
        return segment == null ? -1 : (int) segment.byteSize();
    }

    private static int length(final byte[] array) {
        return array == null ? -1 : array.length;
    }

    // ------------------------------------------------------------------ claim

    /**
     * Claims room for a record whose value of {@code valueLength} bytes the caller writes in place, then {@link
     * ValueClaim#commit()}s. The calling thread holds the partition's batch until the commit.
     */
    public ValueClaim claim(
            final String topic,
            final int partition,
            final long timestamp,
            final MemorySegment key,
            final int valueLength,
            final HeaderList headers,
            final ValueClaim claim) {
        final PartitionQueue queue = queue(topic, partition, key, null);
        if (transactions != null) {
            transactions.beforeAppend(queue);
        }
        final long ts = timestamp(timestamp);
        queue.lock.lock();
        try {
            final RecordBatchBuilder builder =
                    accumulator.reserve(queue, ts, size(key), valueLength, headers, partition < 0 && key == null);
            final int delta = builder.recordCount();
            final long at = builder.claimValue(ts, key, valueLength, headers);
            accumulator.appended(queue, delta, null, ts);
            claim.set(this, queue, builder.buffer(), at, valueLength);
            return claim;
        } catch (final RuntimeException e) {
            queue.lock.unlock();
            throw e;
        }
    }

    void commitClaim(final PartitionQueue queue) {
        queue.lock.unlock();
    }

    // ------------------------------------------------------------------ flush, close

    /** Sends everything appended so far without waiting for linger.ms and waits until all of it is completed. */
    public void flush() {
        ensureOpen();
        sender.flushBegin();
        try {
            while (!accumulator.awaitCompletion(Duration.ofSeconds(1).toNanos())) {
                sender.wakeup();
                if (!senderThread.isAlive()) {
                    throw new IllegalStateException("producer sender thread died: clientId=" + config.clientId());
                }
            }
        } finally {
            sender.flushEnd();
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("producer is closed: clientId=" + config.clientId());
        }
    }

    /** Delivers what was sent, waiting up to {@code timeout}; what is left then fails. */
    public void close(final Duration timeout) {
        if (closed) {
            return;
        }
        closed = true;
        sender.initiateClose(false);
        try {
            senderThread.join(Math.max(1, timeout.toMillis()));
            if (senderThread.isAlive()) {
                sender.initiateClose(true);
                senderThread.join();
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            sender.initiateClose(true);
            throw new InterruptException(e);
        } finally {
            if (!senderThread.isAlive()) {
                accumulator.close();
            }
            metadataConnections.close();
            receivePool.close();
        }
    }

    @Override
    public void close() {
        close(Duration.ofMillis(Long.MAX_VALUE / 2_000_000L));
    }

    /** Batches not yet completed; for tests and metrics. */
    long incompleteBatches() {
        return accumulator.incomplete();
    }
}
