package io.isthmus.broker.partition;

import static io.isthmus.broker.testkit.KafkaBatches.concat;
import static io.isthmus.broker.testkit.KafkaBatches.idempotent;
import static io.isthmus.broker.testkit.KafkaBatches.plain;
import static io.isthmus.broker.testkit.KafkaBatches.segment;
import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.log.AppendInfo;
import io.isthmus.broker.log.LogReadResult;
import io.isthmus.broker.log.SegmentLease;
import io.isthmus.broker.partition.Partition.ProduceOutcome;
import io.isthmus.broker.producer.ProducerRejectedException;
import io.isthmus.broker.producer.ProducerStateTable.Verdict;
import io.isthmus.broker.testkit.KafkaBatches;
import io.isthmus.broker.testkit.TestPartitions;
import io.isthmus.protocol.record.BatchSummary;
import io.isthmus.protocol.record.RecordBatchValidator;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionTest {
    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final long PID = 1000;
    private static final short EPOCH = 0;

    @TempDir
    Path tmp;

    private PartitionManager manager;
    private Partition partition;

    @BeforeEach
    void setUp() throws Exception {
        manager = TestPartitions.start(tmp);
        manager.createTopic("orders", 1);
        partition = manager.partition(ORDERS_0).orElseThrow();
    }

    @AfterEach
    void tearDown() throws Exception {
        manager.close();
    }

    private void reopen() throws Exception {
        manager.close();
        manager = TestPartitions.start(tmp);
        partition = manager.partition(ORDERS_0).orElseThrow();
    }

    private ProduceOutcome append(final MemoryRecords records) {
        return partition.appendFromClient(segment(records));
    }

    private List<String> values() {
        try (LogReadResult result = partition.read(partition.logStartOffset(), Integer.MAX_VALUE)) {
            return KafkaBatches.values(result.records());
        }
    }

    /** What an exclusive RDMA producer does: the batch's bytes land at the tail, then the broker commits them. */
    private ProduceOutcome writeInPlace(final MemoryRecords records) {
        final MemorySegment batch = segment(records);
        try (SegmentLease lease = partition.log().acquireActiveSegment()) {
            final long tail = lease.segment().committedPosition();
            MemorySegment.copy(batch, 0, lease.memory(), tail, batch.byteSize());
            final AppendInfo info = partition.commitWritten(lease.segment().id(), tail, false);
            return new ProduceOutcome(
                    info.duplicate() ? Errors.DUPLICATE_SEQUENCE_NUMBER : Errors.NONE, info.firstOffset(), null);
        } catch (final ProducerRejectedException e) {
            return new ProduceOutcome(e.error(), -1, e.getMessage());
        }
    }

    @Test
    void shouldCommitAnIdempotentBatchWrittenInPlaceOnceAndDiscardItsRetryAsADuplicate() {
        assertThat(writeInPlace(idempotent(PID, EPOCH, 0, 3))).isEqualTo(new ProduceOutcome(Errors.NONE, 0, null));
        assertThat(writeInPlace(idempotent(PID, EPOCH, 3, 2))).isEqualTo(new ProduceOutcome(Errors.NONE, 3, null));
        final long tail = partition.log().activeSegment().committedPosition();

        // The first batch again (its ack was lost with a connection): nothing committed, its offset answered, the
        // bytes zeroed so that neither the next writer nor recovery takes them for a batch.
        final ProduceOutcome retried = writeInPlace(idempotent(PID, EPOCH, 0, 3));

        assertThat(retried).isEqualTo(new ProduceOutcome(Errors.DUPLICATE_SEQUENCE_NUMBER, 0, null));
        assertThat(partition.logEndOffset()).isEqualTo(5);
        assertThat(partition.log().activeSegment().committedPosition()).isEqualTo(tail);
        try (SegmentLease lease = partition.log().acquireActiveSegment()) {
            assertThat(lease.memory().get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, tail))
                    .isZero();
        }
        // A gap is refused with Kafka's error and commits nothing; the next in sequence commits.
        assertThat(writeInPlace(idempotent(PID, EPOCH, 9, 1)).error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
        assertThat(writeInPlace(idempotent(PID, EPOCH, 5, 1))).isEqualTo(new ProduceOutcome(Errors.NONE, 5, null));
        assertThat(partition.logEndOffset()).isEqualTo(6);
    }

    @Test
    void shouldRecogniseAnInPlaceRetryOfABatchThatCameOverTcp() throws Exception {
        append(idempotent(PID, EPOCH, 0, 3));
        reopen(); // the producer state is rebuilt from the log

        assertThat(writeInPlace(idempotent(PID, EPOCH, 0, 3)))
                .isEqualTo(new ProduceOutcome(Errors.DUPLICATE_SEQUENCE_NUMBER, 0, null));
        assertThat(partition.logEndOffset()).isEqualTo(3);
    }

    @Test
    void shouldAppendEveryBatchOfARequestAndAnswerTheFirstOffset() {
        append(plain("first", 2, 1L));

        final ProduceOutcome outcome = append(concat(plain("a", 3, 1L), plain("b", 2, 1L)));

        assertThat(outcome).isEqualTo(new ProduceOutcome(Errors.NONE, 2, 6, 0, null));
        assertThat(partition.logEndOffset()).isEqualTo(7);
        assertThat(values()).containsExactly("first-0", "first-1", "a-0", "a-1", "a-2", "b-0", "b-1");
    }

    @Test
    void shouldAnswerARetriedBatchWithItsOriginalOffsetAndAppendNothing() {
        assertThat(append(idempotent(PID, EPOCH, 0, 3)).baseOffset()).isZero();
        append(plain("other", 2, 1L));

        final ProduceOutcome retried = append(idempotent(PID, EPOCH, 0, 3));

        assertThat(retried).isEqualTo(new ProduceOutcome(Errors.NONE, 0, 2, 0, null));
        assertThat(partition.logEndOffset()).isEqualTo(5);
    }

    @Test
    void shouldSkipTheDuplicateBatchesOfARequestAndAppendTheNewOnes() {
        append(idempotent(PID, EPOCH, 0, 3));

        final ProduceOutcome outcome = append(concat(idempotent(PID, EPOCH, 0, 3), idempotent(PID, EPOCH, 3, 2)));

        assertThat(outcome).isEqualTo(new ProduceOutcome(Errors.NONE, 0, 4, 0, null));
        assertThat(partition.logEndOffset()).isEqualTo(5);
        assertThat(values()).containsExactly("seq-0-0", "seq-0-1", "seq-0-2", "seq-3-0", "seq-3-1");
    }

    @Test
    void shouldRejectASequenceGapAndAppendNothing() {
        append(idempotent(PID, EPOCH, 0, 3));

        final ProduceOutcome outcome = append(idempotent(PID, EPOCH, 5, 1));

        assertThat(outcome.error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
        assertThat(outcome.baseOffset()).isEqualTo(-1);
        assertThat(partition.logEndOffset()).isEqualTo(3);
    }

    @Test
    void shouldRejectABatchWithABadCrcAndAppendNothing() {
        final byte[] bytes = KafkaBatches.bytes(plain("x", 3, 1L));
        bytes[bytes.length - 1] ^= 0x55;

        final ProduceOutcome outcome = partition.appendFromClient(MemorySegment.ofArray(bytes));

        assertThat(outcome.error()).isEqualTo(Errors.CORRUPT_MESSAGE);
        assertThat(partition.logEndOffset()).isZero();
    }

    @Test
    void shouldAppendNoBatchOfARequestWhoseLastBatchIsCorrupt() {
        final byte[] good = KafkaBatches.bytes(plain("good", 3, 1L));
        final byte[] bad = KafkaBatches.bytes(plain("bad", 2, 1L));
        bad[bad.length - 1] ^= 0x55;
        final byte[] both = java.util.Arrays.copyOf(good, good.length + bad.length);
        System.arraycopy(bad, 0, both, good.length, bad.length);
        final MemorySegment request = MemorySegment.ofArray(both);

        final ProduceOutcome outcome = partition.appendFromClient(request);

        assertThat(outcome.error()).isEqualTo(Errors.CORRUPT_MESSAGE);
        assertThat(partition.logEndOffset()).isZero();
    }

    @Test
    void shouldAppendNoBatchOfARequestWithASequenceGapAndForgetTheBatchesBeforeIt() {
        final ProduceOutcome outcome = append(concat(idempotent(PID, EPOCH, 0, 3), idempotent(PID, EPOCH, 7, 1)));

        assertThat(outcome.error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
        assertThat(partition.logEndOffset()).isZero();
        // The first batch was never written, so its retry is new, not a duplicate answered with a made-up offset.
        assertThat(append(idempotent(PID, EPOCH, 0, 3))).isEqualTo(new ProduceOutcome(Errors.NONE, 0, 2, 0, null));
        assertThat(values()).containsExactly("seq-0-0", "seq-0-1", "seq-0-2");
    }

    @Test
    void shouldCheckSequencesReservedForASharedOrderOnceAndRecogniseTheirRetryAfterCommit() {
        final MemorySegment batch = segment(idempotent(PID, EPOCH, 0, 3));
        final BatchSummary summary = new BatchSummary();
        RecordBatchValidator.validate(batch, 0, batch.byteSize(), RecordBatchValidator.Mode.PRODUCE, null, summary);

        assertThat(partition.reserveSequences(summary)).isInstanceOf(Verdict.Append.class);
        // A retry while the first attempt waits for its turn: retriable, its offset is not known yet.
        assertThat(partition.reserveSequences(summary)).isInstanceOf(Verdict.Reject.class);
        try (SegmentLease lease = partition.log().acquireActiveSegment()) {
            MemorySegment.copy(batch, 0, lease.memory(), 0, batch.byteSize());
            final AppendInfo info = partition.commitWritten(lease.segment().id(), 0, true);
            assertThat(info.firstOffset()).isZero();
            assertThat(info.duplicate()).isFalse();
        }

        assertThat(append(idempotent(PID, EPOCH, 0, 3))).isEqualTo(new ProduceOutcome(Errors.NONE, 0, 2, 0, null));
        assertThat(partition.logEndOffset()).isEqualTo(3);
    }

    @Test
    void shouldAcceptTheRetryOfReservedSequencesThatWereReleased() {
        final MemorySegment batch = segment(idempotent(PID, EPOCH, 0, 3));
        final BatchSummary summary = new BatchSummary();
        RecordBatchValidator.validate(batch, 0, batch.byteSize(), RecordBatchValidator.Mode.PRODUCE, null, summary);
        partition.reserveSequences(summary);

        partition.releaseSequences(PID, EPOCH, 0);

        assertThat(append(idempotent(PID, EPOCH, 0, 3))).isEqualTo(new ProduceOutcome(Errors.NONE, 0, 2, 0, null));
    }

    @Test
    void shouldRecogniseARetryAfterReopenFromTheProducerStateInTheLog() throws Exception {
        append(idempotent(PID, EPOCH, 0, 3));
        append(idempotent(PID, EPOCH, 3, 2));
        append(plain("other", 1, 1L));

        reopen();

        assertThat(append(idempotent(PID, EPOCH, 3, 2))).isEqualTo(new ProduceOutcome(Errors.NONE, 3, 4, 0, null));
        assertThat(partition.logEndOffset()).isEqualTo(6);
        assertThat(append(idempotent(PID, EPOCH, 9, 1)).error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
        assertThat(append(idempotent(PID, EPOCH, 5, 1)).baseOffset()).isEqualTo(6);
    }

    @Test
    void shouldRunAnAppendListenerAtOnceWhenDataIsThere() {
        append(plain("x", 2, 1L));
        final AtomicInteger runs = new AtomicInteger();

        partition.awaitAppend(1, runs::incrementAndGet);

        assertThat(runs).hasValue(1);
        append(plain("y", 1, 1L));
        assertThat(runs).hasValue(1);
    }

    @Test
    void shouldRunAnAppendListenerOnceAfterTheNextAppend() {
        append(plain("x", 2, 1L));
        final AtomicInteger runs = new AtomicInteger();

        partition.awaitAppend(2, runs::incrementAndGet);

        assertThat(runs).hasValue(0);
        append(plain("y", 1, 1L));
        assertThat(runs).hasValue(1);
        append(plain("z", 1, 1L));
        assertThat(runs).hasValue(1);
    }

    @Test
    void shouldNotRunARemovedAppendListener() {
        final AtomicInteger runs = new AtomicInteger();
        final Runnable listener = runs::incrementAndGet;
        partition.awaitAppend(0, listener);

        partition.removeAppendListener(listener);
        append(plain("x", 1, 1L));

        assertThat(runs).hasValue(0);
    }

    @Test
    void shouldNotRunAListenerForARejectedBatch() {
        append(idempotent(PID, EPOCH, 0, 1));
        final AtomicInteger runs = new AtomicInteger();
        partition.awaitAppend(1, runs::incrementAndGet);

        append(idempotent(PID, EPOCH, 7, 1));
        append(idempotent(PID, EPOCH, 0, 1));

        assertThat(runs).hasValue(0);
    }

    @Test
    void shouldWakeWaitingListenersOnClose() throws Exception {
        final AtomicInteger runs = new AtomicInteger();
        partition.awaitAppend(0, runs::incrementAndGet);

        partition.close();

        assertThat(runs).hasValue(1);
    }
}
