package io.isthmus.client.producer;

import io.isthmus.client.cluster.BrokerConnections;
import io.isthmus.client.cluster.BrokerNode;
import io.isthmus.client.cluster.ClusterMetadata;
import io.isthmus.client.cluster.TopicMetadata;
import io.isthmus.client.network.KafkaConnection;
import io.isthmus.client.network.OneSidedProducerTransport;
import io.isthmus.client.network.Response;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidMetadataException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer's I/O thread: seals lingering batches, sends sealed batches to their partition leaders in Produce
 * requests (at most one batch per partition per request, up to {@code max.in.flight.requests.per.connection} requests
 * pipelined per broker) and completes batches from the responses.
 *
 * <p>Retries never reorder or duplicate: a batch keeps its bytes and its sequence; when a batch of a partition must
 * be retried, nothing more of that partition is sent until all of its in-flight batches are answered, and then the
 * failed ones go again in sequence order. A retried batch the broker already has is answered as a duplicate by the
 * broker's idempotence check and completes normally.
 */
final class Sender implements Runnable {
    /**
     * Runs on the sender thread when it has just found the transaction failing, before it fails that transaction's
     * unsent batches: a test pauses the sender here to let the application end the abort and begin the next transaction
     * in between, the window in which that transaction's batches must be left alone.
     */
    volatile Runnable failingTransactionSeen = () -> {};

    private static final Logger LOG = LoggerFactory.getLogger(Sender.class);
    private static final int MAX_REQUEST_BYTES = 1024 * 1024;
    private static final long IDLE_PARK_NANOS = 50_000_000L;

    private final ProducerConfig config;
    private final RecordAccumulator accumulator;
    private final BrokerConnections connections;
    private final Map<Integer, ArrayDeque<InFlightRequest>> inFlight = new HashMap<>();
    private final Set<String> staleTopics = new HashSet<>();
    private long nextMetadataRefreshNanos;
    private volatile boolean running = true;
    private volatile boolean forceClose;
    private volatile int flushRequests;
    private volatile Thread thread;

    private record InFlightRequest(int correlationId, List<ProducerBatch> batches, long sentNanos) {}

    /** Hands batches over without Produce requests when set (transport rdma or shm). */
    private final OneSidedProducerTransport oneSided;

    private final OneSidedProducerTransport.AckHandler oneSidedAcks = this::onOneSidedAck;
    private int oneSidedIdle;

    /** The transaction state with {@code transactional.id} (TCP only); null without. */
    private final TransactionManager transactions;

    Sender(final ProducerConfig config, final RecordAccumulator accumulator, final BrokerConnections connections) {
        this(config, accumulator, connections, null, null);
    }

    Sender(
            final ProducerConfig config,
            final RecordAccumulator accumulator,
            final BrokerConnections connections,
            final OneSidedProducerTransport oneSided,
            final TransactionManager transactions) {
        if (oneSided != null && transactions != null) {
            throw new IllegalArgumentException("transactional produce over RDMA or shared memory is not supported");
        }
        this.config = config;
        this.accumulator = accumulator;
        this.connections = connections;
        this.oneSided = oneSided;
        this.transactions = transactions;
        this.nextMetadataRefreshNanos = System.nanoTime() + config.metadataMaxAgeMs() * 1_000_000L;
    }

    void wakeup() {
        final Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
        if (oneSided != null) {
            oneSided.wakeup();
        }
    }

    void flushBegin() {
        flushRequests++;
        wakeup();
    }

    void flushEnd() {
        flushRequests--;
    }

    /** Stops after everything is delivered ({@code force=false}) or at once, failing what is left. */
    void initiateClose(final boolean force) {
        running = false;
        forceClose |= force;
        wakeup();
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        try {
            while (running || (!forceClose && accumulator.incomplete() > 0)) {
                runOnce();
            }
        } catch (final RuntimeException e) {
            LOG.error("producer sender failed: clientId={}", config.clientId(), e);
        } finally {
            final org.apache.kafka.common.KafkaException closedError = new org.apache.kafka.common.KafkaException(
                    "producer closed before the batch was delivered: clientId=" + config.clientId());
            if (oneSided != null) {
                oneSided.failAll(oneSidedAcks, closedError.getMessage());
                oneSided.close();
            }
            failEverything(closedError);
            connections.close();
        }
    }

