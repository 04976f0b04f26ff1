package io.isthmus.fuzz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.isthmus.broker.Broker;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.security.AclStore;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A million generated frames at a broker in this JVM, while a kafka-clients producer and consumer keep working: no
 * broker death, no unexpected server error, no acknowledged record lost or duplicated, bounded memory, and nothing
 * left behind once the fuzzing connections are gone (connections, long polls).
 */
// A million frames take 80 s on an idle 2-core machine, near the suites' 120 s default: a busy one took longer and
// failed CI. The run's length says nothing about correctness; this bound only catches a broker that stopped answering.
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class FuzzTest {
    private static final long FRAMES = 1_000_000;
    /** The broker's network buffers stay far below this: pooled, and bounded per connection by backpressure. */
    private static final long BUFFER_MEMORY_BOUND = 64L << 20;
    /** What the broker may keep on the heap after the run: the topics, groups and transactional ids the fuzz made. */
    private static final long HEAP_GROWTH_BOUND = 256L << 20;

    @TempDir
    Path logDir;

    private final List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    private Thread.UncaughtExceptionHandler previousHandler;
    private Broker broker;

    @BeforeEach
    void setUp() throws Exception {
        previousHandler = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> uncaught.add(e));
        broker = Broker.startEmbedded(logDir, FuzzMain.EMBEDDED_SETTINGS);
    }

    @AfterEach
    void tearDown() throws Exception {
        if (broker != null) {
            broker.close();
        }
        Thread.setDefaultUncaughtExceptionHandler(previousHandler);
    }

    @Test
    void aMillionHostileFramesNeitherKillTheBrokerNorLoseAcknowledgedRecords() throws Exception {
        final long seed = Long.getLong("isthmus.fuzz.seed", System.nanoTime());
        final long heapBefore = heapAfterGc();

        final FuzzReport report = FuzzRun.of(FRAMES, seed).against(broker);
        System.out.println("seed " + seed + "\n" + report.format());

        assertThat(report.framesDelivered()).as("seed %d", seed).isGreaterThanOrEqualTo(FRAMES);
        assertThat(report.brokerAlive()).as("seed %d: the broker answers", seed).isTrue();
        assertThat(report.serverErrors())
                .as("seed %d: UNKNOWN_SERVER_ERROR answers", seed)
                .isZero();
        assertThat(report.wellBehaved().acknowledged()).isPositive();
        assertThat(report.wellBehaved().lost())
                .as("seed %d: %s", seed, report.wellBehaved().firstFailure())
                .isZero();
        assertThat(report.wellBehaved().duplicated()).isZero();
        assertThat(report.wellBehaved().firstFailure()).isNull();
        assertThat(report.passed()).isTrue();
        assertThat(report.peakBufferBytes()).isLessThan(BUFFER_MEMORY_BOUND);
        assertThat(uncaught).as("exceptions no thread caught").isEmpty();

        awaitNothingLeftBehind();
        assertThat(heapAfterGc() - heapBefore).isLessThan(HEAP_GROWTH_BOUND);
        assertThatCode(() -> System.out.println("ACL bindings the fuzz got stored, read back: "
                        + AclStore.open(logDir).bindings().size()))
                .as("seed %d: the ACLs the fuzz got stored read back", seed)
                .doesNotThrowAnyException();
    }

    /** Every fuzzing and well-behaved connection closed, every long poll gone with its connection. */
    private void awaitNothingLeftBehind() throws InterruptedException {
        final long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (broker.server().metrics().connections() == 0 && waitingListeners() == 0) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("left behind: connections="
                + broker.server().metrics().connections() + " append listeners=" + waitingListeners());
    }

    private long waitingListeners() {
        long listeners = 0;
        for (final Partition partition : broker.partitions().partitions()) {
            listeners += partition.appendListenerCount();
        }
        return listeners;
    }

    private static long heapAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
