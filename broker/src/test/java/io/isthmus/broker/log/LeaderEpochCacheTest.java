package io.isthmus.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.log.LeaderEpochCache.Entry;
import io.isthmus.broker.log.LeaderEpochCache.EpochEndOffset;
import org.junit.jupiter.api.Test;

/** The rules of Kafka's leader-epoch cache (KIP-101, KIP-279), one per test. */
class LeaderEpochCacheTest {
    private final LeaderEpochCache cache = new LeaderEpochCache("t-0");

    @Test
    void theNewestEpochEndsAtTheLogEndOffset() {
        cache.assign(0, 0);
        cache.assign(3, 120);

        assertThat(cache.endOffsetFor(3, 610)).isEqualTo(new EpochEndOffset(3, 610));
    }

    @Test
    void anOlderEpochEndsWhereTheNextKnownOneBegins() {
        cache.assign(0, 0);
        cache.assign(3, 120);
        cache.assign(4, 455);

        assertThat(cache.endOffsetFor(0, 610)).isEqualTo(new EpochEndOffset(0, 120));
        assertThat(cache.endOffsetFor(3, 610)).isEqualTo(new EpochEndOffset(3, 455));
    }

    @Test
    void aSkippedEpochIsAnsweredWithTheLargestKnownOneBelowIt() {
        cache.assign(0, 0);
        cache.assign(3, 120);

        assertThat(cache.endOffsetFor(2, 610)).isEqualTo(new EpochEndOffset(0, 120));
    }

    @Test
    void anEpochOlderThanEveryEntryEndsWhereTheFirstBegins() {
        cache.assign(5, 1000);
        cache.assign(6, 1500);

        assertThat(cache.endOffsetFor(2, 2000)).isEqualTo(new EpochEndOffset(2, 1000));
    }

    @Test
    void unknownAndNewerEpochsAreUndefined() {
        assertThat(cache.endOffsetFor(0, 0).isUndefined()).isTrue();
        cache.assign(1, 0);

        assertThat(cache.endOffsetFor(LeaderEpochCache.UNDEFINED_EPOCH, 10)).isEqualTo(EpochEndOffset.UNDEFINED);
        assertThat(cache.endOffsetFor(7, 10)).isEqualTo(EpochEndOffset.UNDEFINED);
    }

    @Test
    void theSameEpochAgainChangesNothing() {
        assertThat(cache.assign(2, 10)).isTrue();

        assertThat(cache.assign(2, 25)).isFalse();
        assertThat(cache.entries()).containsExactly(new Entry(2, 10));
    }

    @Test
    void anEpochWithoutBatchesIsReplacedByTheNextOneAtTheSameOffset() {
        cache.assign(1, 0);
        cache.assign(2, 40); // became leader at 40, appended nothing
        cache.assign(3, 40);

        assertThat(cache.entries()).containsExactly(new Entry(1, 0), new Entry(3, 40));
    }

    @Test
    void anEntryThatContradictsNewerOnesRemovesThem() {
        cache.assign(1, 0);
        cache.assign(4, 50);
        cache.assign(5, 90);

        cache.assign(3, 60);

        assertThat(cache.entries()).containsExactly(new Entry(1, 0), new Entry(3, 60));
    }

    @Test
    void truncationFromTheEndDropsEpochsThatBeginAtOrAfterTheCut() {
        cache.assign(1, 0);
        cache.assign(2, 50);
        cache.assign(3, 90);

        cache.truncateFromEnd(90);

        assertThat(cache.entries()).containsExactly(new Entry(1, 0), new Entry(2, 50));
        assertThat(cache.endOffsetFor(2, 95)).isEqualTo(new EpochEndOffset(2, 95));
    }

    @Test
    void truncationFromTheStartMovesTheCoveringEpochUp() {
        cache.assign(1, 0);
        cache.assign(2, 50);
        cache.assign(3, 90);

        cache.truncateFromStart(70);

        assertThat(cache.entries()).containsExactly(new Entry(2, 70), new Entry(3, 90));
        assertThat(cache.epochAt(69)).isEqualTo(LeaderEpochCache.UNDEFINED_EPOCH);
        assertThat(cache.epochAt(89)).isEqualTo(2);
        assertThat(cache.epochAt(90)).isEqualTo(3);
    }

    @Test
    void negativeEntriesAreRefused() {
        assertThatThrownBy(() -> cache.assign(-1, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("t-0");
        assertThatThrownBy(() -> cache.assign(0, -5)).isInstanceOf(IllegalArgumentException.class);
    }
}