    private void runOnce() {
        if (oneSided != null) {
            runOnceOneSided();
            return;
        }
        final long now = System.nanoTime();
        final boolean sealAll = flushRequests > 0 || !running;
        failUnsentOfFailedTransaction();
        final long lingerWait = accumulator.sealExpired(now, sealAll);
        expireMetadata(now);
        refreshStaleMetadata();
        final boolean sent = sendReady(now);
        final boolean received = receiveAvailable();
        expireRetries(now);
        if (sent || received) {
            return;
        }
        final long waitNanos = Math.min(Math.min(lingerWait, IDLE_PARK_NANOS), transactionWait(now));
        final Map.Entry<Integer, ArrayDeque<InFlightRequest>> busy = firstBusy();
        if (busy != null) {
            // Wait for a response, bounded so that lingering batches and new work are looked at soon.
            final long wait = Math.min(waitNanos, 1_000_000L);
            receiveFrom(busy.getKey(), busy.getValue(), wait);
        } else if (waitNanos > 0) {
            LockSupport.parkNanos(this, waitNanos);
        }
    }

    /**
     * The one-sided loop (RDMA, shared memory): write sealed batches (in order per partition, within credits), take
     * acks. While writes are in flight it waits as the transport knows best (RDMA spins, yields, then parks briefly;
     * shared memory blocks on its control socket), and parks until the linger deadline or a wakeup when nothing is.
     */
    private void runOnceOneSided() {
        final long now = System.nanoTime();
        final boolean sealAll = flushRequests > 0 || !running;
        final long lingerWait = accumulator.sealExpired(now, sealAll);
        expireMetadata(now);
        refreshStaleMetadata();
        final boolean sent = writeReady(now);
        final boolean received = oneSided.poll(oneSidedAcks) > 0;
        expireRetries(now);
        if (sent || received) {
            oneSidedIdle = 0;
            return;
        }
        if (oneSided.inFlight() > 0) {
            oneSided.awaitOutcomes(oneSidedIdle++, Math.min(200_000L, lingerWait));
            return;
        }
        final long waitNanos = Math.min(lingerWait, IDLE_PARK_NANOS);
        if (waitNanos > 0) {
            LockSupport.parkNanos(this, waitNanos);
        }
    }

    /**
     * Writes what each partition has sealed until a partition must wait for credits or a roll; true if any. A write the
     * transport refuses with a retriable error (access held or revoked, connection lost) stays first in its partition
     * and goes again after {@code retry.backoff.ms}; any other error, or running out of retries or {@code
     * delivery.timeout.ms}, fails the batch.
     */
    private boolean writeReady(final long now) {
        boolean wrote = false;
        final ClusterMetadata metadata = connections.metadata();
        for (final PartitionQueue queue : accumulator.queues) {
            final int leader = queue.leader;
            if (leader < 0) {
                continue;
            }
            while (true) {
                // Batches whose access was revoked go again first, in order, once none of the partition's are in
                // flight (those behind a revoked write are revoked too).
                final boolean retry = !queue.retries.isEmpty();
                if (retry && queue.inFlight > 0) {
                    break;
                }
                final ProducerBatch batch;
                if (retry) {
                    batch = queue.retries.get(0);
                    if (batch.retryAtNanos - now > 0) {
                        break;
                    }
                } else {
                    synchronized (queue.sealed) {
                        batch = queue.sealed.peekFirst();
                    }
                }
                if (batch == null) {
                    break;
                }
                final BrokerNode node = metadata == null ? null : metadata.node(leader);
                if (node == null) {
                    if (queue.stream == null) {
                        staleTopics.add(queue.topic);
                        break;
                    }
                } else if (queue.stream == null) {
                    queue.stream = oneSided.stream(queue.topic, queue.partition, node.address());
                } else {
                    // The partition's leader may have moved (a refreshed metadata): access is asked for there.
                    queue.stream.leader(node.address());
                }
                final boolean written;
                try {
                    written = oneSided.tryWrite(queue.stream, batch.buffer, batch.sizeInBytes, batch);
                } catch (final RuntimeException e) {
                    takeWritten(queue, retry);
                    LOG.debug("one-sided write not made: {} cause={}", batch, e.getMessage());
                    if (e instanceof InvalidMetadataException || e instanceof NetworkException) {
                        staleTopics.add(queue.topic);
                    }
                    batch.attempts++;
                    retryOrFail(batch, e, now);
                    wrote = true;
                    continue;
                }
                if (!written) {
                    break;
                }
                takeWritten(queue, retry);
                batch.attempts++;
                queue.inFlight++;
                wrote = true;
            }
        }
        return wrote;
    }

