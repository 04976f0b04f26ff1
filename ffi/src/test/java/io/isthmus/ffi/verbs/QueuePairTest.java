package io.isthmus.ffi.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.ffi.VerbsException;
import io.isthmus.ffi.layout.IbvContext;
import io.isthmus.ffi.layout.IbvQp;
import io.isthmus.ffi.layout.IbvRecvWr;
import io.isthmus.ffi.layout.IbvSendWr;
import io.isthmus.ffi.layout.IbvSge;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.nio.ByteOrder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Posts into a fake {@code ibv_context} whose {@code ops.post_send}/{@code ops.post_recv} are upcall
 * stubs recording what the "provider" received: proves the WR encoding, chaining and the
 * allocation-free post path without a NIC.
 */
class QueuePairTest {
    private static final FunctionDescriptor POST = FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG);

    private static long lastQp;
    private static long lastWr;
    private static long lastBadWrOut;
    private static int calls;
    private static int returnCode;

    private Arena arena;
    private MemorySegment fakeQp;
    private QueuePair qp;

    static int postSend(long qp, long wr, long badWr) {
        return record(qp, wr, badWr);
    }

    static int postRecv(long qp, long wr, long badWr) {
        return record(qp, wr, badWr);
    }

    private static int record(long qp, long wr, long badWr) {
        lastQp = qp;
        lastWr = wr;
        lastBadWrOut = badWr;
        calls++;
        if (returnCode != 0) {
            // report the second request of the chain as the bad one, as a provider would
            MemorySegment first = MemorySegment.ofAddress(wr).reinterpret(IbvSendWr.SIZE);
            MemorySegment.ofAddress(badWr).reinterpret(8).set(JAVA_LONG, 0, first.get(JAVA_LONG, IbvSendWr.NEXT));
        }
        return returnCode;
    }

    @BeforeEach
    void fakeProvider() throws ReflectiveOperationException {
        arena = Arena.ofShared();
        calls = 0;
        returnCode = 0;
        MethodType type = MethodType.methodType(int.class, long.class, long.class, long.class);
        MemorySegment sendStub = Linker.nativeLinker()
                .upcallStub(MethodHandles.lookup().findStatic(QueuePairTest.class, "postSend", type), POST, arena);
        MemorySegment recvStub = Linker.nativeLinker()
                .upcallStub(MethodHandles.lookup().findStatic(QueuePairTest.class, "postRecv", type), POST, arena);
        MemorySegment context = arena.allocate(IbvContext.LAYOUT);
        context.set(ADDRESS, IbvContext.OPS_POST_SEND, sendStub);
        context.set(ADDRESS, IbvContext.OPS_POST_RECV, recvStub);
        fakeQp = arena.allocate(IbvQp.LAYOUT);
        fakeQp.set(ADDRESS, IbvQp.CONTEXT, context);
        fakeQp.set(JAVA_INT, IbvQp.QP_NUM, 0x1234);
        qp = QueuePair.overFake(fakeQp, arena);
    }

    @AfterEach
    void close() {
        qp.close();
        arena.close();
    }

    @Test
    void shouldHandTheProviderAChainWithOpcodesImmediatesAndRemoteAddresses() {
        SendWorkRequests wrs = SendWorkRequests.allocate(arena, 4, 2);
        wrs.set(0, 100, Opcode.RDMA_WRITE_WITH_IMM, SendFlags.SIGNALED)
                .sge(0, 0, 0x1000, 64, 0xaa)
                .sge(0, 1, 0x2000, 32, 0xbb)
                .immediate(0, 0x01020304)
                .rdma(0, 0xdead0000L, 0x77);
        wrs.set(1, 101, Opcode.ATOMIC_FETCH_AND_ADD, 0)
                .sge(1, 0, 0x3000, 8, 0xcc)
                .atomic(1, 0xbeef0008L, 0x88, 5, 0);
        wrs.set(2, 102, Opcode.SEND, SendFlags.INLINE | SendFlags.SIGNALED).sge(2, 0, 0x4000, 16, 0xdd);

        qp.postSend(wrs, 3);

        assertThat(calls).isEqualTo(1);
        assertThat(lastQp).isEqualTo(fakeQp.address());
        MemorySegment chain = MemorySegment.ofAddress(lastWr).reinterpret(IbvSendWr.SIZE * 4);
        assertThat(chain.get(JAVA_LONG, IbvSendWr.WR_ID)).isEqualTo(100);
        assertThat(chain.get(JAVA_INT, IbvSendWr.OPCODE)).isEqualTo(1);
        assertThat(chain.get(JAVA_INT, IbvSendWr.SEND_FLAGS)).isEqualTo(2);
        assertThat(chain.get(JAVA_INT, IbvSendWr.NUM_SGE)).isEqualTo(2);
        assertThat(chain.get(JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN), IbvSendWr.IMM_DATA))
                .isEqualTo(0x01020304);
        assertThat(chain.get(JAVA_LONG, IbvSendWr.WR_RDMA_REMOTE_ADDR)).isEqualTo(0xdead0000L);
        assertThat(chain.get(JAVA_INT, IbvSendWr.WR_RDMA_RKEY)).isEqualTo(0x77);
        MemorySegment sges = chain.get(ADDRESS, IbvSendWr.SG_LIST).reinterpret(IbvSge.SIZE * 2);
        assertThat(sges.get(JAVA_LONG, IbvSge.ADDR)).isEqualTo(0x1000);
        assertThat(sges.get(JAVA_INT, IbvSge.LENGTH)).isEqualTo(64);
        assertThat(sges.get(JAVA_INT, IbvSge.LKEY)).isEqualTo(0xaa);
        assertThat(sges.get(JAVA_LONG, IbvSge.SIZE + IbvSge.ADDR)).isEqualTo(0x2000);
        assertThat(sges.get(JAVA_INT, IbvSge.SIZE + IbvSge.LKEY)).isEqualTo(0xbb);

        MemorySegment second = chain.get(ADDRESS, IbvSendWr.NEXT).reinterpret(IbvSendWr.SIZE);
        assertThat(second.address()).isEqualTo(lastWr + IbvSendWr.SIZE);
        assertThat(second.get(JAVA_INT, IbvSendWr.OPCODE)).isEqualTo(6);
        assertThat(second.get(JAVA_LONG, IbvSendWr.WR_ATOMIC_REMOTE_ADDR)).isEqualTo(0xbeef0008L);
        assertThat(second.get(JAVA_LONG, IbvSendWr.WR_ATOMIC_COMPARE_ADD)).isEqualTo(5);
        assertThat(second.get(JAVA_INT, IbvSendWr.WR_ATOMIC_RKEY)).isEqualTo(0x88);

        MemorySegment third = second.get(ADDRESS, IbvSendWr.NEXT).reinterpret(IbvSendWr.SIZE);
        assertThat(third.get(JAVA_INT, IbvSendWr.OPCODE)).isEqualTo(2);
        assertThat(third.get(JAVA_INT, IbvSendWr.SEND_FLAGS)).isEqualTo(SendFlags.INLINE | SendFlags.SIGNALED);
        assertThat(third.get(ADDRESS, IbvSendWr.NEXT)).isEqualTo(MemorySegment.NULL);
    }

    @Test
    void shouldRelinkTheChainWhenTheCountChanges() {
        SendWorkRequests wrs = SendWorkRequests.allocate(arena, 3, 1);
        for (int i = 0; i < 3; i++) {
            wrs.set(i, i, Opcode.SEND, 0);
        }
        qp.postSend(wrs, 1);
        MemorySegment chain = MemorySegment.ofAddress(lastWr).reinterpret(IbvSendWr.SIZE * 3);
        assertThat(chain.get(JAVA_LONG, IbvSendWr.NEXT)).isZero();

        qp.postSend(wrs, 3);
        assertThat(chain.get(JAVA_LONG, IbvSendWr.NEXT)).isEqualTo(lastWr + IbvSendWr.SIZE);
        assertThat(chain.get(JAVA_LONG, IbvSendWr.SIZE + IbvSendWr.NEXT)).isEqualTo(lastWr + 2 * IbvSendWr.SIZE);
        assertThat(chain.get(JAVA_LONG, 2 * IbvSendWr.SIZE + IbvSendWr.NEXT)).isZero();
    }

    @Test
    void shouldPostReceiveChainsWithTheirSges() {
        ReceiveWorkRequests wrs = ReceiveWorkRequests.allocate(arena, 2, 2);
        wrs.set(0, 7).sge(0, 0, 0x5000, 128, 0x11).sge(0, 1, 0x6000, 64, 0x12);
        wrs.set(1, 8).sge(1, 0, 0x7000, 256, 0x13);

        qp.postReceive(wrs, 2);

        MemorySegment chain = MemorySegment.ofAddress(lastWr).reinterpret(IbvRecvWr.SIZE * 2);
        assertThat(chain.get(JAVA_LONG, IbvRecvWr.WR_ID)).isEqualTo(7);
        assertThat(chain.get(JAVA_INT, IbvRecvWr.NUM_SGE)).isEqualTo(2);
        assertThat(chain.get(JAVA_LONG, IbvRecvWr.NEXT)).isEqualTo(lastWr + IbvRecvWr.SIZE);
        assertThat(chain.get(JAVA_LONG, IbvRecvWr.SIZE + IbvRecvWr.WR_ID)).isEqualTo(8);
        MemorySegment sges = chain.get(ADDRESS, IbvRecvWr.SG_LIST).reinterpret(IbvSge.SIZE * 2);
        assertThat(sges.get(JAVA_INT, IbvSge.SIZE + IbvSge.LENGTH)).isEqualTo(64);
    }

    @Test
    void shouldThrowTheReturnedErrorCodeNamingTheBadRequest() {
        SendWorkRequests wrs = SendWorkRequests.allocate(arena, 2, 1);
        wrs.set(0, 1, Opcode.SEND, 0).set(1, 2, Opcode.SEND, 0);
        returnCode = 12;

        assertThatThrownBy(() -> qp.postSend(wrs, 2))
                .isInstanceOf(VerbsException.class)
                .hasMessage("ibv_post_send failed: ENOMEM (Cannot allocate memory), errno=12, device=fake, "
                        + "qp_num=4660, bad_wr_index=1, count=2");
        assertThat(lastBadWrOut).isNotZero();
    }

    @Test
    void shouldRefusePostingAfterClose() {
        SendWorkRequests wrs = SendWorkRequests.allocate(arena, 1, 1);
        wrs.set(0, 1, Opcode.SEND, 0);
        qp.close();

        assertThatThrownBy(() -> qp.postSend(wrs, 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("ibv_qp is closed: device=fake, qp_num=4660");
        assertThat(calls).isZero();
    }

    @Test
    void shouldPostWithoutAllocatingOnTheJavaHeap() {
        SendWorkRequests wrs = SendWorkRequests.allocate(arena, 2, 1);
        wrs.set(0, 1, Opcode.RDMA_WRITE, SendFlags.SIGNALED)
                .sge(0, 0, 0x1000, 8, 1)
                .rdma(0, 0x2000, 2);
        wrs.set(1, 2, Opcode.SEND, 0).sge(1, 0, 0x1000, 8, 1);
        ReceiveWorkRequests rwrs = ReceiveWorkRequests.allocate(arena, 1, 1);
        rwrs.set(0, 3).sge(0, 0, 0x1000, 8, 1);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 100_000; i++) {
            postCycle(wrs, rwrs, i);
        }

        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            postCycle(wrs, rwrs, i);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(calls).isEqualTo(400_000);
        assertThat(allocated).as("bytes allocated by 100,000 post cycles").isLessThan(1024);
    }

    private void postCycle(SendWorkRequests wrs, ReceiveWorkRequests rwrs, int i) {
        wrs.sgeLength(0, 0, 8 + (i & 7)).wrId(0, i).flags(0, (i & 15) == 0 ? SendFlags.SIGNALED : 0);
        qp.postSend(wrs, 1 + (i & 1));
        qp.postReceive(rwrs, 1);
    }
}
