package io.isthmus.ffi.verbs;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The data path on a real device: two RC QPs connected by hand (manual QPN/GID/PSN exchange). */
@Tag("rdma")
class QueuePairRdmaTest {
    private RdmaTestBed bed;

    @BeforeEach
    void connect() {
        bed = new RdmaTestBed();
    }

    @AfterEach
    void close() {
        bed.close();
    }

    private void write(java.lang.foreign.MemorySegment buffer, long offset, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        java.lang.foreign.MemorySegment.copy(bytes, 0, buffer, JAVA_BYTE, offset, bytes.length);
    }

    private String read(java.lang.foreign.MemorySegment buffer, long offset, int length) {
        return new String(buffer.asSlice(offset, length).toArray(JAVA_BYTE), StandardCharsets.US_ASCII);
    }

    @Test
    void shouldReachReadyToSendWhenConnectedByHand() {
        QueuePairStatus a = bed.qpA.query();
        QueuePairStatus b = bed.qpB.query();

        assertThat(a.state()).isEqualTo(QpState.RTS);
        assertThat(b.state()).isEqualTo(QpState.RTS);
        assertThat(a.destQpNumber()).isEqualTo(bed.qpB.qpNumber());
        assertThat(b.destQpNumber()).isEqualTo(bed.qpA.qpNumber());
        assertThat(a.pathMtu())
                .isEqualTo(bed.context.queryPort(RdmaTestBed.PORT).activeMtu());
        assertThat(a.accessFlags() & AccessFlags.REMOTE_WRITE).isNotZero();
    }

    @Test
    void shouldDeliverASendIntoAPostedReceive() {
        write(bed.bufferA, 0, "hello over rxe");
        bed.receives.set(0, 42).sge(0, 0, bed.mrB, 0, 1024);
        bed.qpB.postReceive(bed.receives, 1);
        bed.sends.set(0, 7, Opcode.SEND, SendFlags.SIGNALED).sge(0, 0, bed.mrA, 0, 14);

        bed.qpA.postSend(bed.sends, 1);

        bed.awaitSuccess(bed.cqA);
        assertThat(bed.completions.wrId(0)).isEqualTo(7);
        assertThat(bed.completions.opcode(0)).isEqualTo(WorkCompletionOpcode.SEND);
        bed.awaitSuccess(bed.cqB);
        assertThat(bed.completions.wrId(0)).isEqualTo(42);
        assertThat(bed.completions.opcode(0)).isEqualTo(WorkCompletionOpcode.RECV);
        assertThat(bed.completions.byteLength(0)).isEqualTo(14);
        assertThat(bed.completions.qpNumber(0)).isEqualTo(bed.qpB.qpNumber());
        assertThat(read(bed.bufferB, 0, 14)).isEqualTo("hello over rxe");
    }

    @Test
    void shouldDeliverTheImmediateOfASendWithImm() {
        bed.receives.set(0, 1).sge(0, 0, bed.mrB, 0, 64);
        bed.qpB.postReceive(bed.receives, 1);
        bed.sends
                .set(0, 2, Opcode.SEND_WITH_IMM, SendFlags.SIGNALED)
                .sge(0, 0, bed.mrA, 0, 8)
                .immediate(0, 0xCAFEBABE);

        bed.qpA.postSend(bed.sends, 1);

        bed.awaitSuccess(bed.cqB);
        assertThat(bed.completions.hasImmediate(0)).isTrue();
        assertThat(bed.completions.immediate(0)).isEqualTo(0xCAFEBABE);
        bed.awaitSuccess(bed.cqA);
    }

    @Test
    void shouldWriteIntoTheRemoteBuffer() {
        write(bed.bufferA, 100, "one-sided write");
        bed.sends
                .set(0, 3, Opcode.RDMA_WRITE, SendFlags.SIGNALED)
                .sge(0, 0, bed.mrA, 100, 15)
                .rdma(0, bed.mrB.address() + 500, bed.mrB.rkey());

        bed.qpA.postSend(bed.sends, 1);

        bed.awaitSuccess(bed.cqA);
        assertThat(bed.completions.opcode(0)).isEqualTo(WorkCompletionOpcode.RDMA_WRITE);
        assertThat(read(bed.bufferB, 500, 15)).isEqualTo("one-sided write");
    }

    @Test
    void shouldDeliverImmediateWithWriteWithImm() {
        write(bed.bufferA, 0, "payload+imm");
        bed.receives.set(0, 9); // a WRITE WITH IMM consumes a receive but needs no buffer
        bed.qpB.postReceive(bed.receives, 1);
        bed.sends
                .set(0, 4, Opcode.RDMA_WRITE_WITH_IMM, SendFlags.SIGNALED)
                .sge(0, 0, bed.mrA, 0, 11)
                .rdma(0, bed.mrB.address() + 2048, bed.mrB.rkey())
                .immediate(0, 11);

        bed.qpA.postSend(bed.sends, 1);

        bed.awaitSuccess(bed.cqB);
        assertThat(bed.completions.wrId(0)).isEqualTo(9);
        assertThat(bed.completions.opcode(0)).isEqualTo(WorkCompletionOpcode.RECV_RDMA_WITH_IMM);
        assertThat(bed.completions.hasImmediate(0)).isTrue();
        int length = bed.completions.immediate(0); // never byte_len: rxe reports 0
        assertThat(read(bed.bufferB, 2048, length)).isEqualTo("payload+imm");
        bed.awaitSuccess(bed.cqA);
    }

