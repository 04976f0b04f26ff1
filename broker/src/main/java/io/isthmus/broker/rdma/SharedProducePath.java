package io.isthmus.broker.rdma;

import io.isthmus.broker.log.AppendInfo;
import io.isthmus.broker.log.PartitionLog;
import io.isthmus.broker.log.SegmentLease;
import io.isthmus.broker.log.SegmentNotWritableException;
import io.isthmus.broker.network.ControlExchange;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.producer.ProducerRejectedException;
import io.isthmus.broker.producer.ProducerStateTable.Verdict;
import io.isthmus.ffi.verbs.AccessFlags;
import io.isthmus.ffi.verbs.MemoryRegion;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ProduceAccessRequest;
import io.isthmus.protocol.control.ProduceAccessResponse;
import io.isthmus.protocol.control.SharedProduceWordDescriptor;
import io.isthmus.protocol.record.BatchDecompressor;
import io.isthmus.protocol.record.BatchSummary;
import io.isthmus.protocol.record.InvalidRecordBatchException;
import io.isthmus.protocol.record.RecordBatch;
import io.isthmus.protocol.record.RecordBatchValidator;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shared produce (KafkaDirect section 4.2.2, "shared RDMA/TCP access"), on the datapath thread. Producers reserve
 * space in a partition's active segment with FETCH_AND_ADD on the segment's {@link SharedProduceWordDescriptor word}
 * and WRITE WITH IMM their batch into their next {@link ProduceStaging staging slot}, the immediate carrying the order
 * the word gave them; the broker copies it to its reserved place when its turn comes. TCP producers of the partition
 * reserve through the same word, by the broker's own {@link LoopbackAtomics}, and their batch is copied in at once.
 *
 * <ul>
 *   <li><b>Strict order.</b> Writes wait in a {@link ReservationSequencer} until every earlier order is committed;
 *       then each goes through the partition's append gateway ({@link Partition#commitStaged}: copied from its slot
 *       to the tail and the copy validated, checked against the idempotent-producer state, given its offsets,
 *       published), and its writer is answered.
 *   <li><b>Roll.</b> A reservation past the capacity overflows and so does every later one. A producer names its
 *       overflowed order in a roll request; once the orders before it are committed the log segment is sealed, the
 *       next one gets a fresh word, and the waiting requests are answered with it.
 *   <li><b>Revocation, no hole.</b> If the next order is reserved and not written within {@code
 *       rdma.produce.reservation.timeout.ms}, or a write is bad, the broker closes the word (a FETCH_AND_ADD that
 *       makes every later reservation overflow), answers every waiting and late write ACCESS_REVOKED and keeps the
 *       committed tail: nothing after the missing write is ever committed, so consumers never see a hole. After one
 *       more timeout (for writes already posted to land and be answered) the word's registrations go, so their rkeys
 *       stop working, the space TCP batches were copied into is zeroed, and access is granted again, on a fresh word at
 *       the same tail.
 * </ul>
 */
