package io.isthmus.ffi.verbs;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("rdma")
class SharedReceiveQueueRdmaTest {
    @Test
    void shouldReceiveSendsThroughTheSharedReceiveQueue() {
        try (RdmaTestBed bed = new RdmaTestBed(pd -> pd.createSharedReceiveQueue(64, 2, 0))) {
            for (int i = 0; i < 4; i++) {
                bed.receives.set(i, 500 + i).sge(i, 0, bed.mrB, i * 256L, 256);
            }
            bed.srq.postReceive(bed.receives, 4);
            for (int i = 0; i < 2; i++) {
                bed.bufferA.set(JAVA_BYTE, i, (byte) ('x' + i));
                bed.sends.set(i, i, Opcode.SEND, SendFlags.SIGNALED).sge(i, 0, bed.mrA, i, 1);
            }

            bed.qpA.postSend(bed.sends, 2);

            bed.await(bed.cqB, 2);
            assertThat(bed.completions.wrId(0)).isEqualTo(500);
            assertThat(bed.completions.wrId(1)).isEqualTo(501);
            assertThat(bed.completions.qpNumber(0)).isEqualTo(bed.qpB.qpNumber());
            assertThat(bed.bufferB.get(JAVA_BYTE, 0)).isEqualTo((byte) 'x');
            assertThat(bed.bufferB.get(JAVA_BYTE, 256)).isEqualTo((byte) 'y');
            bed.await(bed.cqA, 2);
        }
    }
}
