package io.isthmus.broker.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReservationSequencerTest {
    @Test
    void shouldReleaseWritesOnlyInReservationOrderWhateverOrderTheyArriveIn() {
        final ReservationSequencer sequencer = new ReservationSequencer(8);
        assertThat(sequencer.arrive(2, "c", 102, null)).isTrue();
        assertThat(sequencer.arrive(1, "b", 101, null)).isTrue();
        assertThat(sequencer.nextArrived()).as("order 0 is missing").isFalse();

        assertThat(sequencer.arrive(0, "a", 100, null)).isTrue();
        final List<Object> committed = new ArrayList<>();
        while (sequencer.nextArrived()) {
            committed.add(sequencer.nextWriter() + ":" + sequencer.nextImmediate());
            sequencer.advance();
        }

        assertThat(committed).containsExactly("a:100", "b:101", "c:102");
        assertThat(sequencer.nextOrder()).isEqualTo(3);
        assertThat(sequencer.waiting()).isZero();
    }

    @Test
    void shouldHandOutEachWritesStagingSlotWithItsOrderAndForgetItAfter() {
        final ReservationSequencer sequencer = new ReservationSequencer(4);
        final MemorySegment slotOfOrder1 = MemorySegment.ofArray(new byte[8]);
        final MemorySegment slotOfOrder0 = MemorySegment.ofArray(new byte[16]);
        sequencer.arrive(1, "rdma b", 11, slotOfOrder1);
        sequencer.arrive(0, "rdma a", 10, slotOfOrder0);
        sequencer.arrive(2, "tcp", -1, null);

        assertThat(sequencer.nextStaged()).isSameAs(slotOfOrder0);
        sequencer.advance();
        assertThat(sequencer.nextStaged()).isSameAs(slotOfOrder1);
        sequencer.advance();
        assertThat(sequencer.nextStaged())
                .as("a batch the broker copied in itself")
                .isNull();
        sequencer.advance();
        assertThat(sequencer.nextStaged()).as("nothing kept past its commit").isNull();
        sequencer.arrive(3, "late", 13, slotOfOrder1);
        sequencer.drainWaiting((writer, immediate) -> {});
        assertThat(sequencer.nextStaged()).as("nothing kept past a revocation").isNull();
    }

    @Test
    void shouldRefuseAnOrderTwiceOrBeyondTheWindow() {
        final ReservationSequencer sequencer = new ReservationSequencer(4);

        assertThat(sequencer.arrive(0, "a", 0, null)).isTrue();
        assertThat(sequencer.arrive(0, "again", 0, null)).isFalse();
        assertThat(sequencer.arrive(4, "too far", 0, null)).isFalse();
        assertThat(sequencer.arrive(65535, "behind", 0, null))
                .as("an order already passed")
                .isFalse();
        assertThat(sequencer.waiting()).isEqualTo(1);
    }

    @Test
    void shouldWrapTheSixteenBitOrderSpace() {
        final ReservationSequencer sequencer = new ReservationSequencer(4);
        for (int i = 0; i < 65534; i++) {
            sequencer.advance();
        }
        assertThat(sequencer.nextOrder()).isEqualTo(65534);

        assertThat(sequencer.arrive(0, "after wrap", 7, null)).isTrue();
        assertThat(sequencer.arrive(65535, "last", 6, null)).isTrue();
        assertThat(sequencer.arrive(65534, "first", 5, null)).isTrue();

        final List<Object> committed = new ArrayList<>();
        while (sequencer.nextArrived()) {
            committed.add(sequencer.nextWriter());
            sequencer.advance();
        }
        assertThat(committed).containsExactly("first", "last", "after wrap");
        assertThat(sequencer.distance(3)).isEqualTo(2);
    }

    @Test
    void shouldHandOutEveryWaitingWriteInOrderWhenAccessIsRevoked() {
        final ReservationSequencer sequencer = new ReservationSequencer(8);
        sequencer.arrive(3, "d", 13, null);
        sequencer.arrive(1, "b", 11, null);
        sequencer.arrive(2, "c", 12, null);

        final List<String> revoked = new ArrayList<>();
        sequencer.drainWaiting((writer, immediate) -> revoked.add(writer + ":" + immediate));

        assertThat(revoked).containsExactly("b:11", "c:12", "d:13");
        assertThat(sequencer.waiting()).isZero();
        assertThat(sequencer.nextArrived()).isFalse();
        assertThat(sequencer.arrive(1, "b again", 11, null))
                .as("slots are free again")
                .isTrue();
    }

    @Test
    void shouldRoundTheCapacityUpToAPowerOfTwoWithinHalfTheOrderSpace() {
        final ReservationSequencer sequencer = new ReservationSequencer(5);
        assertThat(sequencer.arrive(7, "x", 0, null)).isTrue();
        assertThat(sequencer.arrive(8, "y", 0, null)).isFalse();

        assertThatThrownBy(() -> new ReservationSequencer(40_000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("40000");
    }
}