    private static void takeWritten(final PartitionQueue queue, final boolean retry) {
        if (retry) {
            queue.retries.remove(0);
        } else {
            synchronized (queue.sealed) {
                queue.sealed.pollFirst();
            }
        }
    }

    private void onOneSidedAck(final Object token, final long baseOffset, final RuntimeException error) {
        final ProducerBatch batch = (ProducerBatch) token;
        batch.queue.inFlight--;
        if (error == null) {
            accumulator.complete(batch, baseOffset, null);
        } else {
            if (error instanceof InvalidMetadataException || error instanceof NetworkException) {
                // Not the leader (any more), unknown there, or out of reach: the metadata names where to go now.
                staleTopics.add(batch.queue.topic);
            }
            retryOrFail(batch, error, System.nanoTime());
        }
    }

    private Map.Entry<Integer, ArrayDeque<InFlightRequest>> firstBusy() {
        for (final Map.Entry<Integer, ArrayDeque<InFlightRequest>> e : inFlight.entrySet()) {
            if (!e.getValue().isEmpty()) {
                return e;
            }
        }
        return null;
    }

    /**
     * Every {@code metadata.max.age.ms} the metadata of every topic sent to is refreshed even though nothing failed, as
     * in Kafka's producer: that is how partitions added to a topic (CreatePartitions) come into use for keyed and
     * sticky records, whose partition depends on the count.
     */
    private void expireMetadata(final long now) {
        if (now - nextMetadataRefreshNanos < 0) {
            return;
        }
        nextMetadataRefreshNanos = now + config.metadataMaxAgeMs() * 1_000_000L;
        staleTopics.addAll(accumulator.topicNames());
    }

    private void refreshStaleMetadata() {
        if (staleTopics.isEmpty()) {
            return;
        }
        try {
            final ClusterMetadata metadata = connections.refresh(new ArrayList<>(staleTopics));
            for (final String topic : staleTopics) {
                final TopicMetadata t = metadata.topic(topic);
                if (t != null && t.error() == Errors.NONE) {
                    accumulator.register(t);
                }
            }
            staleTopics.clear();
        } catch (final RuntimeException e) {
            LOG.debug("metadata refresh failed, will retry: topics={}", staleTopics, e);
        }
    }

    /** Builds and sends one request per broker with room in its pipeline; true if anything was sent. */
    private boolean sendReady(final long now) {
        boolean sentAny = false;
        Map<Integer, List<ProducerBatch>> byNode = null;
        for (final PartitionQueue queue : accumulator.queues) {
            final int leader = queue.leader;
            if (leader < 0) {
                continue;
            }
            final ArrayDeque<InFlightRequest> pipeline = inFlight.get(leader);
            if (pipeline != null && pipeline.size() >= config.maxInFlight()) {
                continue;
            }
            final ProducerBatch batch = nextBatch(queue, now);
            if (batch == null) {
                continue;
            }
            if (byNode == null) {
                byNode = new HashMap<>();
            }
            final List<ProducerBatch> list = byNode.computeIfAbsent(leader, n -> new ArrayList<>());
            list.add(batch);
        }
        if (byNode == null) {
            return false;
        }
        for (final Map.Entry<Integer, List<ProducerBatch>> entry : byNode.entrySet()) {
            sendTo(entry.getKey(), entry.getValue(), now);
            sentAny = true;
        }
        return sentAny;
    }

    /**
     * The next batch of a partition to send, or null: retries first (once nothing is in flight), then sealed ones. A
     * transactional producer sends only while its transaction is open or committing, and a partition's batches only
     * once the coordinator has added the partition to the transaction.
     */
    private ProducerBatch nextBatch(final PartitionQueue queue, final long now) {
        if (!queue.retries.isEmpty()) {
            if (queue.inFlight > 0) {
                return null;
            }
            final ProducerBatch retry = queue.retries.get(0);
            if (retry.retryAtNanos - now > 0 || (transactions != null && !transactions.mayProduce(queue, now))) {
                return null;
            }
            queue.retries.remove(0);
            return retry;
        }
        if (config.idempotence() && !queue.sequenceKnownToBroker && queue.inFlight > 0) {
            return null;
        }
        if (transactions != null) {
            final boolean any;
            synchronized (queue.sealed) {
                any = !queue.sealed.isEmpty();
            }
            if (!any || !transactions.mayProduce(queue, now)) {
                return null;
            }
        }
        synchronized (queue.sealed) {
            return queue.sealed.pollFirst();
        }
    }

