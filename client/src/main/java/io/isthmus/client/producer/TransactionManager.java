package io.isthmus.client.producer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.InvalidPidMappingException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionAbortableException;
import org.apache.kafka.common.errors.TransactionAbortedException;
import org.apache.kafka.common.errors.UnknownProducerIdException;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A transactional producer's transaction state, kept as kafka-clients' {@code TransactionManager} keeps it: which
 * transaction is open, which partitions it has, and whether it failed, abortably (the application must {@link
 * #abortTransaction}) or fatally (the producer is done: fenced by a newer producer with the same {@code
 * transactional.id}, or an error that leaves nothing to do).
 *
 * <p>Who does what: the application thread opens, commits and aborts transactions and adds group offsets to them,
 * waiting for the coordinator ({@link TransactionRequests}); a send to a partition the open transaction does not have
 * yet puts it on a pending list ({@link #beforeAppend}), and the sender adds every pending partition in one
 * AddPartitionsToTxn before it sends that partition's first batch ({@link #mayProduce}), as kafka-clients batches
 * them. A batch that fails makes the transaction abortable ({@link #batchFailed}); in an abortable or fatal state, and
 * while aborting, the sender fails the batches it has not sent ({@link #unsentBatchesError}), so that an abort does not
 * write what it is about to abort.
 *
 * <p>Sequences: a failed batch leaves a gap in its partition's sequence, which the broker would answer with
 * OUT_OF_ORDER_SEQUENCE forever. After such a transaction the abort bumps the producer's epoch (InitProducerId with the
 * current id and epoch, Kafka's KIP-360, which aborts the transaction on the way) and starts every sequence at 0.
 *
 * <p>A transaction resumed from a {@link TransactionHandle} ({@link #resumeTransaction}) can only be committed or
 * aborted: its sequences are the previous producer's. Afterwards the producer needs {@link #initTransactions} again.
 */
final class TransactionManager {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionManager.class);

    enum State {
        /** No producer id yet: {@code initTransactions()} or {@code resumeTransaction()} first. */
        UNINITIALIZED,
        /** Between transactions. */
        READY,
        IN_TRANSACTION,
        /** A transaction resumed from a handle: commit or abort only. */
        RESUMED,
        COMMITTING,
        ABORTING,
        /** A request or a batch of the transaction failed: only {@code abortTransaction()} goes on from here. */
        ABORTABLE_ERROR,
        /** Fenced, or failed for good: the producer can only be closed. */
        FATAL_ERROR
    }

    private final ProducerConfig config;
    private final RecordAccumulator accumulator;
    private final TransactionRequests requests;
    /** Sends everything appended so far and waits until all of it is completed ({@link IsthmusProducer#flush}). */
    private final Runnable flush;

    private volatile State state = State.UNINITIALIZED;
    private volatile RuntimeException lastError;
    /** The number of the open (or last) transaction; partition queues remember which one they were added to. */
    private volatile long transaction;
    /** Written and read by the sender thread only: see {@link #failingTransaction()}. */
    private long failingTransaction = -1;

    // Guarded by this.
    private final List<PartitionQueue> pendingPartitions = new ArrayList<>();
    /**
     * Whether the coordinator knows of the transaction (it added a partition or group offsets): it must then be ended
     * with EndTxn, and only then (EndTxn for a transaction the coordinator never saw is INVALID_TXN_STATE, fatal).
     */
    private boolean started;
    /** A batch of the transaction failed: its partition's sequence has a gap, so the abort bumps the epoch. */
    private boolean batchesFailed;

    private RuntimeException firstBatchFailure;
    /** What the transaction goes to once ended: READY, or UNINITIALIZED for a resumed one. */
    private State afterEnd = State.READY;

    private TransactionAbortedException abortedError;
    /**
     * Runs on the aborting thread once the abort's flush is done and before EndTxn. Tests hold the abort here until
     * the sender has seen the ABORTING state, which it otherwise may or may not do before the abort ends.
     */
    volatile Runnable abortFlushed = () -> {};

    // Sender thread only.
    private long nextAddNanos;
    private long addRetryingSinceNanos;

    TransactionManager(
            final ProducerConfig config,
            final RecordAccumulator accumulator,
            final TransactionRequests requests,
            final Runnable flush) {
        this.config = config;
        this.accumulator = accumulator;
        this.requests = requests;
        this.flush = flush;
    }

    State state() {
        return state;
    }

    // ------------------------------------------------------------------ application thread

    void initTransactions() {
        synchronized (this) {
            failIfFatal();
            if (state != State.UNINITIALIZED) {
                throw invalidTransition("initTransactions", "it was called already");
            }
        }
        final InitProducerIdResponseData init;
        try {
            init = requests.initProducerId(-1, (short) -1);
        } catch (final TimeoutException e) {
            throw e;
        } catch (final RuntimeException e) {
            fail(e, true);
            throw e;
        }
        identity(init);
        synchronized (this) {
            afterEnd = State.READY;
            state = State.READY;
        }
    }

    synchronized void beginTransaction() {
        failIfError();
        if (state != State.READY) {
            throw invalidTransition(
                    "beginTransaction", state == State.UNINITIALIZED ? "call initTransactions() first" : null);
        }
        transaction++;
        pendingPartitions.clear();
        started = false;
        batchesFailed = false;
        firstBatchFailure = null;
        abortedError = null;
        state = State.IN_TRANSACTION;
    }

    /** Takes over the transaction a handle names, without InitProducerId (which would abort it). */
    synchronized void resumeTransaction(final TransactionHandle handle) {
        failIfFatal();
        if (!handle.transactionalId().equals(config.transactionalId())) {
            throw new IllegalArgumentException("the handle is for another transactional.id: handle=" + handle
                    + ", transactional.id=" + config.transactionalId());
        }
        if (state != State.UNINITIALIZED) {
            throw invalidTransition(
                    "resumeTransaction", "only a producer that did not call initTransactions() can resume one");
        }
        accumulator.producerIdentity(handle.producerId(), handle.producerEpoch());
        transaction++;
        pendingPartitions.clear();
        started = true;
        batchesFailed = false;
        firstBatchFailure = null;
        afterEnd = State.UNINITIALIZED;
        state = State.RESUMED;
    }

    /** The open transaction's producer id and epoch. */
    TransactionHandle handle() {
        final State s = state;
        if (s != State.IN_TRANSACTION && s != State.RESUMED) {
            throw new IllegalStateException("no transaction is open: state=" + s + describe());
        }
        return new TransactionHandle(config.transactionalId(), accumulator.producerId(), accumulator.producerEpoch());
    }

    /**
     * A record is about to go to {@code queue} (application thread, every send): refused outside a transaction, and the
     * partition's first record in this transaction puts it on the list the sender adds to the coordinator.
     */
    void beforeAppend(final PartitionQueue queue) {
        if (state != State.IN_TRANSACTION) {
            throw sendRefused();
        }
        if (queue.transactionSentTo != transaction) {
            addPartition(queue);
        }
    }

    private synchronized void addPartition(final PartitionQueue queue) {
        if (queue.transactionSentTo != transaction) {
            queue.transactionSentTo = transaction;
            pendingPartitions.add(queue);
        }
    }

    private synchronized RuntimeException sendRefused() {
        final State s = state;
        return switch (s) {
            case ABORTABLE_ERROR, FATAL_ERROR ->
                new KafkaException(
                        "Cannot perform send because at least one previous transactional request has failed with errors:"
                                + " state=" + s + describe(),
                        lastError);
            case UNINITIALIZED ->
                new IllegalStateException("Cannot perform a 'send' before completing a call to"
                        + " initTransactions when transactions are enabled" + describe());
            case RESUMED ->
                new IllegalStateException("Cannot send in a resumed transaction: it can only be"
                        + " committed or aborted (its sequence numbers are the previous producer's)" + describe());
            default ->
                new IllegalStateException(
                        "Cannot call send in state " + s + ": call beginTransaction() first" + describe());
        };
    }

    void sendOffsetsToTransaction(
            final Map<TopicPartition, OffsetAndMetadata> offsets, final ConsumerGroupMetadata groupMetadata) {
        synchronized (this) {
            failIfError();
            if (state != State.IN_TRANSACTION) {
                throw new IllegalStateException("Cannot send offsets if a transaction is not in progress (currentState="
                        + state + ")" + describe());
            }
        }
        if (offsets.isEmpty()) {
            return;
        }
        try {
            requests.addOffsets(accumulator.producerId(), accumulator.producerEpoch(), groupMetadata.groupId());
            synchronized (this) {
                started = true;
            }
            requests.commitOffsets(accumulator.producerId(), accumulator.producerEpoch(), offsets, groupMetadata);
        } catch (final TimeoutException e) {
            throw e;
        } catch (final RuntimeException e) {
            fail(e, false);
            throw e;
        }
    }

    void commitTransaction() {
        final boolean resumed;
        synchronized (this) {
            failIfError();
            final State s = state;
            if (s != State.IN_TRANSACTION && s != State.RESUMED && s != State.COMMITTING) {
                throw invalidTransition(
                        "commitTransaction", s == State.READY ? "no transaction: call beginTransaction() first" : null);
            }
            resumed = afterEnd == State.UNINITIALIZED;
            state = State.COMMITTING;
        }
        if (!resumed) {
            // Every batch of the transaction must be written before EndTxn: the markers go after them.
            flush.run();
        }
        final boolean end;
        synchronized (this) {
            if (state == State.ABORTABLE_ERROR && firstBatchFailure != null) {
                throw new TransactionAbortableException(
                        "Cannot commit: a send in the transaction failed, call abortTransaction()" + describe(),
                        firstBatchFailure);
            }
            failIfError();
            end = started;
        }
        if (end) {
            try {
                requests.endTransaction(accumulator.producerId(), accumulator.producerEpoch(), true);
            } catch (final TimeoutException e) {
                throw e;
            } catch (final RuntimeException e) {
                fail(e, false);
                throw e;
            }
        }
        synchronized (this) {
            state = afterEnd;
        }
    }

    void abortTransaction() {
        final boolean resumed;
        synchronized (this) {
            failIfFatal();
            final State s = state;
            if (s != State.IN_TRANSACTION && s != State.RESUMED && s != State.ABORTABLE_ERROR && s != State.ABORTING) {
                throw invalidTransition(
                        "abortTransaction", s == State.READY ? "no transaction: call beginTransaction() first" : null);
            }
            resumed = afterEnd == State.UNINITIALIZED;
            if (abortedError == null) {
                abortedError = new TransactionAbortedException(
                        "the transaction was aborted before the batch was sent" + describe(), lastError);
            }
            state = State.ABORTING;
        }
        if (!resumed) {
            // The sender fails what it has not sent yet (unsentBatchesError) and waits for what is in flight.
            flush.run();
        }
        abortFlushed.run();
        final boolean bump;
        final boolean end;
        synchronized (this) {
            failIfFatal();
            bump = batchesFailed;
            end = started;
        }
        try {
            if (bump) {
                // A failed batch left a gap in its partition's sequence: a new epoch starts every sequence at 0. The
                // coordinator aborts the open transaction on the way.
                identity(requests.initProducerId(accumulator.producerId(), accumulator.producerEpoch()));
            } else if (end) {
                requests.endTransaction(accumulator.producerId(), accumulator.producerEpoch(), false);
            }
        } catch (final TimeoutException e) {
            throw e;
        } catch (final RuntimeException e) {
            fail(e, true);
            throw e;
        }
        synchronized (this) {
            lastError = null;
            state = afterEnd;
        }
    }

    private void identity(final InitProducerIdResponseData init) {
        LOG.debug(
                "producer id for transactions: transactionalId={}, producerId={}, epoch={}",
                config.transactionalId(),
                init.producerId(),
                init.producerEpoch());
        accumulator.producerIdentity(init.producerId(), init.producerEpoch());
        accumulator.resetSequences();
    }

    // ------------------------------------------------------------------ sender thread

    /**
     * Whether the sender may send {@code queue}'s next batch: while the transaction is open or committing (a failed or
     * aborting one has its unsent batches failed instead), once the coordinator has added the partition to it. Adds
     * every pending partition in one AddPartitionsToTxn when needed (blocking the sender for that round trip), or
     * backs off after a retriable error.
     */
    boolean mayProduce(final PartitionQueue queue, final long nowNanos) {
        final State s = state;
        if (s != State.IN_TRANSACTION && s != State.COMMITTING) {
            return false;
        }
        final long current = transaction;
        if (queue.transactionAddedTo == current) {
            return true;
        }
        if (nowNanos - nextAddNanos < 0) {
            return false;
        }
        addPendingPartitions(current, nowNanos);
        return queue.transactionAddedTo == current;
    }

    /** When the sender should look at partitions waiting for AddPartitionsToTxn again (0: none wait). */
    long nextAddNanos() {
        return addRetryingSinceNanos == 0 ? 0 : nextAddNanos;
    }

    private void addPendingPartitions(final long current, final long nowNanos) {
        final List<PartitionQueue> adding;
        synchronized (this) {
            if (pendingPartitions.isEmpty() || transaction != current) {
                return;
            }
            adding = new ArrayList<>(pendingPartitions);
        }
        final long backoffMs;
        try {
            backoffMs = requests.addPartitions(accumulator.producerId(), accumulator.producerEpoch(), adding);
        } catch (final RuntimeException e) {
            LOG.debug("AddPartitionsToTxn failed: transactionalId={}", config.transactionalId(), e);
            fail(e, false);
            return;
        }
        if (backoffMs == TransactionRequests.DONE) {
            synchronized (this) {
                for (final PartitionQueue queue : adding) {
                    queue.transactionAddedTo = current;
                }
                pendingPartitions.removeAll(adding);
                started = true;
            }
            addRetryingSinceNanos = 0;
            return;
        }
        if (addRetryingSinceNanos == 0) {
            addRetryingSinceNanos = nowNanos;
        } else if (nowNanos - addRetryingSinceNanos > config.deliveryTimeoutMs() * 1_000_000L) {
            // The batches waiting for these partitions would have expired: Kafka fails them, and the transaction.
            addRetryingSinceNanos = 0;
            fail(
                    new TimeoutException("AddPartitionsToTxn did not succeed within delivery.timeout.ms="
                            + config.deliveryTimeoutMs() + ": partitions=" + adding + describe()),
                    false);
            return;
        }
        nextAddNanos = nowNanos + backoffMs * 1_000_000L;
    }

    /**
     * The error to fail batches the sender has not sent yet with, or null to send them: the transaction's error in an
     * abortable or fatal state, {@link TransactionAbortedException} while aborting. Sender thread, each round.
     */
    synchronized RuntimeException unsentBatchesError() {
        failingTransaction = transaction;
        final State s = state;
        if (s == State.ABORTING) {
            return abortedError;
        }
        if (s == State.ABORTABLE_ERROR || s == State.FATAL_ERROR) {
            return lastError;
        }
        return null;
    }

    /**
     * The transaction {@link #unsentBatchesError()} spoke of when it last returned an error (sender thread): only its
     * batches fail. The application may have ended it and begun the next one since, and batches of that one must go
     * out as usual.
     */
    long failingTransaction() {
        return failingTransaction;
    }

    /** The number of the open (or last) transaction, for the batches opened now. */
    long currentTransaction() {
        return transaction;
    }

    /** A batch of the transaction failed (sender thread, before its completions run). */
    synchronized void batchFailed(final ProducerBatch batch, final RuntimeException error) {
        batchesFailed = true;
        if (error instanceof TransactionAbortedException || error == lastError) {
            return;
        }
        if (firstBatchFailure == null) {
            firstBatchFailure = error;
        }
        LOG.debug("transactional batch failed: {}, transactionalId={}", batch, config.transactionalId(), error);
        if (isFenced(error)) {
            toFatal(error);
        } else if (state == State.IN_TRANSACTION || state == State.COMMITTING) {
            state = State.ABORTABLE_ERROR;
            lastError = error;
        }
    }

    // ------------------------------------------------------------------ errors

    /**
     * A request failed: a fenced producer or an error with nothing left to do makes the producer unusable; an abortable
     * one (Kafka's list) leaves the application to abort. {@code alwaysFatal}: a request no abort can follow
     * (InitProducerId, or the abort's own).
     */
    private synchronized void fail(final RuntimeException error, final boolean alwaysFatal) {
        if (isFenced(error) || alwaysFatal || !isAbortable(error)) {
            toFatal(error);
        } else if (state != State.FATAL_ERROR && state != State.ABORTING) {
            state = State.ABORTABLE_ERROR;
            lastError = error;
        }
    }

    private void toFatal(final RuntimeException error) {
        if (state != State.FATAL_ERROR) {
            LOG.warn("transactional producer failed for good: transactionalId={}", config.transactionalId(), error);
            state = State.FATAL_ERROR;
            lastError = error;
        }
    }

    private static boolean isFenced(final RuntimeException error) {
        return error instanceof ProducerFencedException || error instanceof InvalidProducerEpochException;
    }

    /** Kafka's abortable errors: the transaction failed, the producer did not. */
    private static boolean isAbortable(final RuntimeException error) {
        return error instanceof TransactionAbortableException
                || error instanceof TopicAuthorizationException
                || error instanceof GroupAuthorizationException
                || error instanceof CommitFailedException
                || error instanceof UnknownProducerIdException
                || error instanceof InvalidPidMappingException
                || error instanceof TimeoutException;
    }

    /** Throws what an operation in an error state throws (abort is allowed in the abortable state: not here). */
    private void failIfError() {
        failIfFatal();
        if (state == State.ABORTABLE_ERROR) {
            throw new TransactionAbortableException(
                    "The transaction failed and must be aborted: call abortTransaction()" + describe(), lastError);
        }
    }

    private void failIfFatal() {
        if (state != State.FATAL_ERROR) {
            return;
        }
        final RuntimeException error = lastError;
        // A fresh exception of the same kind, whose stack is this call's; the original is the cause where possible.
        if (error instanceof ProducerFencedException) {
            throw new ProducerFencedException(fencedMessage());
        }
        if (error instanceof InvalidProducerEpochException) {
            throw new InvalidProducerEpochException(fencedMessage());
        }
        throw new KafkaException(
                "The transactional producer failed and cannot be used any more, close it" + describe(), error);
    }

    private String fencedMessage() {
        return "Producer with transactionalId '" + config.transactionalId() + "', producerId="
                + accumulator.producerId() + " and epoch=" + accumulator.producerEpoch() + " has been fenced by another"
                + " producer with the same transactionalId; close it (cause: " + lastError.getMessage() + ")";
    }

    /** kafka-clients' IllegalStateException for a call the state does not allow. */
    private IllegalStateException invalidTransition(final String operation, final String hint) {
        return new IllegalStateException("Invalid transition attempted from state " + state + ": " + operation + "()"
                + (hint == null ? "" : ", " + hint) + describe());
    }

    private String describe() {
        return ", transactionalId=" + config.transactionalId();
    }
}
