package io.isthmus.broker.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BackoffIdleStrategyTest {
    @Test
    void shouldSpinThenYieldThenParkWithGrowingPeriods() {
        final BackoffIdleStrategy idle = new BackoffIdleStrategy(2, 1, 1_000, 4_000);

        idle.idle(0);
        idle.idle(0);
        assertThat(idle.nextParkNanos()).as("after the spins, still yielding").isZero();
        idle.idle(0);
        assertThat(idle.nextParkNanos()).isEqualTo(1_000);
        idle.idle(0);
        assertThat(idle.nextParkNanos()).isEqualTo(2_000);
        idle.idle(0);
        idle.idle(0);
        assertThat(idle.nextParkNanos()).as("capped").isEqualTo(4_000);
    }

    @Test
    void shouldResetWhenWorkArrives() {
        final BackoffIdleStrategy idle = new BackoffIdleStrategy(0, 0, 1_000, 8_000);
        idle.idle(0);
        idle.idle(0);

        idle.idle(3);

        assertThat(idle.nextParkNanos()).isEqualTo(1_000);
    }

    @Test
    void shouldRejectACapBelowTheMinimum() {
        assertThatThrownBy(() -> new BackoffIdleStrategy(1, 1, 10, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxParkNanos=5");
    }
}