    /**
     * In a transaction that failed or is being aborted, the batches not sent yet fail at once rather than be written
     * (Kafka's producer does the same): nothing more of the transaction should reach the log. In-flight batches are
     * answered as usual; one that must be retried is failed here next round.
     */
    private void failUnsentOfFailedTransaction() {
        if (transactions == null) {
            return;
        }
        final RuntimeException error = transactions.unsentBatchesError();
        if (error == null) {
            return;
        }
        failingTransactionSeen.run();
        // Only the failed transaction's batches: between the state read above and the sealing below, the application
        // may have seen the abort end, begun the next transaction and opened batches of it.
        final long failing = transactions.failingTransaction();
        for (final PartitionQueue queue : accumulator.queues) {
            if (queue.open != null && queue.open.transaction == failing && queue.lock.tryLock()) {
                // tryLock: an application thread holding the lock may be waiting for a buffer only completions free.
                try {
                    if (queue.open != null && queue.open.transaction == failing) {
                        accumulator.seal(queue);
                    }
                } finally {
                    queue.lock.unlock();
                }
            }
            final Iterator<ProducerBatch> retries = queue.retries.iterator();
            while (retries.hasNext()) {
                final ProducerBatch batch = retries.next();
                if (batch.transaction == failing) {
                    retries.remove();
                    accumulator.complete(batch, -1, error);
                }
            }
            ProducerBatch batch;
            while ((batch = nextSealedOf(queue, failing)) != null) {
                accumulator.complete(batch, -1, error);
            }
        }
    }

    /** The oldest sealed batch of the queue if it belongs to transaction {@code transaction} (they are in order). */
    private static ProducerBatch nextSealedOf(final PartitionQueue queue, final long transaction) {
        synchronized (queue.sealed) {
            final ProducerBatch first = queue.sealed.peekFirst();
            return first != null && first.transaction == transaction ? queue.sealed.pollFirst() : null;
        }
    }

    /** How long the sender may park before partitions waiting for AddPartitionsToTxn should be tried again. */
    private long transactionWait(final long now) {
        if (transactions == null) {
            return Long.MAX_VALUE;
        }
        final long next = transactions.nextAddNanos();
        return next == 0 ? Long.MAX_VALUE : Math.max(0, next - now);
    }

    private void sendTo(final int node, final List<ProducerBatch> batches, final long now) {
        final KafkaConnection connection;
        try {
            connection = connections.node(node);
        } catch (final RuntimeException e) {
            LOG.debug("cannot connect to broker: node={}", node, e);
            for (final ProducerBatch batch : batches) {
                // The broker may be gone for good: its partitions' leaders are looked up again, as Kafka's client does
                // after a disconnect, rather than retried there until the batch expires.
                staleTopics.add(batch.queue.topic);
                retryOrFail(batch, e, now);
            }
            return;
        }
        // A transactional producer stays below Produce 12, which would let a broker with transaction version 2 add the
        // partition to the transaction itself: this producer adds its partitions explicitly (TransactionRequests).
        final short maxVersion =
                transactions != null ? TransactionRequests.PRODUCE_MAX_VERSION : ApiKeys.PRODUCE.latestVersion();
        final boolean byId = connection.version(ApiKeys.PRODUCE, maxVersion) >= 13;
        final ProduceRequestData request = new ProduceRequestData()
                .setTransactionalId(config.transactionalId())
                .setAcks(config.acks())
                .setTimeoutMs((int)
                        Math.min(Integer.MAX_VALUE, config.requestTimeout().toMillis()));
        final Map<String, ProduceRequestData.TopicProduceData> byTopic = new HashMap<>();
        final List<ProducerBatch> sent = new ArrayList<>(batches.size());
        int bytes = 0;
        for (final ProducerBatch batch : batches) {
            if (!sent.isEmpty() && bytes + batch.sizeInBytes > MAX_REQUEST_BYTES) {
                // Does not fit this request: back to the front of its partition, in order.
                batch.queue.addRetry(batch);
                continue;
            }
            bytes += batch.sizeInBytes;
            final PartitionQueue queue = batch.queue;
            final ProduceRequestData.TopicProduceData topicData = byTopic.computeIfAbsent(queue.topic, t -> {
                final ProduceRequestData.TopicProduceData d = new ProduceRequestData.TopicProduceData();
                if (byId) {
                    d.setTopicId(queue.topicId);
                } else {
                    d.setName(t);
                }
                request.topicData().add(d);
                return d;
            });
            topicData
                    .partitionData()
                    .add(new ProduceRequestData.PartitionProduceData()
                            .setIndex(queue.partition)
                            .setRecords(MemoryRecords.readableRecords(batch.bytes())));
            batch.attempts++;
            queue.inFlight++;
            sent.add(batch);
        }
        final boolean expectResponse = config.acks() != 0;
        final int correlationId;
        try {
            correlationId = connection.send(ApiKeys.PRODUCE, request, expectResponse, maxVersion);
        } catch (final RuntimeException e) {
            connections.disconnect(node);
            for (final ProducerBatch batch : sent) {
                batch.queue.inFlight--;
                staleTopics.add(batch.queue.topic);
                retryOrFail(batch, e, now);
            }
            failInFlight(node, e, now);
            return;
        }
        if (!expectResponse) {
            for (final ProducerBatch batch : sent) {
                batch.queue.inFlight--;
                accumulator.complete(batch, -1, null);
            }
            return;
        }
        inFlight.computeIfAbsent(node, n -> new ArrayDeque<>()).addLast(new InFlightRequest(correlationId, sent, now));
    }

