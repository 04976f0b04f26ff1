package io.isthmus.broker.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.protocol.control.ControlErrorCodes;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AnswerQueueTest {
    private record Ack(long baseOffset, int immediate, short errorCode) {}

    private final List<Ack> sent = new ArrayList<>();
    private final SharedProducePath.Acker acker =
            (session, baseOffset, immediate, errorCode) -> sent.add(new Ack(baseOffset, immediate, errorCode));

    @Test
    void answersLeaveInTheOrderTheWritesWereHandledWhateverOrderTheyBecomeKnownIn() {
        final AnswerQueue queue = new AnswerQueue(4);
        final long first = queue.owe(10);
        final long second = queue.owe(11);
        final long third = queue.owe(12);

        queue.complete(third, 7, ControlErrorCodes.NONE);
        queue.complete(second, 5, ControlErrorCodes.NONE);
        queue.flush(null, acker);
        assertThat(sent).as("the first is not known yet").isEmpty();

        queue.complete(first, -1, ControlErrorCodes.REQUEST_TIMED_OUT);
        queue.flush(null, acker);
        assertThat(sent)
                .containsExactly(
                        new Ack(-1, 10, ControlErrorCodes.REQUEST_TIMED_OUT),
                        new Ack(5, 11, ControlErrorCodes.NONE),
                        new Ack(7, 12, ControlErrorCodes.NONE));
        assertThat(queue.isEmpty()).isTrue();
    }

    @Test
    void anAnswerKnownAtOnceGoesAtOnceOnlyWhenNothingIsOwedBeforeIt() {
        final AnswerQueue queue = new AnswerQueue(2);
        queue.answer(null, acker, 3, 20, ControlErrorCodes.NONE);
        assertThat(sent).containsExactly(new Ack(3, 20, ControlErrorCodes.NONE));

        final long waiting = queue.owe(21);
        queue.answer(null, acker, -1, 22, ControlErrorCodes.ACCESS_REVOKED);
        assertThat(sent).hasSize(1);
        assertThat(queue.owed()).isEqualTo(2);
        queue.complete(waiting, 4, ControlErrorCodes.NONE);
        queue.flush(null, acker);
        assertThat(sent.subList(1, 3))
                .containsExactly(
                        new Ack(4, 21, ControlErrorCodes.NONE), new Ack(-1, 22, ControlErrorCodes.ACCESS_REVOKED));
    }

    @Test
    void theRingWrapsAndRefusesMoreAnswersOwedThanTheClientHasCredits() {
        final AnswerQueue queue = new AnswerQueue(2);
        for (int round = 0; round < 5; round++) {
            final long a = queue.owe(round * 2);
            final long b = queue.owe(round * 2 + 1);
            final int write = round * 2;
            assertThatThrownBy(() -> queue.owe(99))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("owed=2 credits=2");
            queue.complete(b, write + 1, ControlErrorCodes.NONE);
            queue.complete(a, write, ControlErrorCodes.NONE);
            queue.flush(null, acker);
        }
        assertThat(sent).extracting(Ack::immediate).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    }
}
