package io.isthmus.broker.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;

class RdmaSessionTest {
    @Test
    void shouldFindItsSessionAndKindInAWorkRequestId() {
        final RdmaSession session =
                new RdmaSession(123_456_789L, 32_767, 9, null, null, 0, 16, 80, KafkaPrincipal.ANONYMOUS, null);

        final long receive = session.wrId(RdmaSession.KIND_RECEIVE);
        final long send = session.wrId(RdmaSession.KIND_SEND);

        assertThat(RdmaSession.indexOf(receive)).isEqualTo(32_767);
        assertThat(RdmaSession.sessionIdOf(receive)).isEqualTo(123_456_789L);
        assertThat(RdmaSession.kindOf(receive)).isEqualTo(RdmaSession.KIND_RECEIVE);
        assertThat(RdmaSession.kindOf(send)).isEqualTo(RdmaSession.KIND_SEND);
        assertThat(RdmaSession.sessionIdOf(send)).isEqualTo(123_456_789L);
    }

    @Test
    void shouldTellALaterSessionOnTheSameIndexApart() {
        final RdmaSession first = new RdmaSession(1, 4, 9, null, null, 0, 16, 80, KafkaPrincipal.ANONYMOUS, null);
        final RdmaSession second = new RdmaSession(2, 4, 10, null, null, 0, 16, 80, KafkaPrincipal.ANONYMOUS, null);

        final long late = first.wrId(RdmaSession.KIND_RECEIVE);

        assertThat(RdmaSession.indexOf(late)).isEqualTo(second.index);
        assertThat(RdmaSession.sessionIdOf(late)).isNotEqualTo(second.sessionId);
    }

    @Test
    void shouldHandOutTheLowestFreeSlotAndCountSlotsInUpToTheHighest() {
        final RdmaSession session = new RdmaSession(1, 0, 9, null, null, 0, 16, 80, KafkaPrincipal.ANONYMOUS, null);
        assertThat(session.freeSlotIndex(4)).isZero();
        assertThat(session.slotsInUse()).isZero();

        session.consumeGrants.add(new ConsumeGrant(null, null, 0, 0, null, 0));
        session.consumeGrants.add(new ConsumeGrant(null, null, 2, 80, null, 0));

        assertThat(session.freeSlotIndex(4)).isEqualTo(1);
        assertThat(session.slotsInUse()).isEqualTo(3);
        session.consumeGrants.add(new ConsumeGrant(null, null, 1, 40, null, 0));
        session.consumeGrants.add(new ConsumeGrant(null, null, 3, 120, null, 0));
        assertThat(session.freeSlotIndex(4)).isEqualTo(-1);
    }
}