    @Test
    void shouldReadTheRemoteBuffer() {
        write(bed.bufferB, 4096, "remote bytes to read");
        bed.sends
                .set(0, 5, Opcode.RDMA_READ, SendFlags.SIGNALED)
                .sge(0, 0, bed.mrA, 8192, 20)
                .rdma(0, bed.mrB.address() + 4096, bed.mrB.rkey());

        bed.qpA.postSend(bed.sends, 1);

        bed.awaitSuccess(bed.cqA);
        assertThat(bed.completions.opcode(0)).isEqualTo(WorkCompletionOpcode.RDMA_READ);
        assertThat(read(bed.bufferA, 8192, 20)).isEqualTo("remote bytes to read");
    }

    @Test
    void shouldReturnTheOldValueOfFetchAndAdd() {
        bed.bufferB.set(JAVA_LONG, 64, 1000L);
        bed.sends
                .set(0, 6, Opcode.ATOMIC_FETCH_AND_ADD, SendFlags.SIGNALED)
                .sge(0, 0, bed.mrA, 0, 8)
                .atomic(0, bed.mrB.address() + 64, bed.mrB.rkey(), 24, 0);

        bed.qpA.postSend(bed.sends, 1);
        bed.awaitSuccess(bed.cqA);
        bed.qpA.postSend(bed.sends, 1);
        bed.awaitSuccess(bed.cqA);

        assertThat(bed.completions.opcode(0)).isEqualTo(WorkCompletionOpcode.FETCH_ADD);
        assertThat(bed.bufferA.get(JAVA_LONG, 0)).isEqualTo(1024L);
        assertThat(bed.bufferB.get(JAVA_LONG, 64)).isEqualTo(1048L);
    }

    @Test
    void shouldSwapOnlyWhenTheCompareMatches() {
        bed.bufferB.set(JAVA_LONG, 128, 5L);
        bed.sends
                .set(0, 7, Opcode.ATOMIC_CMP_AND_SWP, SendFlags.SIGNALED)
                .sge(0, 0, bed.mrA, 16, 8)
                .atomic(0, bed.mrB.address() + 128, bed.mrB.rkey(), 4, 99);
        bed.qpA.postSend(bed.sends, 1);
        bed.awaitSuccess(bed.cqA);
        assertThat(bed.bufferA.get(JAVA_LONG, 16)).isEqualTo(5L);
        assertThat(bed.bufferB.get(JAVA_LONG, 128)).isEqualTo(5L);

        bed.sends.atomic(0, bed.mrB.address() + 128, bed.mrB.rkey(), 5, 99);
        bed.qpA.postSend(bed.sends, 1);
        bed.awaitSuccess(bed.cqA);

        assertThat(bed.completions.opcode(0)).isEqualTo(WorkCompletionOpcode.COMP_SWAP);
        assertThat(bed.bufferA.get(JAVA_LONG, 16)).isEqualTo(5L);
        assertThat(bed.bufferB.get(JAVA_LONG, 128)).isEqualTo(99L);
    }

    @Test
    void shouldCompleteWithRemoteAccessErrorForABadRkey() {
        bed.sends
                .set(0, 8, Opcode.RDMA_WRITE, SendFlags.SIGNALED)
                .sge(0, 0, bed.mrA, 0, 16)
                .rdma(0, bed.mrB.address(), bed.mrB.rkey() ^ 0x5a5a00);

        bed.qpA.postSend(bed.sends, 1);

        bed.await(bed.cqA, 1);
        assertThat(bed.completions.wrId(0)).isEqualTo(8);
        assertThat(bed.completions.status(0)).isEqualTo(WorkCompletionStatus.REM_ACCESS_ERR);
        assertThat(bed.qpA.query().state()).isEqualTo(QpState.ERR);
    }

    @Test
    void shouldFlushPostedReceivesWhenMovedToError() {
        for (int i = 0; i < 3; i++) {
            bed.receives.set(i, 200 + i).sge(i, 0, bed.mrB, i * 64L, 64);
        }
        bed.qpB.postReceive(bed.receives, 3);

        bed.qpB.moveToError();

        bed.await(bed.cqB, 3);
        for (int i = 0; i < 3; i++) {
            assertThat(bed.completions.status(i)).isEqualTo(WorkCompletionStatus.WR_FLUSH_ERR);
            assertThat(bed.completions.wrId(i)).isEqualTo(200 + i);
        }
        assertThat(bed.qpB.query().state()).isEqualTo(QpState.ERR);
    }

