package io.isthmus.client.consumer.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.client.consumer.internals.SubscriptionState.PartitionState;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class SubscriptionStateTest {
    private static final TopicPartition TP0 = new TopicPartition("t", 0);
    private static final TopicPartition TP1 = new TopicPartition("t", 1);

    private final SubscriptionState subscriptions = new SubscriptionState();

    @Test
    void shouldMoveBothPositionsOnASeekAndMakeEarlierFetchesStale() {
        subscriptions.assignFromUser(List.of(TP0));
        final PartitionState state = subscriptions.partition(TP0);
        assertThat(state.hasPosition()).isFalse();

        subscriptions.seek(TP0, 10);
        final int fetchedUnder = state.generation();
        subscriptions.advanceFetchPosition(state, 20);
        assertThat(state.continuesAt(fetchedUnder, 20)).isTrue();

        subscriptions.seek(TP0, 5);

        assertThat(state.position()).isEqualTo(5);
        assertThat(state.fetchPosition()).isEqualTo(5);
        assertThat(state.continuesAt(fetchedUnder, 20)).isFalse();
        subscriptions.advancePosition(state, fetchedUnder, 20);
        assertThat(state.position()).as("stale data moves nothing").isEqualTo(5);
    }

    @Test
    void shouldNeverMoveAPositionBackwards() {
        subscriptions.assignFromUser(List.of(TP0));
        subscriptions.seek(TP0, 10);
        final PartitionState state = subscriptions.partition(TP0);

        subscriptions.advancePosition(state, state.generation(), 15);
        subscriptions.advancePosition(state, state.generation(), 12);

        assertThat(state.position()).isEqualTo(15);
    }

    @Test
    void shouldForgetThePositionOnAResetAndDropDataFetchedBefore() {
        subscriptions.assignFromUser(List.of(TP0, TP1));
        subscriptions.seek(TP0, 10);
        subscriptions.seek(TP1, 0);
        final PartitionState state = subscriptions.partition(TP0);
        final int fetchedUnder = state.generation();

        subscriptions.requestPositionReset(state);

        assertThat(state.hasPosition()).isFalse();
        assertThat(state.fetchable()).isFalse();
        assertThat(state.continuesAt(fetchedUnder, 10)).isFalse();
        assertThat(subscriptions.partitionsWithoutPosition()).containsExactly(TP0);
    }

    @Test
    void shouldKeepPositionsOfPartitionsThatStayAndRefetchWhatWasBufferedPastThem() {
        subscriptions.assignFromUser(List.of(TP0, TP1));
        subscriptions.seek(TP0, 10);
        subscriptions.seek(TP1, 0);
        final PartitionState staying = subscriptions.partition(TP0);
        final PartitionState leaving = subscriptions.partition(TP1);
        subscriptions.advanceFetchPosition(staying, 50);
        final int fetchedUnder = leaving.generation();

        final List<PartitionState> removed = subscriptions.assignFromUser(List.of(TP0));

        assertThat(removed).containsExactly(leaving);
        assertThat(subscriptions.partition(TP0)).isSameAs(staying);
        assertThat(staying.position()).isEqualTo(10);
        assertThat(staying.fetchPosition())
                .as("buffered data is discarded on an assignment change: fetch it again")
                .isEqualTo(10);
        assertThat(leaving.continuesAt(fetchedUnder, 0))
                .as("a response in flight for a partition no longer assigned is dropped")
                .isFalse();
        assertThat(subscriptions.assignedPartitions()).containsExactly(TP0);
        assertThatThrownBy(() -> subscriptions.partition(TP1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not assigned");
    }

    @Test
    void shouldKeepManualAssignmentAndSubscriptionApart() {
        subscriptions.assignFromUser(List.of(TP0));
        assertThatThrownBy(() -> subscriptions.subscribe(List.of("t"), null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("subscribe() after assign()");

        subscriptions.unsubscribe();
        subscriptions.subscribe(List.of("t"), null);
        subscriptions.assignFromGroup(List.of(TP0, TP1));

        assertThat(subscriptions.subscription()).containsExactly("t");
        assertThat(subscriptions.assignedPartitions()).containsExactlyInAnyOrder(TP0, TP1);
        assertThatThrownBy(() -> subscriptions.assignFromUser(List.of(TP0)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("assign() after subscribe()");
    }

    @Test
    void shouldPauseAndResumeFetchingButNotPositions() {
        subscriptions.assignFromUser(List.of(TP0, TP1));
        subscriptions.seek(TP0, 3);
        final PartitionState state = subscriptions.partition(TP0);
        state.leader(1, org.apache.kafka.common.Uuid.ZERO_UUID);
        assertThat(state.fetchable()).isTrue();

        subscriptions.pause(TP0);

        assertThat(state.fetchable()).isFalse();
        assertThat(subscriptions.paused()).isEqualTo(Set.of(TP0));
        assertThat(state.position()).isEqualTo(3);
        subscriptions.resume(TP0);
        assertThat(state.fetchable()).isTrue();
        assertThat(subscriptions.consumedPositions()).containsEntry(TP0, 3L).doesNotContainKey(TP1);
    }
}