    private boolean receiveAvailable() {
        boolean any = false;
        for (final Map.Entry<Integer, ArrayDeque<InFlightRequest>> e : inFlight.entrySet()) {
            if (!e.getValue().isEmpty()) {
                any |= receiveFrom(e.getKey(), e.getValue(), 0);
            }
        }
        return any;
    }

    private boolean receiveFrom(final int node, final ArrayDeque<InFlightRequest> pipeline, final long waitNanos) {
        final long now = System.nanoTime();
        final KafkaConnection connection;
        try {
            connection = connections.node(node);
            if (connection.inFlight() != pipeline.size()) {
                throw new org.apache.kafka.common.errors.NetworkException("connection to node " + node + " was reset");
            }
            final Response response = connection.receive(waitNanos);
            if (response == null) {
                final InFlightRequest oldest = pipeline.peekFirst();
                if (now - oldest.sentNanos() > config.requestTimeout().toNanos()) {
                    throw new TimeoutException("produce request timed out: node=" + node + ", requestTimeoutMs="
                            + config.requestTimeout().toMillis());
                }
                return false;
            }
            final InFlightRequest request = pipeline.pollFirst();
            try {
                handleResponse(request, (ProduceResponseData) response.parse(), System.nanoTime());
            } finally {
                response.release();
            }
            return true;
        } catch (final org.apache.kafka.common.errors.NetworkException | TimeoutException e) {
            LOG.debug("produce connection failed: node={}", node, e);
            connections.disconnect(node);
            failInFlight(node, e, now);
            return true;
        }
    }

    /** Every in-flight batch of the node goes back for retry (in sequence order per partition). */
    private void failInFlight(final int node, final RuntimeException cause, final long now) {
        final ArrayDeque<InFlightRequest> pipeline = inFlight.get(node);
        if (pipeline == null) {
            return;
        }
        InFlightRequest request;
        while ((request = pipeline.pollFirst()) != null) {
            for (final ProducerBatch batch : request.batches()) {
                batch.queue.inFlight--;
                staleTopics.add(batch.queue.topic);
                retryOrFail(batch, cause, now);
            }
        }
    }

