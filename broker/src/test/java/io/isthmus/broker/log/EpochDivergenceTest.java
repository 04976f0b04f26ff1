package io.isthmus.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.log.EpochDivergence.Truncation;
import io.isthmus.broker.log.LeaderEpochCache.EpochEndOffset;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * KIP-101's and KIP-279's divergence scenarios on real logs, and a randomized history of elections among three replicas
 * in which followers catch up through {@link EpochDivergence} only: afterwards no acknowledged record is lost and every
 * replica holds the leader's log byte for byte.
 */
class EpochDivergenceTest {
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path tmp;

    private final MutableClock clock = new MutableClock(T0);
    private final SegmentIdAllocator ids = new SegmentIdAllocator();
    private final List<PartitionLog> open = new ArrayList<>();
    private int written;

    @AfterEach
    void closeAll() {
        open.reversed().forEach(PartitionLog::close);
    }

    private PartitionLog replica(final String name) throws IOException {
        final Map<String, String> props = new HashMap<>(Map.of(
                LogConfig.SEGMENT_BYTES, "2048",
                LogConfig.INDEX_INTERVAL_BYTES, "128",
                LogConfig.INDEX_SIZE_MAX_BYTES, "4096"));
        final PartitionLog log = PartitionLog.open(tmp.resolve(name + "-0"), LogConfig.from(props), ids, clock);
        open.add(log);
        return log;
    }

    /** A batch of one to three records with values unique across the test, so divergent copies never look alike. */
    private void write(final PartitionLog leader, final int epoch, final Random random) {
        final int records = 1 + random.nextInt(3);
        leader.append(TestBatches.segment(TestBatches.batch(written, records, T0)), epoch);
        written += records;
    }

    private void write(final PartitionLog leader, final int epoch, final int batches) {
        for (int i = 0; i < batches; i++) {
            leader.append(TestBatches.segment(TestBatches.batch(written, 2, T0)), epoch);
            written += 2;
        }
    }

    /**
     * One follower fetch round trip as the replica fetcher will make it: the follower's log end offset and newest
     * epoch go to the leader, which either answers a diverging epoch (the follower truncates) or up to {@code maxBytes}
     * of batches (the follower appends them). Returns whether the follower's log changed.
     */
    private static boolean fetch(final PartitionLog leader, final PartitionLog follower, final int maxBytes) {
        final long fetchOffset = follower.logEndOffset();
        final Optional<EpochEndOffset> diverging =
                EpochDivergence.divergingEpoch(leader, follower.latestEpoch(), fetchOffset);
        if (diverging.isPresent()) {
            final Truncation truncation = EpochDivergence.truncationFor(follower, diverging.get(), 0);
            final int epochBefore = follower.latestEpoch();
            follower.truncateTo(truncation.offset());
            return follower.logEndOffset() != fetchOffset || follower.latestEpoch() != epochBefore;
        }
        if (fetchOffset >= leader.logEndOffset()) {
            return false;
        }
        try (LogReadResult result = leader.read(fetchOffset, maxBytes)) {
            follower.appendAsFollower(result.records());
        }
        return true;
    }

    /** Fetches until the follower's log is the leader's; fails if that takes more rounds than the log has batches. */
    private static void catchUp(final PartitionLog leader, final PartitionLog follower) {
        int rounds = 0;
        while (fetch(leader, follower, 512)) {
            assertThat(++rounds).as("fetch rounds").isLessThan(10_000);
        }
        assertThat(bytes(follower)).isEqualTo(bytes(leader));
        assertThat(follower.leaderEpochs()).containsExactly(writtenEpochs(leader));
    }

    /** The leader's epochs that have batches (one it only assigned itself is not replicated until it writes). */
    private static LeaderEpochCache.Entry[] writtenEpochs(final PartitionLog log) {
        return Arrays.stream(log.leaderEpochs())
                .filter(e -> e.startOffset() < log.logEndOffset())
                .toArray(LeaderEpochCache.Entry[]::new);
    }

