package io.isthmus.connector.flink.testing;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;

/**
 * A map that passes longs through and fails the job {@code failures} times, evenly spread over {@code records} (at a
 * half for one failure, a third and two thirds for two), each time only after a checkpoint completed since the last
 * (re)start, so every restart has progress to restore, and, if asked, only once {@code recordsAfterCheckpoint} records
 * went through since the last checkpoint completed, so a transactional sink has written some of them to the broker
 * in the transaction the failure aborts (failing right after a checkpoint could find nothing written yet). Its
 * counters are static: they live across the restarts of a job in the test JVM, and a test {@link #reset}s them before
 * its job. Optionally paced (a millisecond's pause every {@code pauseEvery} records), so that a test can act while
 * records still flow.
 */
public final class InjectedFailures extends RichMapFunction<Long, Long> implements CheckpointListener {
    private static final AtomicLong PASSED = new AtomicLong();
    private static final AtomicInteger FAILED = new AtomicInteger();
    private static final AtomicBoolean CHECKPOINTED_SINCE_START = new AtomicBoolean();
    /** {@link #PASSED} when a checkpoint last completed. */
    private static final AtomicLong PASSED_AT_CHECKPOINT = new AtomicLong();

    private final long records;
    private final int failures;
    private final int pauseEvery;
    private final long recordsAfterCheckpoint;

    public InjectedFailures(final long records, final int failures, final int pauseEvery) {
        this(records, failures, pauseEvery, 0);
    }

    public InjectedFailures(
            final long records, final int failures, final int pauseEvery, final long recordsAfterCheckpoint) {
        this.records = records;
        this.failures = failures;
        this.pauseEvery = pauseEvery;
        this.recordsAfterCheckpoint = recordsAfterCheckpoint;
    }

    /** Zeroes the counters, before a job. */
    public static void reset() {
        PASSED.set(0);
        FAILED.set(0);
        PASSED_AT_CHECKPOINT.set(0);
    }

    /** Records that went through, replays after restarts included. */
    public static long passed() {
        return PASSED.get();
    }

    /** Failures injected so far. */
    public static int failed() {
        return FAILED.get();
    }

    @Override
    public void open(final OpenContext context) {
        CHECKPOINTED_SINCE_START.set(false);
    }

    @Override
    public Long map(final Long value) throws InterruptedException {
        final long passed = PASSED.incrementAndGet();
        final int failed = FAILED.get();
        if (failed < failures
                && passed > (failed + 1) * (records / (failures + 1))
                && CHECKPOINTED_SINCE_START.get()
                && passed - PASSED_AT_CHECKPOINT.get() >= recordsAfterCheckpoint
                && FAILED.compareAndSet(failed, failed + 1)) {
            throw new IllegalStateException("injected failure " + (failed + 1) + " after " + passed);
        }
        if (pauseEvery > 0 && passed % pauseEvery == 0) {
            Thread.sleep(1);
        }
        return value;
    }

    @Override
    public void notifyCheckpointComplete(final long checkpointId) {
        PASSED_AT_CHECKPOINT.set(PASSED.get());
        CHECKPOINTED_SINCE_START.set(true);
    }
}
