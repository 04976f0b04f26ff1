package io.isthmus.ffi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
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

    @Test
    void shouldThrowTheCapturedErrnoOnlyWhenACallFailed() {
        try (Arena arena = Arena.ofConfined()) {
            final StructLayout layout = Linker.Option.captureStateLayout();
            final MemorySegment capture = arena.allocate(layout);
            capture.set(ValueLayout.JAVA_INT, layout.byteOffset(MemoryLayout.PathElement.groupElement("errno")), 22);

            VerbsException.checkErrno(0, capture, "rdma_listen", "backlog=8");
            assertThatThrownBy(() -> VerbsException.checkErrno(-1, capture, "rdma_listen", "backlog=8"))
                    .isInstanceOfSatisfying(
                            VerbsException.class, e -> assertThat(e.errnoName()).isEqualTo("EINVAL"))
                    .hasMessageContaining("rdma_listen failed")
                    .hasMessageContaining("backlog=8");
        }
    }

    @Test
    void shouldFallBackToTheReturnCodeWhenNoErrnoWasSet() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment capture = arena.allocate(Linker.Option.captureStateLayout());

            assertThatThrownBy(() -> VerbsException.checkErrno(-12, capture, "ibv_modify_qp", ""))
                    .isInstanceOfSatisfying(
                            VerbsException.class, e -> assertThat(e.errno()).isEqualTo(12));
        }
    }
}