    @Test
    void shouldSendInlineDataThatCanBeReusedAtOnce() {
        assertThat(bed.qpA.maxInlineData()).isGreaterThanOrEqualTo(32);
        bed.receives.set(0, 1).sge(0, 0, bed.mrB, 0, 64);
        bed.qpB.postReceive(bed.receives, 1);
        write(bed.bufferA, 0, "inline!!");
        bed.sends.set(0, 11, Opcode.SEND, SendFlags.SIGNALED | SendFlags.INLINE).sge(0, 0, bed.mrA, 0, 8);

        bed.qpA.postSend(bed.sends, 1);
        write(bed.bufferA, 0, "XXXXXXXX");

        bed.awaitSuccess(bed.cqB);
        assertThat(read(bed.bufferB, 0, 8)).isEqualTo("inline!!");
        bed.awaitSuccess(bed.cqA);
    }

    @Test
    void shouldCompleteOnlySignalledRequests() {
        for (int i = 0; i < 8; i++) {
            int flags = i % 4 == 3 ? SendFlags.SIGNALED : 0;
            bed.sends
                    .set(i, 300 + i, Opcode.RDMA_WRITE, flags)
                    .sge(i, 0, bed.mrA, 0, 8)
                    .rdma(i, bed.mrB.address() + i * 8L, bed.mrB.rkey());
        }

        bed.qpA.postSend(bed.sends, 8);

        bed.await(bed.cqA, 2);
        assertThat(bed.completions.wrId(0)).isEqualTo(303);
        assertThat(bed.completions.wrId(1)).isEqualTo(307);
        assertThat(bed.cqA.poll(bed.completions)).isZero();
    }

    @Test
    void shouldGatherSeveralSgesIntoOneSend() {
        write(bed.bufferA, 0, "abc");
        write(bed.bufferA, 1000, "defg");
        write(bed.bufferA, 3000, "hi");
        bed.receives.set(0, 1).sge(0, 0, bed.mrB, 0, 4).sge(0, 1, bed.mrB, 5000, 64);
        bed.qpB.postReceive(bed.receives, 1);
        bed.sends
                .set(0, 12, Opcode.SEND, SendFlags.SIGNALED)
                .sge(0, 0, bed.mrA, 0, 3)
                .sge(0, 1, bed.mrA, 1000, 4)
                .sge(0, 2, bed.mrA, 3000, 2);
        bed.sends
                .set(1, 13, Opcode.RDMA_WRITE, SendFlags.SIGNALED)
                .sge(1, 0, bed.mrA, 1000, 4)
                .sge(1, 1, bed.mrA, 0, 3)
                .rdma(1, bed.mrB.address() + 9000, bed.mrB.rkey());

        bed.qpA.postSend(bed.sends, 2);

        bed.awaitSuccess(bed.cqB);
        assertThat(bed.completions.byteLength(0)).isEqualTo(9);
        assertThat(read(bed.bufferB, 0, 4) + read(bed.bufferB, 5000, 5)).isEqualTo("abcdefghi");
        bed.await(bed.cqA, 2);
        assertThat(bed.completions.wrId(1)).isEqualTo(13);
        assertThat(read(bed.bufferB, 9000, 7)).isEqualTo("defgabc");
    }

    @Test
    void shouldPostAndPollWithoutAllocating() {
        bed.sends
                .set(0, 1, Opcode.RDMA_WRITE, SendFlags.SIGNALED | SendFlags.INLINE)
                .sge(0, 0, bed.mrA, 0, 8)
                .rdma(0, bed.mrB.address(), bed.mrB.rkey());
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        cycles(20_000);

        long before = threads.getCurrentThreadAllocatedBytes();
        long completed = cycles(100_000);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(completed).isEqualTo(100_000);
        assertThat(allocated).as("bytes allocated by 100,000 post+poll cycles").isLessThan(1024);
        assertThat(bed.bufferB.get(JAVA_LONG, 0)).isEqualTo(99_999L);
    }

    private long cycles(int count) {
        long completed = 0;
        for (int i = 0; i < count; i++) {
            bed.bufferA.set(JAVA_LONG, 0, i);
            bed.sends.wrId(0, i);
            bed.qpA.postSend(bed.sends, 1);
            int n;
            do {
                n = bed.cqA.poll(bed.completions, 1);
            } while (n == 0);
            if (bed.completions.statusCode(0) == 0) {
                completed++;
            }
        }
        return completed;
    }

    @Test
    void shouldRefuseToPostAfterClose() {
        QueuePair extra = bed.pd.createQueuePair(new QueuePairOptions().completionQueue(bed.cqA));
        extra.close();

        assertThatThrownBy(() -> extra.postSend(bed.sends, 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("ibv_qp is closed");
        assertThatThrownBy(extra::query).isInstanceOf(IllegalStateException.class);
        assertThat(bed.qpA.query().state()).isEqualTo(QpState.RTS);
    }
}
