package io.isthmus.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.apache.ratis.util.LifeCycle;
import org.junit.jupiter.api.Test;

class MetadataStateMachineTest {
    @Test
    void pausingTwiceForASnapshotSentInChunksIsOnePause() {
        MetadataStateMachine machine =
                new MetadataStateMachine("c", new BrokerSessions(Duration.ofSeconds(9), System::nanoTime));
        machine.getLifeCycle().transition(LifeCycle.State.STARTING);
        machine.getLifeCycle().transition(LifeCycle.State.RUNNING);

        machine.pause();
        machine.pause();

        assertThat(machine.getLifeCycleState()).isEqualTo(LifeCycle.State.PAUSED);
    }
}