    private void handleResponse(final InFlightRequest request, final ProduceResponseData response, final long now) {
        for (final ProducerBatch batch : request.batches()) {
            final PartitionQueue queue = batch.queue;
            queue.inFlight--;
            final ProduceResponseData.PartitionProduceResponse answer = find(response, queue);
            if (answer == null) {
                retryOrFail(
                        batch,
                        new org.apache.kafka.common.errors.NetworkException("produce response has no answer for "
                                + queue + ": correlationId=" + request.correlationId()),
                        now);
                continue;
            }
            final Errors error = Errors.forCode(answer.errorCode());
            if (error == Errors.NONE || error == Errors.DUPLICATE_SEQUENCE_NUMBER) {
                queue.sequenceKnownToBroker = true;
            }
            if (error == Errors.NONE) {
                accumulator.complete(batch, answer.baseOffset(), null);
            } else if (error == Errors.DUPLICATE_SEQUENCE_NUMBER) {
                // The broker has this batch from an earlier attempt: delivered exactly once.
                accumulator.complete(batch, answer.baseOffset(), null);
            } else {
                final RuntimeException exception = error.exception("produce failed: topic=" + queue.topic
                        + ", partition=" + queue.partition + ", baseSequence=" + batch.baseSequence + ", error="
                        + error + (answer.errorMessage() == null ? "" : ", message=" + answer.errorMessage()));
                if (error == Errors.NOT_LEADER_OR_FOLLOWER
                        || error == Errors.UNKNOWN_TOPIC_OR_PARTITION
                        || error == Errors.UNKNOWN_TOPIC_ID) {
                    staleTopics.add(queue.topic);
                }
                retryOrFail(batch, exception, now);
            }
        }
    }

    private static ProduceResponseData.PartitionProduceResponse find(
            final ProduceResponseData response, final PartitionQueue queue) {
        for (final ProduceResponseData.TopicProduceResponse topic : response.responses()) {
            final boolean matches = queue.topic.equals(topic.name())
                    || (topic.topicId() != null
                            && !Uuid.ZERO_UUID.equals(topic.topicId())
                            && topic.topicId().equals(queue.topicId));
            if (!matches) {
                continue;
            }
            for (final ProduceResponseData.PartitionProduceResponse p : topic.partitionResponses()) {
                if (p.index() == queue.partition) {
                    return p;
                }
            }
        }
        return null;
    }

    private void retryOrFail(final ProducerBatch batch, final RuntimeException cause, final long now) {
        final boolean retriable = cause instanceof RetriableException
                || cause instanceof org.apache.kafka.common.errors.OutOfOrderSequenceException;
        if (retriable && batch.attempts <= config.retries() && batch.deadlineNanos - now > 0) {
            batch.retryAtNanos = now + config.retryBackoffMs() * 1_000_000L;
            batch.queue.addRetry(batch);
            return;
        }
        final RuntimeException error = retriable
                ? new TimeoutException(
                        "batch not delivered within delivery.timeout.ms=" + config.deliveryTimeoutMs() + " or retries="
                                + config.retries() + ": " + batch + ", last error=" + cause.getMessage(),
                        cause)
                : cause;
        accumulator.complete(batch, -1, error);
    }

    private void expireRetries(final long now) {
        for (final PartitionQueue queue : accumulator.queues) {
            if (queue.retries.isEmpty() || queue.inFlight > 0) {
                continue;
            }
            final ProducerBatch head = queue.retries.get(0);
            if (head.deadlineNanos - now <= 0) {
                queue.retries.remove(0);
                accumulator.complete(
                        head,
                        -1,
                        new TimeoutException(
                                "batch expired after delivery.timeout.ms=" + config.deliveryTimeoutMs() + ": " + head));
            }
        }
    }

    private static ProducerBatch nextSealed(final PartitionQueue queue) {
        synchronized (queue.sealed) {
            return queue.sealed.pollFirst();
        }
    }

    private void failEverything(final RuntimeException cause) {
        for (final Integer node : new ArrayList<>(inFlight.keySet())) {
            final ArrayDeque<InFlightRequest> pipeline = inFlight.get(node);
            InFlightRequest request;
            while ((request = pipeline.pollFirst()) != null) {
                for (final ProducerBatch batch : request.batches()) {
                    batch.queue.inFlight--;
                    accumulator.complete(batch, -1, cause);
                }
            }
        }
        for (final PartitionQueue queue : accumulator.queues) {
            for (final ProducerBatch batch : queue.retries) {
                accumulator.complete(batch, -1, cause);
            }
            queue.retries.clear();
            queue.lock.lock();
            try {
                if (queue.open != null) {
                    accumulator.seal(queue);
                }
                ProducerBatch batch;
                while ((batch = nextSealed(queue)) != null) {
                    accumulator.complete(batch, -1, cause);
                }
            } finally {
                queue.lock.unlock();
            }
        }
    }
}
