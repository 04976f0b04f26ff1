package io.isthmus.broker.log;

import static io.isthmus.broker.testkit.TransactionalBatches.marker;
import static io.isthmus.broker.testkit.TransactionalBatches.transactional;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.producer.ProducerRejectedException;
import io.isthmus.protocol.record.EndTransactionMarker;
import io.isthmus.protocol.record.RecordBatchBuilder;
import io.isthmus.protocol.record.RecordBatchDescriptor;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log's view of transactions: the last stable offset, the aborted-transaction index, read_committed reads, what
 * survives a reopen, and who may write transactional and control batches. Batches and markers are built with Kafka's
 * own classes, so the log is shown to read Kafka's control-record format.
 */
class PartitionLogTransactionsTest {
    private static final long P1 = 1000;
    private static final long P2 = 2000;
    private static final short EPOCH = 0;

    @TempDir
    Path tmp;

    private final MutableClock clock = new MutableClock(1_700_000_000_000L);
    private final SegmentIdAllocator ids = new SegmentIdAllocator();
    private final List<PartitionLog> logs = new ArrayList<>();

    @AfterEach
    void closeAll() {
        logs.reversed().forEach(PartitionLog::close);
    }

    private PartitionLog open() throws Exception {
        final PartitionLog log = PartitionLog.open(
                tmp.resolve("topic-0"), LogConfig.from(Map.of(LogConfig.SEGMENT_BYTES, "65536")), ids, clock);
        logs.add(log);
        return log;
    }

    @Test
    void shouldHoldTheLastStableOffsetAtTheFirstOffsetOfTheOldestOpenTransaction() throws Exception {
        final PartitionLog log = open();
        log.append(transactional(P1, EPOCH, 0, 3), 0);
        log.append(plain(3), 0);

        assertThat(log.highWatermark()).isEqualTo(6);
        assertThat(log.lastStableOffset()).isZero();
        try (LogReadResult committed = log.read(0, 1 << 20, true)) {
            assertThat(committed.isEmpty()).isTrue();
        }
        try (LogReadResult uncommitted = log.read(0, 1 << 20, false)) {
            assertThat(uncommitted.nextOffset()).isEqualTo(6);
        }

        log.append(marker(P1, EPOCH, ControlRecordType.COMMIT), 0, AppendOrigin.COORDINATOR);

        assertThat(log.lastStableOffset()).isEqualTo(7);
        try (LogReadResult committed = log.read(0, 1 << 20, true)) {
            assertThat(committed.nextOffset()).isEqualTo(7);
        }
        assertThat(log.abortedTransactions(0, 7)).isEmpty();
    }

    @Test
    void shouldListAbortedTransactionsAndReadOnlyBelowTheStableOffset() throws Exception {
        final PartitionLog log = open();
        log.append(transactional(P1, EPOCH, 0, 3), 0); // 0..2
        log.append(transactional(P2, EPOCH, 0, 3), 0); // 3..5
        log.append(marker(P1, EPOCH, ControlRecordType.ABORT), 0, AppendOrigin.COORDINATOR); // 6

        assertThat(log.lastStableOffset()).as("P2 is still open").isEqualTo(3);
        try (LogReadResult committed = log.read(0, 1 << 20, true)) {
            assertThat(committed.nextOffset())
                    .as("only P1's batch lies below the LSO")
                    .isEqualTo(3);
        }
        try (LogReadResult atStable = log.read(3, 1 << 20, true)) {
            assertThat(atStable.isEmpty()).isTrue();
        }

        log.append(marker(P2, EPOCH, ControlRecordType.COMMIT), 0, AppendOrigin.COORDINATOR); // 7

        assertThat(log.lastStableOffset()).isEqualTo(8);
        assertThat(log.abortedTransactions(0, 8)).containsExactly(new AbortedTransaction(P1, 0, 6, 3));
        assertThat(log.abortedTransactions(7, 8))
                .as("ended before the fetch offset")
                .isEmpty();
        assertThat(log.abortedTransactions(0, 0))
                .as("began at or after the upper bound")
                .isEmpty();
    }

