package io.isthmus.broker.log;

import java.nio.file.Path;
import java.time.InstantSource;

/**
 * Child-JVM main for {@link LogRecoveryTest}: appends to the log in {@code args[0]} forever and prints {@code ACK
 * <lastOffset>} after every acknowledged append, until the test kills it with SIGKILL. Record values are {@code
 * "value-<offset>"} so the parent can check every recovered record against its offset.
 */
public final class CrashingAppender {
    private CrashingAppender() {}

    public static void main(final String[] args) throws Exception {
        final LogConfig config = LogRecoveryTest.crashConfig();
        final PartitionLog log =
                PartitionLog.open(Path.of(args[0]), config, new SegmentIdAllocator(), InstantSource.system());
        System.out.println("READY " + log.logEndOffset());
        System.out.flush();
        long n = 0;
        while (true) {
            final long first = log.logEndOffset();
            final int records = 1 + (int) (n++ % 7);
            final AppendInfo info =
                    log.append(TestBatches.segment(TestBatches.batch(first, records, System.currentTimeMillis())), 0);
            System.out.println("ACK " + info.lastOffset());
            System.out.flush();
        }
    }
}
