package io.isthmus.ffi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class VerbsExceptionTest {
    @Test
    void shouldCarryVerbErrnoNameMessageAndContext() {
        VerbsException e = new VerbsException("ibv_create_qp", 12, "device=rxe0, max_send_wr=100000");

        assertThat(e.verb()).isEqualTo("ibv_create_qp");
        assertThat(e.errno()).isEqualTo(12);
        assertThat(e.errnoName()).isEqualTo("ENOMEM");
        assertThat(e)
                .hasMessage("ibv_create_qp failed: ENOMEM (Cannot allocate memory), errno=12, device=rxe0, "
                        + "max_send_wr=100000");
    }

    @Test
    void shouldOmitEmptyContext() {
        assertThat(new VerbsException("rdma_create_event_channel", 19, ""))
                .hasMessage("rdma_create_event_channel failed: ENODEV (No such device), errno=19");
    }
}