    @Test
    void shouldRebuildOpenAndAbortedTransactionsWhenTheLogReopens() throws Exception {
        final PartitionLog first = open();
        first.append(transactional(P1, EPOCH, 0, 2), 0); // 0..1
        first.append(marker(P1, EPOCH, ControlRecordType.ABORT), 0, AppendOrigin.COORDINATOR); // 2
        first.append(transactional(P2, EPOCH, 0, 2), 0); // 3..4
        first.close();
        logs.remove(first);

        final PartitionLog reopened = open();

        assertThat(reopened.lastStableOffset()).isEqualTo(3);
        assertThat(reopened.abortedTransactions(0, 3)).containsExactly(new AbortedTransaction(P1, 0, 2, 3));
        assertThat(reopened.hasOpenTransactions()).isTrue();
        reopened.append(marker(P2, EPOCH, ControlRecordType.COMMIT), 0, AppendOrigin.COORDINATOR);
        assertThat(reopened.lastStableOffset()).isEqualTo(6);
        assertThat(reopened.hasOpenTransactions()).isFalse();
    }

    @Test
    void shouldRefuseControlBatchesFromProducers() throws Exception {
        final PartitionLog log = open();

        assertThatThrownBy(() -> log.append(marker(P1, EPOCH, ControlRecordType.COMMIT), 0))
                .isInstanceOf(ProducerRejectedException.class)
                .satisfies(
                        e -> assertThat(((ProducerRejectedException) e).error()).isEqualTo(Errors.INVALID_RECORD))
                .hasMessageContaining("control batches");
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void shouldLetTransactionalDataInOnlyWhenTheCoordinatorAddedThePartition() throws Exception {
        final PartitionLog log = open();
        final List<String> asked = new ArrayList<>();
        log.verifyTransactionsWith((producerId, epoch, partition) -> {
            asked.add(producerId + "/" + epoch + "/" + partition);
            return producerId == P1;
        });

        assertThatThrownBy(() -> log.append(transactional(P2, EPOCH, 0, 1), 0))
                .isInstanceOf(ProducerRejectedException.class)
                .satisfies(
                        e -> assertThat(((ProducerRejectedException) e).error()).isEqualTo(Errors.INVALID_TXN_STATE));
        assertThat(log.logEndOffset()).isZero();

        log.append(transactional(P1, EPOCH, 0, 1), 0);
        log.append(transactional(P1, EPOCH, 1, 1), 0);
        assertThat(asked)
                .as("asked for the transaction's first batch only")
                .containsExactly(P2 + "/0/topic-0", P1 + "/0/topic-0");
        assertThat(log.logEndOffset()).isEqualTo(2);

        // A retry of P2's refused batch after it was added is accepted: the refusal recorded nothing.
        log.verifyTransactionsWith((producerId, epoch, partition) -> true);
        log.append(transactional(P2, EPOCH, 0, 1), 0);
        assertThat(log.logEndOffset()).isEqualTo(3);
    }

    @Test
    void shouldFenceTheOldEpochWithANewerMarkerAndRefuseAStaleMarker() throws Exception {
        final PartitionLog log = open();
        log.append(transactional(P1, EPOCH, 0, 2), 0);
        // The coordinator aborted at a bumped epoch (timeout or a new producer of the same transactional id).
        log.append(marker(P1, (short) (EPOCH + 1), ControlRecordType.ABORT), 0, AppendOrigin.COORDINATOR);

        assertThatThrownBy(() -> log.append(transactional(P1, EPOCH, 2, 1), 0))
                .isInstanceOf(ProducerRejectedException.class)
                .satisfies(e ->
                        assertThat(((ProducerRejectedException) e).error()).isEqualTo(Errors.INVALID_PRODUCER_EPOCH));
        assertThatThrownBy(() -> log.append(marker(P1, EPOCH, ControlRecordType.COMMIT), 0, AppendOrigin.COORDINATOR))
                .isInstanceOf(ProducerRejectedException.class)
                .satisfies(e ->
                        assertThat(((ProducerRejectedException) e).error()).isEqualTo(Errors.INVALID_PRODUCER_EPOCH));
        assertThat(log.logEndOffset()).isEqualTo(3);
        assertThat(log.abortedTransactions(0, 3)).containsExactly(new AbortedTransaction(P1, 0, 2, 3));
    }

    @Test
    void shouldRefuseTheMarkerOfACoordinatorOlderThanOneWhoseMarkerItHoldsAcrossAReopen() throws Exception {
        final PartitionLog first = open();
        first.append(transactional(P1, EPOCH, 0, 2), 0);
        // The coordinator elected after a failover of the state partition (its epoch 3) ended the transaction.
        first.append(marker(P1, EPOCH, ControlRecordType.COMMIT, 3), 0, AppendOrigin.COORDINATOR);
        first.append(transactional(P1, EPOCH, 2, 2), 0); // the producer's next transaction, same epoch
        final long end = first.logEndOffset();
        // The superseded coordinator (epoch 2) must not end the new transaction.
        assertThatThrownBy(
                        () -> first.append(marker(P1, EPOCH, ControlRecordType.ABORT, 2), 0, AppendOrigin.COORDINATOR))
                .isInstanceOf(ProducerRejectedException.class)
                .satisfies(e -> assertThat(((ProducerRejectedException) e).error())
                        .isEqualTo(Errors.TRANSACTION_COORDINATOR_FENCED));
        assertThat(first.logEndOffset()).isEqualTo(end);
        first.close();
        logs.remove(first);

        final PartitionLog reopened = open();
        assertThatThrownBy(() ->
                        reopened.append(marker(P1, EPOCH, ControlRecordType.ABORT, 2), 0, AppendOrigin.COORDINATOR))
                .isInstanceOf(ProducerRejectedException.class)
                .satisfies(e -> assertThat(((ProducerRejectedException) e).error())
                        .isEqualTo(Errors.TRANSACTION_COORDINATOR_FENCED));
        reopened.append(marker(P1, EPOCH, ControlRecordType.COMMIT, 3), 0, AppendOrigin.COORDINATOR);
        assertThat(reopened.hasOpenTransactions()).isFalse();
    }

    @Test
    void shouldWriteMarkersKafkaReadsAsItsOwn() {
        final MemorySegment buffer = MemorySegment.ofArray(new byte[EndTransactionMarker.MAX_BATCH_LENGTH]);
        final int size;
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            size = EndTransactionMarker.write(builder, buffer, 0, P1, (short) 3, false, 7, 1234L);
        }
        final RecordBatch batch = MemoryRecords.readableRecords(
                        ByteBuffer.wrap(buffer.asSlice(0, size).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)))
                .batches()
                .iterator()
                .next();
        batch.ensureValid();
        assertThat(batch.isControlBatch()).isTrue();
        assertThat(batch.isTransactional()).isTrue();
        assertThat(batch.producerId()).isEqualTo(P1);
        assertThat(batch.producerEpoch()).isEqualTo((short) 3);
        final org.apache.kafka.common.record.internal.Record record =
                batch.iterator().next();
        assertThat(ControlRecordType.parse(record.key())).isEqualTo(ControlRecordType.ABORT);
        assertThat(org.apache.kafka.common.record.internal.EndTransactionMarker.deserialize(record)
                        .coordinatorEpoch())
                .isEqualTo(7);
        assertThat(EndTransactionMarker.controlType(buffer, 0)).isEqualTo(EndTransactionMarker.ABORT);
        assertThat(RecordBatchDescriptor.batchSize(buffer, 0)).isEqualTo(size);
    }

    // ------------------------------------------------------------------ batches

    private static MemorySegment plain(final int records) {
        return MemorySegment.ofArray(TestBatches.batch(0, records, 1L));
    }
}
