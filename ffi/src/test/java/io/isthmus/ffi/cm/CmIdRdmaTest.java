package io.isthmus.ffi.cm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.ffi.verbs.AccessFlags;
import io.isthmus.ffi.verbs.CompletionQueue;
import io.isthmus.ffi.verbs.MemoryRegion;
import io.isthmus.ffi.verbs.Opcode;
import io.isthmus.ffi.verbs.ProtectionDomain;
import io.isthmus.ffi.verbs.QpState;
import io.isthmus.ffi.verbs.QueuePair;
import io.isthmus.ffi.verbs.QueuePairOptions;
import io.isthmus.ffi.verbs.ReceiveWorkRequests;
import io.isthmus.ffi.verbs.SendFlags;
import io.isthmus.ffi.verbs.SendWorkRequests;
import io.isthmus.ffi.verbs.WorkCompletionStatus;
import io.isthmus.ffi.verbs.WorkCompletions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Connects two RC QPs in one JVM through rdma_cm over the guest's rxe0 address. */
@Tag("rdma")
class CmIdRdmaTest {
    private static final int TIMEOUT_MS = 30_000;

    private static InetAddress deviceAddress() throws Exception {
        String ip = System.getenv("ISTHMUS_RDMA_IP");
        return InetAddress.getByName(ip == null ? "169.254.77.1" : ip);
    }

    @Test
    void shouldConnectWithPrivateDataSendAndDisconnect() throws Exception {
        InetSocketAddress address = new InetSocketAddress(
                deviceAddress(), 20_000 + ThreadLocalRandom.current().nextInt(20_000));
        byte[] hello = "client-hello".getBytes(StandardCharsets.US_ASCII);
        byte[] welcome = "server-welcome".getBytes(StandardCharsets.US_ASCII);
        try (Arena arena = Arena.ofShared();
                EventChannel serverEvents = EventChannel.create();
                EventChannel clientEvents = EventChannel.create()) {
            CmId listener = CmId.create(serverEvents, PortSpace.TCP);
            listener.bind(address);
            listener.listen(4);
            assertThat(listener.localAddress()).isEqualTo(address);

            CmId client = CmId.create(clientEvents, PortSpace.TCP);
            client.resolveAddress(null, address, TIMEOUT_MS);
            clientEvents.expect(CmEventType.ADDR_RESOLVED, TIMEOUT_MS);
            client.resolveRoute(TIMEOUT_MS);
            clientEvents.expect(CmEventType.ROUTE_RESOLVED, TIMEOUT_MS);
            ProtectionDomain clientPd = client.context().allocateProtectionDomain();
            CompletionQueue clientCq = client.context().createCompletionQueue(32);
            QueuePair clientQp = client.createQueuePair(clientPd, options(clientCq));
            client.connect(ConnectionParameters.withPrivateData(hello));

            CmEvent request = serverEvents.expect(CmEventType.CONNECT_REQUEST, TIMEOUT_MS);
            assertThat(request.listenId()).isSameAs(listener);
            assertThat(Arrays.copyOf(request.privateData(), hello.length)).isEqualTo(hello);
            CmId server = request.id();
            ProtectionDomain serverPd = server.context().allocateProtectionDomain();
            CompletionQueue serverCq = server.context().createCompletionQueue(32);
            QueuePair serverQp = server.createQueuePair(serverPd, options(serverCq));
            MemorySegment serverBuffer = arena.allocate(4096);
            MemoryRegion serverMr = serverPd.registerMemory(serverBuffer, AccessFlags.LOCAL_WRITE);
            ReceiveWorkRequests receives = ReceiveWorkRequests.allocate(arena, 1, 1);
            receives.set(0, 1).sge(0, 0, serverMr, 0, 4096);
            serverQp.postReceive(receives, 1);
            server.accept(ConnectionParameters.withPrivateData(welcome));

            CmEvent established = clientEvents.expect(CmEventType.ESTABLISHED, TIMEOUT_MS);
            assertThat(Arrays.copyOf(established.privateData(), welcome.length)).isEqualTo(welcome);
            serverEvents.expect(CmEventType.ESTABLISHED, TIMEOUT_MS);
            assertThat(clientQp.query().state()).isEqualTo(QpState.RTS);

            MemorySegment clientBuffer = arena.allocate(4096);
            MemoryRegion clientMr = clientPd.registerMemory(clientBuffer, AccessFlags.LOCAL_WRITE);
            byte[] message = "over rdma_cm".getBytes(StandardCharsets.US_ASCII);
            MemorySegment.copy(message, 0, clientBuffer, JAVA_BYTE, 0, message.length);
            SendWorkRequests sends = SendWorkRequests.allocate(arena, 1, 1);
            sends.set(0, 2, Opcode.SEND, SendFlags.SIGNALED).sge(0, 0, clientMr, 0, message.length);
            clientQp.postSend(sends, 1);
            WorkCompletions completions = WorkCompletions.allocate(arena, 4);
            await(serverCq, completions);
            assertThat(completions.status(0)).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(completions.byteLength(0)).isEqualTo(message.length);
            assertThat(new String(
                            serverBuffer.asSlice(0, message.length).toArray(JAVA_BYTE), StandardCharsets.US_ASCII))
                    .isEqualTo("over rdma_cm");
            await(clientCq, completions);
            assertThat(completions.status(0)).isEqualTo(WorkCompletionStatus.SUCCESS);

            client.disconnect();
            server.disconnect();
            clientEvents.expect(CmEventType.DISCONNECTED, TIMEOUT_MS);
            serverEvents.expect(CmEventType.DISCONNECTED, TIMEOUT_MS);
            assertThat(clientQp.query().state()).isEqualTo(QpState.ERR);

            clientQp.close();
            serverQp.close();
            clientMr.close();
            serverMr.close();
            clientCq.close();
            serverCq.close();
            clientPd.close();
            serverPd.close();
            server.close();
            client.close();
            listener.close();
        }
    }

    private static QueuePairOptions options(CompletionQueue cq) {
        return new QueuePairOptions().completionQueue(cq).maxSendWr(16).maxRecvWr(16);
    }

    private static void await(CompletionQueue cq, WorkCompletions completions) {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (cq.poll(completions, 1) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no completion within 60 s on " + cq);
            }
        }
    }
}
