package io.isthmus.broker.slots;

import static io.isthmus.broker.testkit.TransactionalBatches.marker;
import static io.isthmus.broker.testkit.TransactionalBatches.transactional;
import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.log.AppendOrigin;
import io.isthmus.broker.log.LogConfig;
import io.isthmus.broker.log.LogSegment;
import io.isthmus.broker.log.PartitionLog;
import io.isthmus.broker.log.SegmentIdAllocator;
import io.isthmus.broker.testkit.KafkaBatches;
import io.isthmus.protocol.control.AbortedTransactionsDescriptor;
import io.isthmus.protocol.control.MetadataSlotDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionSlotsTest {
    private static final long SLOT_0 = 0;
    private static final long SLOT_1 = MetadataSlotDescriptor.LENGTH;

    @TempDir
    Path tmp;

    private final Arena arena = Arena.ofConfined();
    private MemorySegment memory;
    private PartitionLog log;
    private AbortedTransactionArray aborted;
    private PartitionSlots slots;

    @BeforeEach
    void open() throws Exception {
        memory = arena.allocate(4L * MetadataSlotDescriptor.LENGTH, 8);
        log = PartitionLog.open(
                tmp.resolve("t-0"),
                LogConfig.from(Map.of(LogConfig.SEGMENT_BYTES, "8192")),
                new SegmentIdAllocator(),
                InstantSource.system());
        aborted = new AbortedTransactionArray(log);
        slots = new PartitionSlots(
                "t-0", memory, log::readablePosition, log::highWatermark, log::lastStableOffset, aborted);
    }

    @AfterEach
    void close() {
        slots.close();
        log.close();
        arena.close();
    }

    private void append(final int records) {
        log.append(KafkaBatches.segment(KafkaBatches.plain("v", records, 1_700_000_000_000L)), 0);
    }

    @Test
    void shouldPublishTheSegmentStateWhenAssigned() {
        append(3);
        final LogSegment segment = log.activeSegment();

        slots.assign(SLOT_1, segment);

        final long readable = MetadataSlotDescriptor.readable(memory, SLOT_1);
        assertThat(MetadataSlotDescriptor.position(readable)).isEqualTo(segment.committedPosition());
        assertThat(MetadataSlotDescriptor.isSealed(readable)).isFalse();
        assertThat(MetadataSlotDescriptor.highWatermark(memory, SLOT_1)).isEqualTo(3);
        assertThat(MetadataSlotDescriptor.segmentId(memory, SLOT_1)).isEqualTo(segment.id());
        assertThat(MetadataSlotDescriptor.readable(memory, SLOT_0)).isZero();
    }

    @Test
    void shouldFollowAppendsAndSealing() {
        final LogSegment first = log.activeSegment();
        slots.assign(SLOT_0, first);
        append(2);
        slots.run();
        assertThat(MetadataSlotDescriptor.position(MetadataSlotDescriptor.readable(memory, SLOT_0)))
                .isEqualTo(first.committedPosition())
                .isPositive();

        log.roll();
        slots.run();

        final long readable = MetadataSlotDescriptor.readable(memory, SLOT_0);
        assertThat(MetadataSlotDescriptor.isSealed(readable)).isTrue();
        assertThat(MetadataSlotDescriptor.position(readable)).isEqualTo(first.committedPosition());
    }

    @Test
    void aReplicatedPartitionsSlotEndsAtTheHighWatermarkAndIsSealedOnlyOnceItReachesTheSegmentEnd() {
        log.trackHighWatermark();
        final LogSegment first = log.activeSegment();
        append(2);
        final long firstBatchEnd = first.committedPosition();
        append(3);
        slots.assign(SLOT_0, first);
        assertThat(MetadataSlotDescriptor.position(MetadataSlotDescriptor.readable(memory, SLOT_0)))
                .as("no follower holds anything yet")
                .isZero();

        log.advanceHighWatermark(2);
        slots.run();
        assertThat(MetadataSlotDescriptor.position(MetadataSlotDescriptor.readable(memory, SLOT_0)))
                .as("the first batch, offsets 0..1, is below the high watermark; the second is not")
                .isEqualTo(firstBatchEnd)
                .isLessThan(first.committedPosition());

        log.roll();
        slots.run();
        long readable = MetadataSlotDescriptor.readable(memory, SLOT_0);
        assertThat(MetadataSlotDescriptor.isSealed(readable))
                .as("sealed, but a reader must not move on before the high watermark reaches the end")
                .isFalse();
        assertThat(MetadataSlotDescriptor.position(readable)).isEqualTo(firstBatchEnd);

        log.advanceHighWatermark(5);
        slots.run();
        readable = MetadataSlotDescriptor.readable(memory, SLOT_0);
        assertThat(MetadataSlotDescriptor.position(readable)).isEqualTo(first.committedPosition());
        assertThat(MetadataSlotDescriptor.isSealed(readable)).isTrue();
        assertThat(MetadataSlotDescriptor.highWatermark(memory, SLOT_0)).isEqualTo(5);
    }

    @Test
    void shouldNameTheNextSegmentAndThePartitionsHighWatermarkWhenTheSlotMovesOn() {
        append(1);
        final LogSegment first = log.activeSegment();
        slots.assign(SLOT_0, first);
        log.roll();
        append(2);

        slots.assign(SLOT_0, log.activeSegment());

        assertThat(MetadataSlotDescriptor.segmentId(memory, SLOT_0))
                .isEqualTo(log.activeSegment().id())
                .isNotEqualTo(first.id());
        assertThat(MetadataSlotDescriptor.highWatermark(memory, SLOT_0)).isEqualTo(3);
        assertThat(slots.size()).isEqualTo(1);
    }

    @Test
    void shouldPublishThePartitionsHighWatermarkForASlotOnASealedSegment() {
        append(1);
        final LogSegment first = log.activeSegment();
        slots.assign(SLOT_0, first);
        log.roll();

        append(4);
        slots.run();

        // Lag is measured against the partition, not against the sealed segment the consumer still reads.
        assertThat(MetadataSlotDescriptor.isSealed(MetadataSlotDescriptor.readable(memory, SLOT_0)))
                .isTrue();
        assertThat(MetadataSlotDescriptor.highWatermark(memory, SLOT_0)).isEqualTo(5);
    }

    @Test
    void shouldMarkARevokedSlotAndStopUpdatingIt() {
        slots.assign(SLOT_0, log.activeSegment());

        slots.revoke(SLOT_0);
        append(1);
        slots.run();

        final long readable = MetadataSlotDescriptor.readable(memory, SLOT_0);
        assertThat(MetadataSlotDescriptor.isRevoked(readable)).isTrue();
        assertThat(MetadataSlotDescriptor.position(readable)).isZero();
        assertThat(slots.isEmpty()).isTrue();
    }

    @Test
    void shouldZeroAnUnassignedSlot() {
        append(1);
        slots.assign(SLOT_1, log.activeSegment());

        slots.unassign(SLOT_1);

        assertThat(memory.asSlice(SLOT_1, MetadataSlotDescriptor.LENGTH)
                        .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))
                .containsOnly((byte) 0);
        assertThat(slots.isEmpty()).isTrue();
    }

    @Test
    void shouldPublishTheLastStableOffsetAndTheAbortedTransactionsBehindIt() {
        slots.assign(SLOT_0, log.activeSegment());
        log.append(transactional(1, (short) 0, 0, 2), 0); // 0..1, open
        log.append(transactional(2, (short) 0, 0, 2), 0); // 2..3, open
        slots.run();
        assertThat(MetadataSlotDescriptor.lastStableOffset(memory, SLOT_0)).isZero();
        assertThat(MetadataSlotDescriptor.highWatermark(memory, SLOT_0)).isEqualTo(4);
        assertThat(MetadataSlotDescriptor.abortedCount(memory, SLOT_0)).isZero();

        log.append(marker(1, (short) 0, ControlRecordType.ABORT), 0, AppendOrigin.COORDINATOR); // 4
        slots.run();
        assertThat(MetadataSlotDescriptor.lastStableOffset(memory, SLOT_0))
                .as("producer 2 still open")
                .isEqualTo(2);
        assertThat(MetadataSlotDescriptor.abortedCount(memory, SLOT_0)).isEqualTo(1);
        assertThat(AbortedTransactionsDescriptor.producerId(aborted.memory(), 0))
                .isEqualTo(1);
        assertThat(AbortedTransactionsDescriptor.firstOffset(aborted.memory(), 0))
                .isZero();
        assertThat(AbortedTransactionsDescriptor.lastOffset(aborted.memory(), 0))
                .isEqualTo(4);

        log.append(marker(2, (short) 0, ControlRecordType.COMMIT), 0, AppendOrigin.COORDINATOR); // 5
        slots.run();
        assertThat(MetadataSlotDescriptor.lastStableOffset(memory, SLOT_0)).isEqualTo(6);
        assertThat(MetadataSlotDescriptor.abortedCount(memory, SLOT_0)).isEqualTo(1);
    }

    @Test
    void shouldMoveTheAbortedTransactionsToALargerArrayWhenTheyFillIt() throws Exception {
        final int aborts = AbortedTransactionArray.INITIAL_CAPACITY + 10;
        try (PartitionLog big = PartitionLog.open(
                        tmp.resolve("big-0"),
                        LogConfig.from(Map.of(LogConfig.SEGMENT_BYTES, Integer.toString(1 << 20))),
                        new SegmentIdAllocator(),
                        InstantSource.system());
                AbortedTransactionArray array = new AbortedTransactionArray(big)) {
            for (int i = 0; i < aborts; i++) {
                big.append(transactional(100 + i, (short) 0, 0, 1), 0);
                big.append(marker(100 + i, (short) 0, ControlRecordType.ABORT), 0, AppendOrigin.COORDINATOR);
            }

            assertThat(array.sync()).isEqualTo(aborts);

            assertThat(array.base()).as("nothing was deleted by retention").isZero();
            assertThat(array.capacity()).isGreaterThanOrEqualTo(aborts);
            for (int i = 0; i < aborts; i++) {
                assertThat(AbortedTransactionsDescriptor.producerId(array.memory(), i))
                        .isEqualTo(100 + i);
                assertThat(AbortedTransactionsDescriptor.firstOffset(array.memory(), i))
                        .isEqualTo(2L * i);
                assertThat(AbortedTransactionsDescriptor.lastOffset(array.memory(), i))
                        .isEqualTo(2L * i + 1);
            }
            assertThat(array.sync()).as("nothing new").isEqualTo(aborts);
        }
    }
}