final class SharedProducePath implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SharedProducePath.class);
    /** Added to a word when it is closed: every later reservation overflows (position beyond any capacity). */
    static final long CLOSE_WORD = 1L << 47;

    private static final int WORDS = 4096;

    /** Answers a producer's write: the datapath's ack SEND. */
    interface Acker {
        void ack(RdmaSession session, long baseOffset, int immediate, short errorCode);
    }

    private final RdmaSettings settings;
    private final SharedWordRegion words;
    private final LoopbackAtomics loopback;
    private final Acker acker;
    private final Consumer<Runnable> datapathExecutor;
    private final long timeoutNanos;
    private final Map<Partition, SharedProduce> byPartition = new HashMap<>();
    private final RecordBatch view = new RecordBatch();
    private final BatchSummary summary = new BatchSummary();
    private final BatchDecompressor decompressor = new BatchDecompressor();
    /** The PRODUCE_ACCESS answer being filled in, over its exchange's frame. */
    private final ProduceAccessResponse response = new ProduceAccessResponse();

    private boolean closed;
    private volatile long commits;
    private volatile long revocations;
    private volatile long revokedWrites;

    SharedProducePath(
            final RdmaSettings settings,
            final RdmaDevice device,
            final Acker acker,
            final Consumer<Runnable> datapathExecutor) {
        this.settings = settings;
        this.acker = acker;
        this.datapathExecutor = datapathExecutor;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(settings.reservationTimeoutMs());
        this.words = new SharedWordRegion(device.pd, WORDS);
        try {
            this.loopback = LoopbackAtomics.open(device);
        } catch (final RuntimeException e) {
            words.close();
            throw e;
        }
    }

    long commits() {
        return commits;
    }

    long revocations() {
        return revocations;
    }

    long revokedWrites() {
        return revokedWrites;
    }

    // ------------------------------------------------------------------ access

    /**
     * PRODUCE_ACCESS with SHARED: answers {@code exchange} now, or keeps {@code retry} (which asks again with the same
     * request, still in its frame: the exchange keeps it until answered) for when a roll or a revocation's grace period
     * is over.
     */
    void access(
            final RdmaSession session,
            final Partition partition,
            final ProduceAccessRequest request,
            final ControlExchange exchange,
            final Runnable retry) {
        if (closed) {
            refuse(exchange, ControlErrorCodes.RDMA_UNAVAILABLE);
            return;
        }
        SharedProduce shared = byPartition.get(partition);
        if (shared == null) {
            shared = new SharedProduce(partition, this);
            if (!partition.tryClaimWriter(shared)) {
                refuse(exchange, ControlErrorCodes.ACCESS_HELD);
                return;
            }
            byPartition.put(partition, shared);
        }
        if (shared.inGrace()) {
            shared.deferred.add(retry);
            return;
        }
        ProduceGrant grant = session.produceGrant(partition);
        if (grant != null && grant.shared == null) {
            refuse(exchange, ControlErrorCodes.ACCESS_HELD);
            return;
        }
        final SharedSegment full = grant != null ? grant.shared : null;
        if (request.rollsFullSegment()
                && full != null
                && full == shared.current
                && full.segmentId() == request.fullSegmentId()) {
            full.overflowed(request.fullOrder());
            drain(full);
            if (shared.current == full && full.state == SharedSegment.State.LIVE) {
                full.waitingForRoll.add(retry);
                return;
            }
            if (shared.inGrace()) {
                shared.deferred.add(retry);
                return;
            }
        }
        final SharedSegment segment;
        try {
            segment = shared.current != null ? shared.current : open(shared);
        } catch (final RuntimeException e) {
            LOG.warn("shared produce access failed: partition={}", partition.topicPartition(), e);
            maybeEnd(shared);
            refuse(exchange, ControlErrorCodes.UNKNOWN_SERVER_ERROR);
            return;
        }
        if (segment == null) {
            maybeEnd(shared);
            refuse(exchange, ControlErrorCodes.RESOURCES_EXHAUSTED);
            return;
        }
        if (grant == null || grant.shared != segment) {
            final ProduceGrant previous = grant;
            try {
                grant = holderGrant(session, segment);
            } catch (final RuntimeException e) {
                LOG.warn("shared produce access failed: {} {}", session, segment, e);
                maybeEnd(shared);
                refuse(exchange, ControlErrorCodes.UNKNOWN_SERVER_ERROR);
                return;
            }
            segment.holders.add(grant);
            shared.grants++;
            session.produceGrants.add(grant);
            if (previous != null) {
                // After the new grant is counted: the partition must not look abandoned in between.
                session.produceGrants.remove(previous);
                releaseHold(previous);
            }
            LOG.info("RDMA shared produce access granted: {} {}", session, segment);
        }
        grant.answer(exchange.answer(response, ProduceAccessResponse.LENGTH), segment.tail)
                .flags(ProduceAccessResponse.SHARED)
                .wordAddress(grant.word.address())
                .wordRkey(grant.word.rkey());
        exchange.complete();
    }

    /**
     * A grant on {@code segment} for {@code session}: a lease on the segment and a registration of the segment's word
     * alone for remote atomics, in the session's protection domain, whose queue pair is widened to allow atomics and
     * writes (into its staging slots).
     */
    private ProduceGrant holderGrant(final RdmaSession session, final SharedSegment segment) {
        session.allowProduce(AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC, settings.stagingSlotBytes());
        final SegmentLease lease = segment.lease.segment().tryAcquire();
        if (lease == null) {
            throw new IllegalStateException("the shared segment's mapping is gone: " + segment);
        }
        final MemoryRegion word;
        try {
            word = session.pd.registerMemory(
                    words.word(segment.word), AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_ATOMIC);
        } catch (final RuntimeException e) {
            lease.close();
            throw e;
        }
        return ProduceGrant.shared(session, segment, lease, word);
    }

    private void refuse(final ControlExchange exchange, final short errorCode) {
        exchange.answer(response, ProduceAccessResponse.LENGTH).errorCode(errorCode);
        exchange.complete();
    }

    /** A grant on a shared segment goes (release, teardown, or replaced by a grant on a newer segment). */
    void dropGrant(final ProduceGrant grant) {
        releaseHold(grant);
        maybeEnd(grant.shared.owner);
    }

    private void releaseHold(final ProduceGrant grant) {
        final SharedSegment segment = grant.shared;
        segment.holders.remove(grant);
        grant.releaseAccess();
        segment.owner.grants--;
        maybeFreeWord(segment);
    }

    /** A fresh word for the partition's active segment at its committed tail; null when no word is free. */
    private SharedSegment open(final SharedProduce shared) {
        final PartitionLog log = shared.partition.log();
        final SegmentLease lease = log.acquireActiveSegment();
        final long tail = lease.segment().committedPosition();
        final int word = words.allocate(SharedProduceWordDescriptor.word(0, tail));
        if (word < 0) {
            lease.close();
            LOG.warn("no free reservation word for shared produce: inUse={}", words.inUse());
            return null;
        }
        final SharedSegment segment =
                new SharedSegment(shared, lease, word, new ReservationSequencer(settings.sharedWindow()), tail);
        shared.current = segment;
        return segment;
    }

    // ------------------------------------------------------------------ writes

    /**
     * A WRITE WITH IMM for a shared segment arrived from {@code session} in {@code staged} (its receive is already
     * re-posted).
     */
    void onWrite(
            final RdmaSession session,
            final ProduceGrant grant,
            final int immediate,
            final int order,
            final MemorySegment staged) {
        final SharedSegment segment = grant.shared;
        if (segment.state != SharedSegment.State.LIVE) {
            revokedWrites++;
            acker.ack(session, -1, immediate, ControlErrorCodes.ACCESS_REVOKED);
            return;
        }
        if (!segment.sequencer.arrive(order, session, immediate, staged)) {
            acker.ack(session, -1, immediate, ControlErrorCodes.OUT_OF_ORDER_WRITE);
            revoke(segment, "write order outside the window or twice: order=" + order + " from " + session);
            return;
        }
        drain(segment);
    }

    /** Hands a TCP append over to the datapath thread. */
    void submitLocal(final SharedProduce shared, final LocalAppend append) {
        datapathExecutor.accept(() -> continueLocal(shared, append));
    }

    /** Reserves, copies and queues the append's batches, as far as the segment allows. */
    private void continueLocal(final SharedProduce shared, final LocalAppend append) {
        if (closed) {
            forgetUncommitted(append);
            append.fail(Errors.NOT_LEADER_OR_FOLLOWER, "the broker's RDMA datapath is closing; retry");
            append.maybeComplete();
            return;
        }
        if (shared.ended) {
            // Shared produce ended while the append waited: the partition takes it directly (or a newer owner does).
            shared.partition.appendFromClientAsync(append.batches).whenComplete((outcome, failure) -> {
                if (failure != null) {
                    append.future.completeExceptionally(failure);
                } else {
                    append.future.complete(outcome);
                }
            });
            return;
        }
        SharedSegment segment = null;
        final long size = append.batches.byteSize();
        while (!append.reservedAll()) {
            if (shared.inGrace()) {
                shared.deferred.add(() -> continueLocal(shared, append));
                return;
            }
            segment = shared.current;
            if (segment != null && segment.overflowedOrder >= 0) {
                segment.waitingForRoll.add(() -> continueLocal(shared, append));
                append.maybeComplete();
                drain(segment); // rolls at once if every order before the overflow is committed
                return;
            }
            if (segment == null) {
                try {
                    segment = open(shared);
                } catch (final RuntimeException e) {
                    append.fail(Errors.UNKNOWN_SERVER_ERROR, "shared produce could not open a segment: " + e);
                    break;
                }
                if (segment == null) {
                    append.fail(Errors.REQUEST_TIMED_OUT, "no free reservation word for shared produce; retry");
                    break;
                }
            }
            final long position = append.position;
            final long length;
            try {
                length = RecordBatchValidator.validate(
                        append.batches, position, size, RecordBatchValidator.Mode.PRODUCE, decompressor, summary);
            } catch (final InvalidRecordBatchException e) {
                append.fail(Errors.CORRUPT_MESSAGE, e.getMessage());
                break;
            }
            if (length > segment.capacity()) {
                append.fail(
                        Errors.RECORD_LIST_TOO_LARGE,
                        "batch larger than a segment: batchBytes=" + length + " capacity=" + segment.capacity());
                break;
            }
            switch (shared.partition.reserveSequences(summary)) {
                case Verdict.Duplicate duplicate -> {
                    if (append.outstanding == 0 && append.committedUpTo == position) {
                        append.skippedDuplicate(length, duplicate.firstOffset());
                        continue;
                    }
                    append.fail(Errors.REQUEST_TIMED_OUT, "duplicate behind batches not committed yet; retry");
                    continue;
                }
                case Verdict.Reject reject -> {
                    append.fail(reject.error(), reject.reason());
                    continue;
                }
                case Verdict.Append accepted -> {}
            }
            final long old;
            try {
                old = loopback.fetchAndAdd(
                        words.address(segment.word), words.rkey(), SharedProduceWordDescriptor.reservation((int)
                                length));
            } catch (final RuntimeException e) {
                shared.partition.releaseSequences(
                        summary.producerId(), summary.producerEpoch(), summary.baseSequence());
                append.fail(Errors.UNKNOWN_SERVER_ERROR, "reserving shared space failed: " + e.getMessage());
                LOG.error("loopback reservation failed: {}", segment, e);
                break;
            }
            final int order = SharedProduceWordDescriptor.order(old);
            if (!SharedProduceWordDescriptor.fits(old, (int) length, segment.capacity())) {
                shared.partition.releaseSequences(
                        summary.producerId(), summary.producerEpoch(), summary.baseSequence());
                segment.overflowed(order);
                continue; // waits for the roll at the top of the loop
            }
            final long at = SharedProduceWordDescriptor.position(old);
            try {
                // The copy stores into the segment's sparse mapping: its blocks first (a full disk is SIGBUS).
                segment.lease.segment().reserveLog(at + length);
            } catch (final KafkaStorageException e) {
                shared.partition.releaseSequences(
                        summary.producerId(), summary.producerEpoch(), summary.baseSequence());
                append.fail(Errors.KAFKA_STORAGE_ERROR, e.getMessage());
                // The order is taken and will never be filled: nothing after it may be committed.
                revoke(segment, "no disk space for a TCP batch's reserved place: " + e.getMessage());
                break;
            }
            MemorySegment.copy(append.batches, position, segment.lease.memory(), at, length);
            if (!segment.sequencer.arrive(order, append, -1, null)) {
                shared.partition.releaseSequences(
                        summary.producerId(), summary.producerEpoch(), summary.baseSequence());
                append.fail(Errors.REQUEST_TIMED_OUT, "shared window full; retry");
                revoke(segment, "broker reservation outside the window: order=" + order);
                break;
            }
            append.outstanding++;
            append.position = position + length;
        }
        append.maybeComplete();
        if (segment != null) {
            drain(segment);
        }
    }

    // ------------------------------------------------------------------ commit in order

    private void drain(final SharedSegment segment) {
        final ReservationSequencer sequencer = segment.sequencer;
        while (segment.state == SharedSegment.State.LIVE) {
            if (segment.readyToRoll()) {
                roll(segment);
                return;
            }
            if (!sequencer.nextArrived()) {
                return;
            }
            final Object writer = sequencer.nextWriter();
            final int immediate = sequencer.nextImmediate();
            final MemorySegment staged = sequencer.nextStaged();
            if (writer instanceof RdmaSession session && session.closed) {
                // Its session was torn down while the write waited: the staging slot is freed, the batch unreadable,
                // so the orders behind it cannot be committed without a hole.
                revoke(segment, "the writer of order " + sequencer.nextOrder() + " was disconnected before its turn");
                return;
            }
            sequencer.advance();
            segment.stalledSinceNanos = 0;
            final long tail = segment.tail;
            final AppendInfo info;
            try {
                // A TCP batch is at the tail already and reserved its sequences when it took its order; an RDMA
                // write is copied from its staging slot and checked now, in order.
                final Partition partition = segment.owner.partition;
                info = staged == null
                        ? partition.commitWritten(segment.segmentId(), tail, true)
                        : partition.commitStaged(segment.segmentId(), tail, staged, false, segment.owner.leaderEpoch);
            } catch (final NotLeaderOrFollowerException e) {
                refuse(
                        writer,
                        immediate,
                        ControlErrorCodes.NOT_LEADER_OR_FOLLOWER,
                        Errors.NOT_LEADER_OR_FOLLOWER,
                        e.getMessage());
                revoke(segment, "leadership moved: " + e.getMessage());
                return;
            } catch (final InvalidRecordBatchException | SegmentNotWritableException e) {
                refuse(writer, immediate, ControlErrorCodes.CORRUPT_MESSAGE, Errors.CORRUPT_MESSAGE, e.getMessage());
                revoke(segment, "rejected write: " + e.getMessage());
                return;
            } catch (final ProducerRejectedException e) {
                refuse(writer, immediate, e.error().code(), e.error(), e.getMessage());
                revoke(segment, "rejected write: " + e.getMessage());
                return;
            } catch (final RuntimeException e) {
                LOG.error("committing a shared write failed: {} order={}", segment, sequencer.nextOrder(), e);
                refuse(
                        writer,
                        immediate,
                        ControlErrorCodes.UNKNOWN_SERVER_ERROR,
                        Errors.UNKNOWN_SERVER_ERROR,
                        "commit failed: " + e);
                revoke(segment, "commit failed: " + e);
                return;
            }
            if (info.duplicate()) {
                // An RDMA producer's retry of a batch already in the log, discarded: later reservations lie past it,
                // so the segment cannot go on without a hole. Revoked; the writers ask again and learn the tail.
                if (writer instanceof RdmaSession session) {
                    acker.ack(session, info.firstOffset(), immediate, ControlErrorCodes.DUPLICATE_SEQUENCE_NUMBER);
                }
                revoke(segment, "duplicate write discarded at tail=" + tail);
                return;
            }
            segment.tail = tail + info.sizeInBytes();
            commits++;
            if (writer instanceof LocalAppend append) {
                append.committed(info.sizeInBytes(), info.firstOffset());
            }
            if (writer instanceof RdmaSession session) {
                acker.ack(session, info.firstOffset(), immediate, ControlErrorCodes.NONE);
            }
        }
    }

    /** Answers a write that will not be committed. */
    private void refuse(
            final Object writer, final int immediate, final short code, final Errors error, final String message) {
        if (writer instanceof RdmaSession session) {
            acker.ack(session, -1, immediate, code);
        } else if (writer instanceof LocalAppend append) {
            append.fail(error, message);
            forgetUncommitted(append);
            append.abandoned();
        }
    }

    /** The producer state of an append's batches that will not commit is forgotten, so their retry is accepted. */
    private void forgetUncommitted(final LocalAppend append) {
        if (append.committedUpTo < append.position) {
            view.wrap(append.batches, append.committedUpTo);
            append.partition.releaseSequences(view.producerId(), view.producerEpoch(), view.baseSequence());
        }
        append.committedUpTo = append.position;
    }

    private void roll(final SharedSegment segment) {
        final SharedProduce shared = segment.owner;
        segment.state = SharedSegment.State.ROLLED;
        final PartitionLog log = shared.partition.log();
        if (log.activeSegment().id() == segment.segmentId()) {
            log.roll();
        }
        releaseAccess(segment);
        maybeFreeWord(segment);
        shared.current = null;
        shared.partition.notifyAppendListeners(); // readers of the full segment see it sealed now
        LOG.info("shared segment full, rolled: {}", segment);
        runAll(segment.waitingForRoll);
    }

    // ------------------------------------------------------------------ revocation

    /**
     * Closes the segment's word and answers every waiting write ACCESS_REVOKED; nothing past the committed tail will be
     * committed. The registration and the unfilled space are dealt with when the grace period ends ({@link #tick}).
     */
    private void revoke(final SharedSegment segment, final String reason) {
        if (segment.state != SharedSegment.State.LIVE) {
            return;
        }
        final SharedProduce shared = segment.owner;
        long reservedEnd = segment.capacity();
        try {
            final long old = loopback.fetchAndAdd(words.address(segment.word), words.rkey(), CLOSE_WORD);
            reservedEnd = Math.min(reservedEnd, SharedProduceWordDescriptor.position(old));
        } catch (final RuntimeException e) {
            LOG.error("closing a reservation word failed; the whole rest of the segment counts as reserved", e);
        }
        segment.state = SharedSegment.State.REVOKED;
        segment.reservedEnd = Math.max(segment.tail, reservedEnd);
        segment.graceEndNanos = System.nanoTime() + timeoutNanos;
        revocations++;
        LOG.warn("revoking shared produce access: {} reason={} reservedEnd={}", segment, reason, segment.reservedEnd);
        segment.sequencer.drainWaiting(this::revokeWaiting);
        shared.current = null;
        shared.revoked.add(segment);
        shared.deferred.addAll(segment.waitingForRoll);
        segment.waitingForRoll.clear();
    }

    private void revokeWaiting(final Object writer, final int immediate) {
        revokedWrites++;
        refuse(
                writer,
                immediate,
                ControlErrorCodes.ACCESS_REVOKED,
                Errors.REQUEST_TIMED_OUT,
                "shared produce access to the segment was revoked (a reservation before this batch was never"
                        + " written); retry");
    }

    /** Timeouts: revokes stalled segments and retires revoked ones whose grace period is over. */
    int tick(final long now) {
        if (byPartition.isEmpty()) {
            return 0;
        }
        int work = 0;
        for (final SharedProduce shared : new ArrayList<>(byPartition.values())) {
            final SharedSegment segment = shared.current;
            if (segment != null && segment.state == SharedSegment.State.LIVE) {
                work += checkStall(segment, now);
            }
            for (int i = shared.revoked.size() - 1; i >= 0; i--) {
                final SharedSegment revoked = shared.revoked.get(i);
                if (now - revoked.graceEndNanos >= 0) {
                    shared.revoked.remove(i);
                    retire(revoked);
                    work++;
                }
            }
            if (!shared.inGrace() && !shared.deferred.isEmpty()) {
                runAll(shared.deferred);
                work++;
            }
            maybeEnd(shared);
        }
        return work;
    }

    private int checkStall(final SharedSegment segment, final long now) {
        final ReservationSequencer sequencer = segment.sequencer;
        final int reservedOrder = SharedProduceWordDescriptor.order(words.read(segment.word));
        final boolean outstanding = sequencer.distance(reservedOrder) != 0 && !segment.readyToRoll();
        if (!outstanding || sequencer.nextArrived()) {
            segment.stalledSinceNanos = 0;
            return 0;
        }
        if (segment.stalledSinceNanos == 0) {
            segment.stalledSinceNanos = now | 1;
            return 0;
        }
        if (now - segment.stalledSinceNanos < timeoutNanos) {
            return 0;
        }
        revoke(
                segment,
                "reservation order " + sequencer.nextOrder() + " not written within " + settings.reservationTimeoutMs()
                        + " ms");
        return 1;
    }

    private void retire(final SharedSegment segment) {
        segment.state = SharedSegment.State.RETIRED;
        releaseAccess(segment); // the word's rkeys stop working: no reservation can be made any more
        final PartitionLog log = segment.owner.partition.log();
        log.discardUncommitted(segment.segmentId(), segment.tail, segment.reservedEnd - segment.tail);
        maybeFreeWord(segment);
        LOG.info("revoked shared segment retired: {}", segment);
    }

    /** Deregisters every holder's access to the segment and gives its lease back. */
    private void releaseAccess(final SharedSegment segment) {
        if (!segment.accessReleased) {
            segment.accessReleased = true;
            segment.holders.forEach(ProduceGrant::releaseAccess);
            segment.lease.close();
        }
    }

    private void maybeFreeWord(final SharedSegment segment) {
        if (!segment.wordFreed && segment.holders.isEmpty() && segment.state != SharedSegment.State.LIVE) {
            segment.wordFreed = true;
            words.free(segment.word);
        }
    }

    /**
     * Ends shared produce of a partition nobody produces to over RDMA any more and that has nothing outstanding: the
     * partition's TCP produce goes straight to the log again.
     */
    private void maybeEnd(final SharedProduce shared) {
        if (shared.ended || shared.grants > 0 || shared.inGrace() || !shared.deferred.isEmpty()) {
            return;
        }
        final SharedSegment segment = shared.current;
        if (segment != null) {
            final int reservedOrder = SharedProduceWordDescriptor.order(words.read(segment.word));
            if (segment.sequencer.waiting() > 0
                    || segment.sequencer.distance(reservedOrder) != 0
                    || !segment.waitingForRoll.isEmpty()) {
                return;
            }
            segment.state = SharedSegment.State.RETIRED;
            releaseAccess(segment);
            maybeFreeWord(segment);
            shared.current = null;
        }
        shared.ended = true;
        byPartition.remove(shared.partition);
        shared.partition.releaseWriter(shared);
        LOG.info("shared produce ended: partition={}", shared.partition.topicPartition());
    }

    private static void runAll(final List<Runnable> work) {
        final List<Runnable> copy = new ArrayList<>(work);
        work.clear();
        for (final Runnable runnable : copy) {
            runnable.run();
        }
    }

    /** Partitions under shared produce now. */
    int sharedPartitions() {
        return byPartition.size();
    }

    /** Answers everything still waiting (TCP appends fail retriably, access requests get RDMA_UNAVAILABLE). */
    @Override
    public void close() {
        closed = true;
        for (final SharedProduce shared : new ArrayList<>(byPartition.values())) {
            final SharedSegment segment = shared.current;
            if (segment != null) {
                segment.sequencer.drainWaiting(this::revokeWaiting);
                runAll(segment.waitingForRoll);
            }
            runAll(shared.deferred);
            shared.partition.releaseWriter(shared);
        }
        byPartition.clear();
        loopback.close();
        words.close();
    }
}