    private static byte[] bytes(final PartitionLog log) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        long offset = log.logStartOffset();
        while (offset < log.logEndOffset()) {
            try (LogReadResult result = log.read(offset, 1 << 20)) {
                out.writeBytes(result.records().toArray(ValueLayout.JAVA_BYTE));
                offset = result.nextOffset();
            }
        }
        return out.toByteArray();
    }

    private static boolean startsWith(final byte[] log, final byte[] prefix) {
        return log.length >= prefix.length && Arrays.equals(log, 0, prefix.length, prefix, 0, prefix.length);
    }

    @Test
    void kip101DivergenceTheFollowerDropsTheUnreplicatedTail() throws IOException {
        // A leads epoch 0 and writes two batches; B has only the first when both lose power. B comes back first,
        // leads epoch 1 and writes another batch at the offset where A has its second.
        final PartitionLog a = replica("a");
        final PartitionLog b = replica("b");
        a.assignLeaderEpoch(0);
        write(a, 0, 1);
        catchUp(a, b);
        write(a, 0, 1);
        b.assignLeaderEpoch(1);
        write(b, 1, 1);

        catchUp(b, a);

        assertThat(a.leaderEpochs()).extracting(LeaderEpochCache.Entry::epoch).containsExactly(0, 1);
    }

    @Test
    void kip101HighWatermarkTruncationNoLongerLosesTheRecordBothHave() throws IOException {
        // Both have both batches; the follower restarts knowing only an older high watermark. With epochs it truncates
        // nothing, so when it leads next the second batch is still there.
        final PartitionLog a = replica("a");
        final PartitionLog b = replica("b");
        a.assignLeaderEpoch(0);
        write(a, 0, 2);
        catchUp(a, b);

        assertThat(EpochDivergence.divergingEpoch(a, b.latestEpoch(), b.logEndOffset()))
                .isEmpty();
        b.assignLeaderEpoch(1);
        catchUp(b, a);
        assertThat(a.logEndOffset()).isEqualTo(4);
    }

    @Test
    void kip279AFollowerWithEpochsTheLeaderNeverHadUnwindsInSteps() throws IOException {
        // Common epoch 1; then A led epoch 2 and B led epoch 3, neither replicating to the other; A leads epoch 4.
        final PartitionLog a = replica("a");
        final PartitionLog b = replica("b");
        a.assignLeaderEpoch(1);
        write(a, 1, 3);
        catchUp(a, b);
        a.assignLeaderEpoch(2);
        write(a, 2, 2);
        b.assignLeaderEpoch(3);
        write(b, 3, 4);
        a.assignLeaderEpoch(4);
        write(a, 4, 2);

        // B asks about epoch 3; A answers with epoch 2, which B does not have: B cuts back to where its epoch 1 ends
        // and must ask again before it fetches.
        final EpochEndOffset first = EpochDivergence.divergingEpoch(a, b.latestEpoch(), b.logEndOffset())
                .orElseThrow();
        assertThat(first).isEqualTo(new EpochEndOffset(2, 10));
        final Truncation step = EpochDivergence.truncationFor(b, first, 0);
        assertThat(step).isEqualTo(new Truncation(6, false));

        catchUp(a, b);
        assertThat(b.leaderEpochs()).extracting(LeaderEpochCache.Entry::epoch).containsExactly(1, 2, 4);
    }

    @Test
    void aLeaderAnsweringNoEndOffsetLeavesTheFollowerItsHighWatermark() throws IOException {
        final PartitionLog follower = replica("f");
        write(follower, 0, 5);

        assertThat(EpochDivergence.truncationFor(follower, EpochEndOffset.UNDEFINED, 4))
                .isEqualTo(new Truncation(4, true));
    }

    /**
     * Elections among three replicas, each new leader chosen among those holding every acknowledged record (as the
     * controller picks from the ISR); a leader writes, some followers catch up fully, some fetch a little, some not at
     * all. A record is acknowledged once two replicas hold it. At every step a follower's log after fetching is a
     * prefix of its leader's, and the acknowledged bytes are a prefix of every eligible replica's log.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void randomElectionsLoseNoAcknowledgedRecordAndKeepNoDivergentOne(final long seed) throws IOException {
        final Random random = new Random(seed);
        final List<PartitionLog> replicas = List.of(replica("r0"), replica("r1"), replica("r2"));
        byte[] acknowledged = new byte[0];
        PartitionLog leader = replicas.getFirst();
        for (int epoch = 0; epoch < 40; epoch++) {
            final byte[] committed = acknowledged;
            final List<PartitionLog> eligible = replicas.stream()
                    .filter(r -> startsWith(bytes(r), committed))
                    .toList();
            assertThat(eligible)
                    .as("replicas holding every acknowledged record")
                    .hasSizeGreaterThanOrEqualTo(2);
            leader = eligible.get(random.nextInt(eligible.size()));
            leader.assignLeaderEpoch(epoch);
            final int batches = random.nextInt(5);
            for (int i = 0; i < batches; i++) {
                write(leader, epoch, random);
            }
            final List<byte[]> heldByFollowers = new ArrayList<>();
            for (final PartitionLog follower : replicas) {
                if (follower == leader) {
                    continue;
                }
                switch (random.nextInt(3)) {
                    case 0 -> catchUp(leader, follower);
                    case 1 -> {
                        for (int round = random.nextInt(4); round > 0; round--) {
                            fetch(leader, follower, 64 + random.nextInt(400));
                        }
                    }
                    default -> {
                        // cut off this epoch
                    }
                }
                final byte[] held = bytes(follower);
                if (startsWith(bytes(leader), held)) {
                    heldByFollowers.add(held);
                }
            }
            // Acknowledged: what the leader and at least one follower hold identically (min.insync.replicas = 2).
            for (final byte[] held : heldByFollowers) {
                if (held.length > acknowledged.length && startsWith(held, acknowledged)) {
                    acknowledged = held;
                }
            }
        }
        for (final PartitionLog follower : replicas) {
            if (follower != leader) {
                catchUp(leader, follower);
            }
        }
        for (final PartitionLog replica : replicas) {
            assertThat(startsWith(bytes(replica), acknowledged)).isTrue();
            assertThat(bytes(replica)).isEqualTo(bytes(leader));
        }
        assertThat(acknowledged.length).as("the history acknowledged something").isPositive();
    }
}
