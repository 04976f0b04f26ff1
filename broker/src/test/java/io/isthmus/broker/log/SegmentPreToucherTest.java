package io.isthmus.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SegmentPreToucherTest {
    private static final long WINDOW = 64 * 1024;

    @TempDir
    Path tmp;

    private final MutableClock clock = new MutableClock(1_700_000_000_000L);
    private final SegmentIdAllocator ids = new SegmentIdAllocator();
    private final LogConfig config = LogConfig.from(Map.of(LogConfig.SEGMENT_BYTES, Integer.toString(1 << 20)));

    @Test
    void shouldTouchAWindowAheadOfTheTailAndChangeNoByte() throws Exception {
        try (SegmentPreToucher preToucher = new SegmentPreToucher(WINDOW);
                PartitionLog log = PartitionLog.open(tmp.resolve("t-0"), config, ids, clock, preToucher)) {
            final byte[] batch = TestBatches.batch(0, 10, clock.millis());
            log.append(TestBatches.segment(batch), 0);
            final LogSegment segment = log.activeSegment();

            awaitTrue(() -> segment.touchedUpTo() >= segment.tail() + WINDOW / 2);

            assertThat(segment.touchedUpTo()).isLessThanOrEqualTo(segment.tail() + WINDOW);
            final MemorySegment mapping = segment.mapping();
            assertThat(TestBatches.values(mapping.asSlice(0, segment.tail()))).hasSize(10);
            assertThat(mapping.asSlice(segment.tail(), segment.touchedUpTo() - segment.tail())
                            .mismatch(MemorySegment.ofArray(new byte[(int) (segment.touchedUpTo() - segment.tail())])))
                    .as("the touched pages past the tail still hold only zeros")
                    .isEqualTo(-1);
        }
    }

    @Test
    void shouldKeepBytesWrittenPastTheTailAsARemoteWriteWould() throws Exception {
        try (SegmentPreToucher preToucher = new SegmentPreToucher(WINDOW);
                PartitionLog log = PartitionLog.open(tmp.resolve("t-0"), config, ids, clock, SegmentPreToucher.NONE)) {
            final LogSegment segment = log.activeSegment();
            // An RDMA WRITE lands ahead of the touching: the first word of a page it is about to touch.
            segment.mapping().set(ValueLayout.JAVA_INT, 8192, 0x5A5A5A5A);

            preToucher.aheadOf(segment);
            awaitTrue(() -> segment.touchedUpTo() >= WINDOW / 2);

            assertThat(segment.mapping().get(ValueLayout.JAVA_INT, 8192)).isEqualTo(0x5A5A5A5A);
        }
    }

    /**
     * Partitions deleted while their pages are being populated: the deletion never fails (a shared arena cannot be
     * closed while a native call holds its memory, so the pre-toucher leases the segment for the call) and every
     * segment file is gone once the last holder lets go.
     */
    @Test
    void shouldLetAPartitionBeDeletedWhilePopulatingItsPages() throws Exception {
        final LogConfig big = LogConfig.from(Map.of(LogConfig.SEGMENT_BYTES, Integer.toString(16 << 20)));
        final List<Path> dirs = new ArrayList<>();
        try (SegmentPreToucher preToucher = new SegmentPreToucher(16 << 20)) {
            for (int i = 0; i < 50; i++) {
                final Path dir = tmp.resolve("t-" + i);
                dirs.add(dir);
                final PartitionLog log = PartitionLog.open(dir, big, ids, clock, preToucher);
                log.append(TestBatches.segment(TestBatches.batch(0, 10, clock.millis())), 0);
                // Populating 16 MiB takes milliseconds: the deletion lands during it, or just before or after.
                Thread.sleep(i % 12);
                log.delete();
            }
        }
        for (final Path dir : dirs) {
            awaitTrue(() -> segmentFiles(dir) == 0);
        }
    }

    /** The segment files (live or renamed for deletion) left in a partition directory. */
    private static long segmentFiles(final Path dir) {
        if (!Files.exists(dir)) {
            return 0;
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString())
                    .filter(name -> name.contains(".log") || name.contains(".index") || name.contains(".timeindex"))
                    .count();
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void shouldNotTouchAnythingWithAWindowOfZero() throws Exception {
        try (PartitionLog log = PartitionLog.open(tmp.resolve("t-0"), config, ids, clock, SegmentPreToucher.NONE)) {
            log.append(TestBatches.segment(TestBatches.batch(0, 10, clock.millis())), 0);

            assertThat(log.activeSegment().touchedUpTo()).isZero();
        }
    }

    @Test
    void shouldRefuseANegativeWindow() {
        assertThatThrownBy(() -> new SegmentPreToucher(-1)).hasMessageContaining("windowBytes=-1");
    }

    /** The pre-toucher works on its own thread: wait for what it must reach, with a deadline. */
    private static void awaitTrue(final BooleanSupplier condition) {
        final long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime())
                    .as("condition not reached within 10 s")
                    .isLessThan(deadline);
            Thread.onSpinWait();
        }
    }
}
