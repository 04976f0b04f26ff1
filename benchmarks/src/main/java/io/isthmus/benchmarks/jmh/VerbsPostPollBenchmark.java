package io.isthmus.benchmarks.jmh;

import io.isthmus.ffi.Rdma;
import io.isthmus.ffi.RdmaAvailability;
import io.isthmus.ffi.verbs.AccessFlags;
import io.isthmus.ffi.verbs.CompletionQueue;
import io.isthmus.ffi.verbs.Context;
import io.isthmus.ffi.verbs.DeviceList;
import io.isthmus.ffi.verbs.Gid;
import io.isthmus.ffi.verbs.MemoryRegion;
import io.isthmus.ffi.verbs.Mtu;
import io.isthmus.ffi.verbs.Opcode;
import io.isthmus.ffi.verbs.ProtectionDomain;
import io.isthmus.ffi.verbs.QueuePair;
import io.isthmus.ffi.verbs.QueuePairAddress;
import io.isthmus.ffi.verbs.QueuePairOptions;
import io.isthmus.ffi.verbs.SendFlags;
import io.isthmus.ffi.verbs.SendWorkRequests;
import io.isthmus.ffi.verbs.WorkCompletionStatus;
import io.isthmus.ffi.verbs.WorkCompletions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The verbs data path through the Panama binding: one signalled 8-byte inline RDMA WRITE posted through the
 * provider's {@code post_send} and its completion polled through {@code poll_cq}, on a loopback pair of RC queue
 * pairs of a real device. Run with {@code --prof-gc}: the point is the allocation per post+poll, which must be 0 B;
 * the rate says little on Soft-RoCE under emulation.
 *
 * <p>Needs an RDMA device ({@code ISTHMUS_RDMA_DEVICE}, default the first one, GID index
 * {@code ISTHMUS_RDMA_GID_INDEX}, default 1); {@link io.isthmus.benchmarks.JmhMain} leaves it out where there is
 * none. Here: {@code ./isthmus softroce -- ./isthmus bench --jmh --only VerbsPostPoll --prof-gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class VerbsPostPollBenchmark {
    private static final int PORT = 1;

    private Arena arena;
    private DeviceList devices;
    private Context context;
    private ProtectionDomain pd;
    private CompletionQueue sendCq;
    private CompletionQueue receiveCq;
    private QueuePair sender;
    private QueuePair receiver;
    private MemoryRegion source;
    private MemoryRegion target;
    private SendWorkRequests write;
    private WorkCompletions completions;
    private long sequence;

    @Setup(Level.Trial)
    public void connect() {
        final RdmaAvailability availability = Rdma.availability();
        if (!availability.usable()) {
            throw new IllegalStateException("no RDMA device: " + availability.reason());
        }
        arena = Arena.ofShared();
        devices = DeviceList.open();
        final String name = System.getenv("ISTHMUS_RDMA_DEVICE");
        context = (name == null ? devices.devices().getFirst() : devices.byName(name)).open();
        pd = context.allocateProtectionDomain();
        sendCq = context.createCompletionQueue(64);
        receiveCq = context.createCompletionQueue(64);
        final QueuePairOptions options = new QueuePairOptions()
                .maxSendWr(64)
                .maxRecvWr(64)
                .maxSendSge(1)
                .maxRecvSge(1)
                .maxInlineData(64);
        sender = pd.createQueuePair(options.completionQueue(sendCq));
        receiver = pd.createQueuePair(options.completionQueue(receiveCq));
        final MemorySegment from = arena.allocate(4096, 4096);
        final MemorySegment to = arena.allocate(4096, 4096);
        source = pd.registerMemory(from, AccessFlags.ALL_REMOTE);
        target = pd.registerMemory(to, AccessFlags.ALL_REMOTE);
        connect(sender, receiver);
        write = SendWorkRequests.allocate(arena, 1, 1)
                .set(0, 0, Opcode.RDMA_WRITE, SendFlags.SIGNALED | SendFlags.INLINE)
                .sge(0, 0, source, 0, 8)
                .rdma(0, target.address(), target.rkey());
        completions = WorkCompletions.allocate(arena, 1);
    }

    /** The manual connection path on one device: each QP's peer is the other, same GID. */
    private void connect(final QueuePair a, final QueuePair b) {
        final String index = System.getenv("ISTHMUS_RDMA_GID_INDEX");
        final int gidIndex = index == null ? 1 : Integer.parseInt(index);
        final Gid gid = context.queryGid(PORT, gidIndex);
        final Mtu mtu = context.queryPort(PORT).activeMtu();
        final QueuePairAddress addressA = new QueuePairAddress(a.qpNumber(), 100, gid, 0);
        final QueuePairAddress addressB = new QueuePairAddress(b.qpNumber(), 200, gid, 0);
        a.moveToInit(PORT, AccessFlags.ALL_REMOTE);
        b.moveToInit(PORT, AccessFlags.ALL_REMOTE);
        a.moveToReadyToReceive(addressB, mtu, PORT, gidIndex, 1);
        b.moveToReadyToReceive(addressA, mtu, PORT, gidIndex, 1);
        a.moveToReadyToSend(100, 1);
        b.moveToReadyToSend(200, 1);
    }

    @Benchmark
    public long postAndPoll() {
        write.wrId(0, ++sequence);
        sender.postSend(write, 1);
        while (sendCq.poll(completions, 1) == 0) {
            Thread.onSpinWait();
        }
        if (completions.status(0) != WorkCompletionStatus.SUCCESS) {
            throw new IllegalStateException("write failed: " + completions.describe(0));
        }
        return completions.wrId(0);
    }

    @TearDown(Level.Trial)
    public void close() {
        receiver.close();
        sender.close();
        target.close();
        source.close();
        receiveCq.close();
        sendCq.close();
        pd.close();
        context.close();
        devices.close();
        arena.close();
    }
}
