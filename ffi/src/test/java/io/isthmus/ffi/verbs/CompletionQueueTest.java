package io.isthmus.ffi.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.ffi.VerbsException;
import io.isthmus.ffi.layout.IbvContext;
import io.isthmus.ffi.layout.IbvCq;
import io.isthmus.ffi.layout.IbvWc;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.nio.ByteOrder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Polls a fake CQ whose {@code ops.poll_cq} is an upcall stub that writes completions. */
class CompletionQueueTest {
    private static final MemorySegment ALL_MEMORY = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private static final ValueLayout.OfInt IMM_BIG_ENDIAN = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);

    private static int pending;
    private static int result;
    private static long nextWrId;

    private Arena arena;
    private CompletionQueue cq;

    /** A provider poll_cq: writes min(pending, n) completions with increasing wr_ids. */
    static int pollCq(long cq, int numEntries, long wc) {
        if (result < 0) {
            return result;
        }
        int n = Math.min(pending, numEntries);
        for (int i = 0; i < n; i++) {
            long base = wc + i * IbvWc.SIZE; // absolute: the fake provider must not allocate either
            ALL_MEMORY.set(JAVA_LONG, base + IbvWc.WR_ID, nextWrId++);
            ALL_MEMORY.set(JAVA_INT, base + IbvWc.STATUS, i == 1 ? 10 : 0);
            ALL_MEMORY.set(JAVA_INT, base + IbvWc.OPCODE, 129);
            ALL_MEMORY.set(JAVA_INT, base + IbvWc.BYTE_LEN, 0);
            ALL_MEMORY.set(IMM_BIG_ENDIAN, base + IbvWc.IMM_DATA, 0x0A0B0C0D);
            ALL_MEMORY.set(JAVA_INT, base + IbvWc.WC_FLAGS, WorkCompletions.WITH_IMM);
            ALL_MEMORY.set(JAVA_INT, base + IbvWc.QP_NUM, 99);
        }
        pending -= n;
        return n;
    }

    @BeforeEach
    void fakeProvider() throws ReflectiveOperationException {
        arena = Arena.ofShared();
        pending = 0;
        result = 0;
        nextWrId = 1;
        MemorySegment stub = Linker.nativeLinker()
                .upcallStub(
                        MethodHandles.lookup()
                                .findStatic(
                                        CompletionQueueTest.class,
                                        "pollCq",
                                        MethodType.methodType(int.class, long.class, int.class, long.class)),
                        FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG),
                        arena);
        MemorySegment context = arena.allocate(IbvContext.LAYOUT);
        context.set(ADDRESS, IbvContext.OPS_POLL_CQ, stub);
        context.set(ADDRESS, IbvContext.OPS_REQ_NOTIFY_CQ, stub); // bound but never called here
        MemorySegment fakeCq = arena.allocate(IbvCq.LAYOUT);
        fakeCq.set(ADDRESS, IbvCq.CONTEXT, context);
        fakeCq.set(JAVA_INT, IbvCq.CQE, 64);
        cq = CompletionQueue.overFake(fakeCq);
    }

    @AfterEach
    void close() {
        cq.close();
        arena.close();
    }

    @Test
    void shouldPollABatchAndDecodeEachCompletion() {
        WorkCompletions wc = WorkCompletions.allocate(arena, 8);
        pending = 3;

        assertThat(cq.poll(wc)).isEqualTo(3);
        assertThat(cq.poll(wc)).isZero();

        assertThat(wc.wrId(0)).isEqualTo(1);
        assertThat(wc.wrId(2)).isEqualTo(3);
        assertThat(wc.status(0)).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(wc.status(1)).isEqualTo(WorkCompletionStatus.REM_ACCESS_ERR);
        assertThat(wc.isSuccess(1)).isFalse();
        assertThat(wc.opcode(0)).isEqualTo(WorkCompletionOpcode.RECV_RDMA_WITH_IMM);
        assertThat(wc.opcode(0).isReceive()).isTrue();
        assertThat(wc.hasImmediate(0)).isTrue();
        assertThat(wc.immediate(0)).isEqualTo(0x0A0B0C0D);
        assertThat(wc.qpNumber(2)).isEqualTo(99);
        assertThat(cq.capacity()).isEqualTo(64);
    }

    @Test
    void shouldLimitAPollToTheRequestedCount() {
        WorkCompletions wc = WorkCompletions.allocate(arena, 8);
        pending = 5;

        assertThat(cq.poll(wc, 2)).isEqualTo(2);
        assertThat(cq.poll(wc, 8)).isEqualTo(3);
        assertThat(wc.wrId(0)).isEqualTo(3);
        assertThatThrownBy(() -> cq.poll(wc, 9)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldThrowWhenTheProviderFails() {
        result = -22;

        assertThatThrownBy(() -> cq.poll(WorkCompletions.allocate(arena, 1)))
                .isInstanceOf(VerbsException.class)
                .hasMessageStartingWith("ibv_poll_cq failed: EINVAL");
    }

    @Test
    void shouldPollWithoutAllocatingOnTheJavaHeap() {
        WorkCompletions wc = WorkCompletions.allocate(arena, 4);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = pollMany(wc);

        long before = threads.getCurrentThreadAllocatedBytes();
        sum += pollMany(wc);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(sum).isEqualTo(2 * 100_000L);
        assertThat(allocated).as("bytes allocated by 100,000 polls").isLessThan(1024);
    }

    private long pollMany(WorkCompletions wc) {
        long sum = 0;
        for (int i = 0; i < 100_000; i++) {
            pending = 1;
            sum += cq.poll(wc);
            sum += wc.statusCode(0) == 0 ? 0 : 1000;
        }
        return sum;
    }
}
