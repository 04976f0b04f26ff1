package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RdmaConnectResponseTest {
    @Test
    void shouldRoundTripASuccess() {
        final byte[] gid = new byte[16];
        gid[15] = 7;
        final RdmaConnectResponse response = new RdmaConnectResponse(
                ControlErrorCodes.NONE,
                (short) (RdmaConnectResponse.EXCLUSIVE_PRODUCE | RdmaConnectResponse.CONSUME),
                99,
                12345,
                0,
                gid,
                32,
                3,
                null);

        final RdmaConnectResponse decoded = ControlMessagesRoundTrip.roundTrip(response, RdmaConnectResponse::decode);

        assertThat(decoded.qpNumber()).isEqualTo(99);
        assertThat(decoded.gid()).isEqualTo(gid);
        assertThat(decoded.produceCredits()).isEqualTo(32);
        assertThat(decoded.has(RdmaConnectResponse.CONSUME)).isTrue();
        assertThat(decoded.has(RdmaConnectResponse.SHARED_PRODUCE)).isFalse();
        assertThat(decoded.reason()).isNull();
    }

    @Test
    void shouldCarryTheReasonOfAFailure() {
        final RdmaConnectResponse decoded = ControlMessagesRoundTrip.roundTrip(
                RdmaConnectResponse.error(ControlErrorCodes.RDMA_UNAVAILABLE, "no RDMA devices"),
                RdmaConnectResponse::decode);

        assertThat(decoded.errorCode()).isEqualTo(ControlErrorCodes.RDMA_UNAVAILABLE);
        assertThat(decoded.reason()).isEqualTo("no RDMA devices");
        assertThat(decoded.capabilities()).isZero();
    }
}
