package io.isthmus.broker.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.Broker;
import io.isthmus.broker.config.BrokerConfig;
import io.isthmus.broker.log.LogReadResult;
import io.isthmus.broker.log.PartitionLog;
import io.isthmus.broker.network.NetworkMetrics;
import io.isthmus.broker.partition.Partition;
import io.isthmus.ffi.verbs.AccessFlags;
import io.isthmus.ffi.verbs.WorkCompletionStatus;
import io.isthmus.protocol.control.ConsumeAccessResponse;
import io.isthmus.protocol.control.ControlApiKeys;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.MetadataSlotDescriptor;
import io.isthmus.protocol.control.ProduceAccessResponse;
import io.isthmus.protocol.control.ProduceImmediateDescriptor;
import io.isthmus.protocol.control.RdmaConnectResponse;
import io.isthmus.protocol.control.ReleaseAccessRequest;
import io.isthmus.protocol.control.SharedProduceWordDescriptor;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The broker's RDMA datapath on a real device (Soft-RoCE in the guest): an embedded broker with {@code
 * rdma.enabled=true}, and {@link RdmaTestClient}s written against the ffi binding playing producer and consumer.
 */
@Tag("rdma")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RdmaDatapathRdmaTest {
    private static final int SEGMENT_BYTES = 64 * 1024;
    /**
     * The production default: the ordering tests hold a reservation unwritten on purpose while other work runs, which
     * under emulation on a busy machine can take over a second; a shorter timeout revoked it mid-test.
     */
    private static final long RESERVATION_TIMEOUT_MS = 5_000;

    private Path logDir;
    private Broker broker;
    private RdmaDatapath datapath;

    @BeforeAll
    void startBroker() throws Exception {
        logDir = Files.createTempDirectory("rdma-datapath");
        broker = RdmaTestBroker.start(
                logDir,
                Map.of(
                        "log.segment.bytes",
                        Integer.toString(SEGMENT_BYTES),
                        "log.retention.bytes",
                        "1",
                        "log.retention.check.interval.ms",
                        "3600000",
                        BrokerConfig.RDMA_SLOTS_PER_CONNECTION,
                        "8",
                        BrokerConfig.RDMA_PRODUCE_RESERVATION_TIMEOUT_MS,
                        Long.toString(RESERVATION_TIMEOUT_MS)));
        datapath = broker.rdma().datapath().orElseThrow();
    }

    @AfterAll
    void stopBroker() throws Exception {
        broker.close();
    }

    private RdmaTestClient client() throws Exception {
        final RdmaTestClient client =
                new RdmaTestClient("127.0.0.1", broker.endpoints().getFirst().port());
        final RdmaConnectResponse connected = client.connect();
        assertThat(connected.errorCode())
                .as(connected.reason() == null ? "" : connected.reason())
                .isZero();
        return client;
    }

    private Partition topic(final String name) {
        broker.partitions().createTopic(name, 1);
        return broker.partitions().partition(new TopicPartition(name, 0)).orElseThrow();
    }

    private static byte[] logBytes(final PartitionLog log, final long from) {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        long offset = from;
        while (offset < log.logEndOffset()) {
            try (LogReadResult result = log.read(offset, Integer.MAX_VALUE)) {
                bytes.writeBytes(result.records().toArray(ValueLayout.JAVA_BYTE));
                offset = result.nextOffset();
            }
        }
        return bytes.toByteArray();
    }

    private static <T> T await(final java.util.concurrent.CompletableFuture<T> future) throws Exception {
        return future.get(30, TimeUnit.SECONDS);
    }

    @Test
    void shouldCommitExclusiveWritesInOrderAndAckTheirBaseOffsets() throws Exception {
        final Partition partition = topic("rdma-produce");
        awaitNoSessions(); // registrations are counted over every session
        final long commitsBefore = datapath.commits();
        try (RdmaTestClient producer = client()) {
            final ProduceAccessResponse access = producer.produceAccess("rdma-produce", 0);
            assertThat(access.errorCode()).isZero();
            assertThat(access.tailPosition()).isZero();
            assertThat(access.capacity()).isEqualTo(SEGMENT_BYTES);
            final ByteArrayOutputStream expected = new ByteArrayOutputStream();
            final int window = producer.connection.produceCredits();
            assertThat(window).isEqualTo(RdmaTestClient.ACK_CREDITS);
            long tail = access.tailPosition();
            int order = access.firstOrder();
            for (int first = 0; first < 20; first += window) {
                // A window of writes outstanding at once, as credits allow; acks come back in write order.
                final int last = Math.min(20, first + window);
                final int[] immediates = new int[last - first];
                for (int i = first; i < last; i++) {
                    final byte[] batch = RdmaBatches.batch("p" + i, 5, 40);
                    immediates[i - first] = ProduceImmediateDescriptor.immediate(access.segmentId(), order);
                    assertThat(producer.writeStaged(access, batch, immediates[i - first]))
                            .isEqualTo(WorkCompletionStatus.SUCCESS);
                    expected.writeBytes(RdmaBatches.asCommitted(batch, i * 5L, 0));
                    tail += batch.length;
                    order = ProduceImmediateDescriptor.nextOrder(order);
                }
                for (int i = first; i < last; i++) {
                    assertThat(producer.awaitAck())
                            .isEqualTo(new RdmaTestClient.Ack(i * 5L, immediates[i - first], ControlErrorCodes.NONE));
                }
            }

            assertThat(partition.logEndOffset()).isEqualTo(100);
            assertThat(datapath.commits() - commitsBefore).isEqualTo(20);
            assertThat(await(datapath.registrationCount()))
                    .as("a producer gets no registration of the log, only its staging slots")
                    .isZero();
            assertThat(logBytes(partition.log(), 0)).isEqualTo(expected.toByteArray());
            assertThat(partition
                            .appendFromClient(MemorySegment.ofArray(RdmaBatches.batch("tcp", 1, 10)))
                            .error())
                    .as("TCP produce while an exclusive RDMA producer holds the partition")
                    .isNotEqualTo(org.apache.kafka.common.protocol.Errors.NONE);
        }
    }

    @Test
    void shouldAdvertiseTheControlKeysInApiVersionsWhileRunning() {
        final ApiVersionsResponseData versions = broker.rdma().advertise(new ApiVersionsResponseData());

        assertThat(versions.apiKeys().find(ControlApiKeys.RDMA_CONNECT)).isNotNull();
        assertThat(versions.apiKeys().find(ControlApiKeys.CONSUME_ACCESS)).isNotNull();
    }

    /**
     * A producer holds an rkey for its own staging slots and none that can write the log: the broker copies each batch
     * out of its slot before it validates and acknowledges it. So once a batch is acknowledged, nothing its producer
     * writes can change what consumers read: rewriting the slot succeeds at the NIC and changes nothing, and a write
     * aimed at the log itself with the slot rkey fails at the NIC (a consumer's rkey cannot write either: see {@link
     * #shouldOpenQueuePairsForReadingOnlyAndWidenThemPerProduceGrant}).
     */
    @Test
    void shouldKeepAnAcknowledgedBatchWhateverItsProducerWritesAfterTheAck() throws Exception {
        final Partition partition = topic("rdma-after-ack");
        try (RdmaTestClient producer = client();
                RdmaTestClient consumer = client()) {
            final ProduceAccessResponse access = producer.produceAccess("rdma-after-ack", 0);
            assertThat(access.errorCode()).isZero();
            final byte[] first = RdmaBatches.batch("acked", 4, 50);
            final long slot = producer.nextStagingSlot(access);
            final int immediate = ProduceImmediateDescriptor.immediate(access.segmentId(), access.firstOrder());
            assertThat(producer.writeWithImm(first, slot, access.stagingRkey(), immediate))
                    .isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(producer.awaitAck()).isEqualTo(new RdmaTestClient.Ack(0, immediate, ControlErrorCodes.NONE));
            final byte[] acknowledged = RdmaBatches.asCommitted(first, 0, 0);
            assertThat(logBytes(partition.log(), 0)).isEqualTo(acknowledged);

            final byte[] hostile = RdmaBatches.batch("HOSTILE", 4, 50);
            assertThat(producer.write(hostile, slot, access.stagingRkey()))
                    .as("the producer's own slot, rewritten after the ack")
                    .isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(logBytes(partition.log(), 0)).isEqualTo(acknowledged);
            final ConsumeAccessResponse reading = consumer.consumeAccess("rdma-after-ack", 0, 0);
            assertThat(consumer.read(reading.segmentAddress(), reading.rkey(), acknowledged.length))
                    .isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(consumer.readData(0, acknowledged.length).toArray(ValueLayout.JAVA_BYTE))
                    .as("what an RDMA consumer reads after the slot was rewritten")
                    .isEqualTo(acknowledged);

            final byte[] second = RdmaBatches.batch("next", 2, 50);
            final int nextImmediate = ProduceImmediateDescriptor.immediate(
                    access.segmentId(), ProduceImmediateDescriptor.nextOrder(access.firstOrder()));
            assertThat(producer.writeStaged(access, second, nextImmediate)).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(producer.awaitAck())
                    .as("the next write goes to the next slot and commits right after the first")
                    .isEqualTo(new RdmaTestClient.Ack(4, nextImmediate, ControlErrorCodes.NONE));

            assertThat(producer.write(hostile, reading.segmentAddress(), access.stagingRkey()))
                    .as("the log itself, through the staging rkey")
                    .isEqualTo(WorkCompletionStatus.REM_ACCESS_ERR);
        }
        final ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.writeBytes(RdmaBatches.asCommitted(RdmaBatches.batch("acked", 4, 50), 0, 0));
        expected.writeBytes(RdmaBatches.asCommitted(RdmaBatches.batch("next", 2, 50), 4, 0));
        assertThat(logBytes(partition.log(), 0)).isEqualTo(expected.toByteArray());
        assertThat(partition.logEndOffset()).isEqualTo(6);
    }

    @Test
    void shouldRejectABadBatchRevokeTheProducerAndKeepTheLogIntact() throws Exception {
        final Partition partition = topic("rdma-bad-crc");
        try (RdmaTestClient producer = client()) {
            final ProduceAccessResponse access = producer.produceAccess("rdma-bad-crc", 0);
            final byte[] good = RdmaBatches.batch("good", 3, 30);
            producer.writeStaged(access, good, ProduceImmediateDescriptor.immediate(access.segmentId(), 0));
            assertThat(producer.awaitAck().errorCode()).isZero();
            final byte[] before = logBytes(partition.log(), 0);

            final byte[] bad = RdmaBatches.corrupted(RdmaBatches.batch("bad", 3, 30));
            final int immediate = ProduceImmediateDescriptor.immediate(access.segmentId(), 1);
            producer.writeStaged(access, bad, immediate);
            final RdmaTestClient.Ack ack = producer.awaitAck();

            assertThat(ack).isEqualTo(new RdmaTestClient.Ack(-1, immediate, ControlErrorCodes.CORRUPT_MESSAGE));
            assertThat(partition.logEndOffset()).isEqualTo(3);
            assertThat(logBytes(partition.log(), 0)).isEqualTo(before);
            assertThat(producer.writeStaged(access, good, immediate))
                    .as("the producer's own staging slots stay writable")
                    .isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(producer.awaitAck())
                    .as("a write after the grant was revoked")
                    .isEqualTo(new RdmaTestClient.Ack(-1, immediate, ControlErrorCodes.ACCESS_REVOKED));
            assertThat(partition.logEndOffset()).isEqualTo(3);
            assertThat(logBytes(partition.log(), 0)).isEqualTo(before);
            assertThat(partition
                            .appendFromClient(MemorySegment.ofArray(RdmaBatches.batch("tcp", 1, 10)))
                            .error())
                    .as("TCP produce once the revoked producer is gone")
                    .isEqualTo(org.apache.kafka.common.protocol.Errors.NONE);
        }
    }

    @Test
    void shouldCommitTwoSharedRdmaProducersAndATcpProducerInReservationOrder() throws Exception {
        final Partition partition = topic("rdma-shared");
        try (RdmaTestClient first = client();
                RdmaTestClient second = client()) {
            final ProduceAccessResponse a = first.produceAccessShared("rdma-shared", 0);
            final ProduceAccessResponse b = second.produceAccessShared("rdma-shared", 0);
            assertThat(a.errorCode()).isZero();
            assertThat(a.shared()).isTrue();
            assertThat(b.wordAddress()).as("one word for the segment").isEqualTo(a.wordAddress());
            assertThat(b.segmentId()).isEqualTo(a.segmentId());
            assertThat(first.produceAccess("rdma-shared", 0).errorCode())
                    .as("exclusive access while the partition is shared")
                    .isEqualTo(ControlErrorCodes.ACCESS_HELD);

            final ByteArrayOutputStream expected = new ByteArrayOutputStream();
            long offset = 0;
            for (int round = 0; round < 6; round++) {
                final byte[] fromFirst = RdmaBatches.batch("a" + round, 2, 30);
                final byte[] fromSecond = RdmaBatches.batch("b" + round, 3, 30);
                final byte[] fromTcp = RdmaBatches.batch("t" + round, 1, 30);
                // first reserves before second, but second's write lands first: it must wait for first's.
                final long firstWord = first.reserve(a, fromFirst);
                final long secondWord = second.reserve(b, fromSecond);
                assertThat(SharedProduceWordDescriptor.order(secondWord))
                        .isEqualTo(ProduceImmediateDescriptor.nextOrder(SharedProduceWordDescriptor.order(firstWord)));
                assertThat(second.writeReserved(b, secondWord, fromSecond)).isEqualTo(WorkCompletionStatus.SUCCESS);
                final var tcp = partition.appendFromClientAsync(MemorySegment.ofArray(fromTcp));
                // Two round trips through the datapath thread: the TCP append's command has run and a whole pass,
                // completion polling included, has seen second's write; nothing may have been committed.
                await(datapath.sessionCount());
                await(datapath.sessionCount());
                assertThat(partition.logEndOffset())
                        .as("nothing after the unwritten reservation is committed")
                        .isEqualTo(offset);
                assertThat(tcp).isNotDone();
                assertThat(first.writeReserved(a, firstWord, fromFirst)).isEqualTo(WorkCompletionStatus.SUCCESS);

                assertThat(first.awaitAck().baseOffset()).isEqualTo(offset);
                assertThat(second.awaitAck().baseOffset()).isEqualTo(offset + 2);
                assertThat(await(tcp).baseOffset()).isEqualTo(offset + 5);
                expected.writeBytes(RdmaBatches.asCommitted(fromFirst, offset, 0));
                expected.writeBytes(RdmaBatches.asCommitted(fromSecond, offset + 2, 0));
                expected.writeBytes(RdmaBatches.asCommitted(fromTcp, offset + 5, 0));
                offset += 6;
            }

            assertThat(partition.logEndOffset()).isEqualTo(offset);
            assertThat(logBytes(partition.log(), 0)).isEqualTo(expected.toByteArray());
        }
        awaitNoSessions();
        assertThat(await(datapath.sharedPartitions()))
                .as("shared produce ends with its last producer")
                .isZero();
        assertThat(partition
                        .appendFromClient(MemorySegment.ofArray(RdmaBatches.batch("direct", 1, 10)))
                        .baseOffset())
                .as("TCP appends straight to the log again")
                .isEqualTo(36);
    }

    /**
     * A shared producer disconnects while its write waits behind another producer's reservation. Its staging slots go
     * with its session, so that write can no longer be read: the broker commits the order before it, then revokes the
     * segment rather than read freed memory (nothing after the lost write is committed: no hole), and the remaining
     * producer writes on once the grace period is over.
     */
    @Test
    void shouldRevokeASharedSegmentWhenAWaitingWritesSessionIsGone() throws Exception {
        final Partition partition = topic("rdma-shared-gone");
        awaitNoSessions();
        try (RdmaTestClient first = client()) {
            final ProduceAccessResponse a = first.produceAccessShared("rdma-shared-gone", 0);
            assertThat(a.errorCode()).isZero();
            final long revocationsBefore = datapath.sharedRevocations();
            final byte[] kept = RdmaBatches.batch("kept", 2, 30);
            final byte[] lost = RdmaBatches.batch("lost", 3, 30);
            final long firstWord = first.reserve(a, kept);
            try (RdmaTestClient second = client()) {
                final ProduceAccessResponse b = second.produceAccessShared("rdma-shared-gone", 0);
                final long secondWord = second.reserve(b, lost);
                final long receivedBefore = datapath.receiveCompletions();
                assertThat(second.writeReserved(b, secondWord, lost)).isEqualTo(WorkCompletionStatus.SUCCESS);
                final long seenBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (datapath.receiveCompletions() == receivedBefore) {
                    assertThat(System.nanoTime() - seenBy)
                            .as("the datapath sees the write")
                            .isNegative();
                    Thread.onSpinWait();
                }
                assertThat(partition.logEndOffset())
                        .as("the write waits for order 0")
                        .isZero();
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (await(datapath.sessionCount()) > 1) {
                assertThat(System.nanoTime() - deadline)
                        .as("the second producer's session is torn down")
                        .isNegative();
                Thread.onSpinWait();
            }

            assertThat(first.writeReserved(a, firstWord, kept)).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(first.awaitAck())
                    .isEqualTo(new RdmaTestClient.Ack(
                            0,
                            ProduceImmediateDescriptor.immediate(
                                    a.segmentId(), SharedProduceWordDescriptor.order(firstWord)),
                            ControlErrorCodes.NONE));
            // The revocation happens in the pass that committed order 0 and sent its ack, not a reservation timeout
            // later: one command through the datapath thread runs after that pass.
            await(datapath.sessionCount());
            assertThat(datapath.sharedRevocations() - revocationsBefore)
                    .as("the segment is revoked at the lost write's turn")
                    .isEqualTo(1);
            assertThat(partition.logEndOffset()).isEqualTo(2);
            assertThat(logBytes(partition.log(), 0)).isEqualTo(RdmaBatches.asCommitted(kept, 0, 0));

            final ProduceAccessResponse again = first.produceAccessShared("rdma-shared-gone", 0);
            assertThat(again.errorCode())
                    .as("access again once the grace period is over")
                    .isZero();
            assertThat(again.tailPosition()).isEqualTo(kept.length);
            final byte[] next = RdmaBatches.batch("next", 1, 30);
            final long word = first.reserve(again, next);
            first.writeReserved(again, word, next);
            assertThat(first.awaitAck().baseOffset()).isEqualTo(2);
            final ByteArrayOutputStream expected = new ByteArrayOutputStream();
            expected.writeBytes(RdmaBatches.asCommitted(kept, 0, 0));
            expected.writeBytes(RdmaBatches.asCommitted(next, 2, 0));
            assertThat(logBytes(partition.log(), 0)).isEqualTo(expected.toByteArray());
        }
    }

    @Test
    void shouldRollASharedSegmentOnceTheOrdersBeforeTheOverflowAreCommitted() throws Exception {
        final Partition partition = topic("rdma-shared-roll");
        try (RdmaTestClient first = client();
                RdmaTestClient second = client()) {
            ProduceAccessResponse a = first.produceAccessShared("rdma-shared-roll", 0);
            ProduceAccessResponse b = second.produceAccessShared("rdma-shared-roll", 0);
            final int firstSegment = a.segmentId();
            final byte[] batch = RdmaBatches.batch("r", 10, 400);
            int written = 0;
            long overflowFirst = -1;
            while (overflowFirst < 0) {
                final long word = first.reserve(a, batch);
                if (!SharedProduceWordDescriptor.fits(word, batch.length, a.capacity())) {
                    overflowFirst = word;
                    break;
                }
                first.writeReserved(a, word, batch);
                assertThat(first.awaitAck().errorCode()).isZero();
                written++;
            }
            final long overflowSecond = second.reserve(b, batch);
            assertThat(SharedProduceWordDescriptor.fits(overflowSecond, batch.length, b.capacity()))
                    .isFalse();

            a = first.rollFullShared(
                    "rdma-shared-roll", 0, firstSegment, SharedProduceWordDescriptor.order(overflowFirst));
            b = second.rollFullShared(
                    "rdma-shared-roll", 0, firstSegment, SharedProduceWordDescriptor.order(overflowSecond));

            assertThat(a.errorCode()).isZero();
            assertThat(a.segmentId()).isNotEqualTo(firstSegment);
            assertThat(b.segmentId()).isEqualTo(a.segmentId());
            assertThat(a.tailPosition()).isZero();
            assertThat(a.segmentBaseOffset()).isEqualTo(written * 10L);
            final long word = second.reserve(b, batch);
            assertThat(SharedProduceWordDescriptor.position(word)).isZero();
            second.writeReserved(b, word, batch);
            assertThat(second.awaitAck().baseOffset()).isEqualTo(written * 10L);
            assertThat(partition.log().segments()).hasSize(2);
            assertThat(partition.logEndOffset()).isEqualTo((written + 1) * 10L);
        }
    }

    @Test
    void shouldRevokeAReservationNeverWrittenWithoutAHoleAndLetTheOthersGoOn() throws Exception {
        final Partition partition = topic("rdma-shared-timeout");
        try (RdmaTestClient stalled = client();
                RdmaTestClient healthy = client()) {
            final ProduceAccessResponse s = stalled.produceAccessShared("rdma-shared-timeout", 0);
            ProduceAccessResponse h = healthy.produceAccessShared("rdma-shared-timeout", 0);
            final byte[] good = RdmaBatches.batch("ok", 2, 20);
            healthy.writeReserved(h, healthy.reserve(h, good), good);
            assertThat(healthy.awaitAck().baseOffset()).isZero();
            final byte[] before = logBytes(partition.log(), 0);
            final long revocationsBefore = datapath.sharedRevocations();

            final byte[] neverWritten = RdmaBatches.batch("lost", 2, 20);
            final long stalledWord = stalled.reserve(s, neverWritten);
            final byte[] behind = RdmaBatches.batch("behind", 2, 20);
            final long behindWord = healthy.reserve(h, behind);
            healthy.writeReserved(h, behindWord, behind);
            final var tcpBehind =
                    partition.appendFromClientAsync(MemorySegment.ofArray(RdmaBatches.batch("tcp", 1, 20)));

            final RdmaTestClient.Ack revoked = healthy.awaitAck();
            assertThat(revoked.errorCode()).isEqualTo(ControlErrorCodes.ACCESS_REVOKED);
            assertThat(revoked.immediate())
                    .isEqualTo(ProduceImmediateDescriptor.immediate(
                            h.segmentId(), SharedProduceWordDescriptor.order(behindWord)));
            assertThat(await(tcpBehind).error())
                    .as("the TCP batch behind the hole is answered retriably")
                    .isEqualTo(org.apache.kafka.common.protocol.Errors.REQUEST_TIMED_OUT);
            assertThat(datapath.sharedRevocations() - revocationsBefore).isEqualTo(1);
            assertThat(partition.logEndOffset())
                    .as("no hole, nothing behind it")
                    .isEqualTo(2);
            assertThat(logBytes(partition.log(), 0)).isEqualTo(before);

            // Asked again, access comes once the grace period is over: same segment, same tail, a fresh word.
            h = healthy.produceAccessShared("rdma-shared-timeout", 0);
            assertThat(h.errorCode()).isZero();
            assertThat(h.segmentId()).isEqualTo(s.segmentId());
            assertThat(h.tailPosition()).isEqualTo(before.length);
            assertThat(h.wordAddress()).isNotEqualTo(s.wordAddress());
            assertThat(stalled.writeReserved(s, stalledWord, neverWritten))
                    .as("the stalled producer's late write lands in its own staging slot")
                    .isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(stalled.awaitAck())
                    .as("and is answered, never committed")
                    .isEqualTo(new RdmaTestClient.Ack(
                            -1,
                            ProduceImmediateDescriptor.immediate(
                                    s.segmentId(), SharedProduceWordDescriptor.order(stalledWord)),
                            ControlErrorCodes.ACCESS_REVOKED));
            assertThat(partition.logEndOffset()).isEqualTo(2);
            final long retryWord = healthy.reserve(h, behind);
            assertThat(SharedProduceWordDescriptor.position(retryWord)).isEqualTo(before.length);
            healthy.writeReserved(h, retryWord, behind);
            assertThat(healthy.awaitAck())
                    .isEqualTo(new RdmaTestClient.Ack(
                            2,
                            ProduceImmediateDescriptor.immediate(
                                    h.segmentId(), SharedProduceWordDescriptor.order(retryWord)),
                            ControlErrorCodes.NONE));
            assertThat(partition
                            .appendFromClientAsync(MemorySegment.ofArray(RdmaBatches.batch("tcp", 1, 20)))
                            .get(30, TimeUnit.SECONDS)
                            .baseOffset())
                    .isEqualTo(4);
            assertThat(partition.logEndOffset()).isEqualTo(5);
            final ByteArrayOutputStream expected = new ByteArrayOutputStream();
            expected.writeBytes(before);
            expected.writeBytes(RdmaBatches.asCommitted(behind, 2, 0));
            expected.writeBytes(RdmaBatches.asCommitted(RdmaBatches.batch("tcp", 1, 20), 4, 0));
            assertThat(logBytes(partition.log(), 0)).isEqualTo(expected.toByteArray());
        }
    }

    @Test
    void shouldRevokeAccessWhenAProducersQueuePairFailsAndKeepTheLogIntact() throws Exception {
        final Partition partition = topic("rdma-qp-error");
        try (RdmaTestClient producer = client()) {
            final ProduceAccessResponse access = producer.produceAccess("rdma-qp-error", 0);
            final byte[] batch = RdmaBatches.batch("q", 4, 30);
            producer.writeStaged(access, batch, ProduceImmediateDescriptor.immediate(access.segmentId(), 0));
            assertThat(producer.awaitAck().errorCode()).isZero();
            final byte[] before = logBytes(partition.log(), 0);

            assertThat(await(datapath.breakQueuePairs())).isPositive();
            awaitNoSessions();

            try (RdmaTestClient next = client()) {
                final ProduceAccessResponse again = next.produceAccess("rdma-qp-error", 0);
                assertThat(again.errorCode())
                        .as("the failed producer's exclusive access was given up")
                        .isZero();
                assertThat(again.tailPosition()).isEqualTo(before.length);
            }
            assertThat(partition.logEndOffset()).isEqualTo(4);
            assertThat(logBytes(partition.log(), 0)).isEqualTo(before);
            awaitNoSessions();
            assertThat(partition
                            .appendFromClient(MemorySegment.ofArray(RdmaBatches.batch("tcp", 1, 10)))
                            .baseOffset())
                    .as("the partition takes writers again")
                    .isEqualTo(4);
        }
    }

    /**
     * Every client's rkeys are its own: a READ with another client's segment or slot rkey fails at the NIC, though the
     * memory behind them is the same. (With one protection domain for all, any connected client could use them.)
     */
    @Test
    void shouldRefuseAReadWithAnotherClientsRkeysAtTheNic() throws Exception {
        final Partition partition = topic("rdma-scoped");
        partition.appendFromClient(MemorySegment.ofArray(RdmaBatches.batch("scoped", 2, 100)));
        awaitNoSessions();
        try (RdmaTestClient owner = client();
                RdmaTestClient other = client();
                RdmaTestClient third = client()) {
            final ConsumeAccessResponse access = owner.consumeAccess("rdma-scoped", 0, 0);
            assertThat(access.errorCode()).isZero();
            final long segmentAddress = access.segmentAddress();
            final int segmentRkey = access.rkey();
            final long slotAddress = access.slotRegionAddress();
            final int slotRkey = access.slotRegionRkey();

            assertThat(owner.read(segmentAddress, segmentRkey, 64)).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(owner.read(slotAddress, slotRkey, MetadataSlotDescriptor.LENGTH))
                    .isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(other.read(segmentAddress, segmentRkey, 64))
                    .as("another client's segment rkey")
                    .isEqualTo(WorkCompletionStatus.REM_ACCESS_ERR);
            assertThat(third.read(slotAddress, slotRkey, MetadataSlotDescriptor.LENGTH))
                    .as("another client's slot rkey")
                    .isEqualTo(WorkCompletionStatus.REM_ACCESS_ERR);
            assertThat(owner.read(segmentAddress, segmentRkey, 64))
                    .as("the owner reads on")
                    .isEqualTo(WorkCompletionStatus.SUCCESS);
        }
    }

    /** Releasing one reader's access ends its READs at the NIC while another reader of the same segment goes on. */
    @Test
    void shouldEndAReleasedReadersAccessAtTheNicWhileAnotherReadsTheSameSegment() throws Exception {
        final Partition partition = topic("rdma-two-readers");
        partition.appendFromClient(MemorySegment.ofArray(RdmaBatches.batch("shared", 2, 100)));
        try (RdmaTestClient first = client();
                RdmaTestClient second = client()) {
            final ConsumeAccessResponse firstAccess = first.consumeAccess("rdma-two-readers", 0, 0);
            final long firstAddress = firstAccess.segmentAddress();
            final int firstRkey = firstAccess.rkey();
            final ConsumeAccessResponse secondAccess = second.consumeAccess("rdma-two-readers", 0, 0);
            assertThat(secondAccess.segmentId()).isEqualTo(firstAccess.segmentId());
            final long secondAddress = secondAccess.segmentAddress();
            final int secondRkey = secondAccess.rkey();
            assertThat(first.read(firstAddress, firstRkey, 64)).isEqualTo(WorkCompletionStatus.SUCCESS);

            assertThat(first.release("rdma-two-readers", 0, ReleaseAccessRequest.CONSUME)
                            .errorCode())
                    .isZero();

            assertThat(first.read(firstAddress, firstRkey, 64))
                    .as("the released reader's rkey")
                    .isEqualTo(WorkCompletionStatus.REM_ACCESS_ERR);
            assertThat(second.read(secondAddress, secondRkey, 64))
                    .as("the other reader of the segment")
                    .isEqualTo(WorkCompletionStatus.SUCCESS);
        }
    }

    /** A queue pair allows remote READ only until its client gets produce access, and then only what that needs. */
    @Test
    void shouldOpenQueuePairsForReadingOnlyAndWidenThemPerProduceGrant() throws Exception {
        topic("rdma-rights");
        topic("rdma-rights-shared");
        awaitNoSessions();
        try (RdmaTestClient client = client()) {
            assertThat(await(datapath.queuePairAccessFlags())).containsExactly(AccessFlags.REMOTE_READ);
            final ConsumeAccessResponse reading = client.consumeAccess("rdma-rights", 0, 0);
            assertThat(reading.errorCode()).isZero();
            final long readAddress = reading.segmentAddress();
            final int readRkey = reading.rkey();
            assertThat(await(datapath.queuePairAccessFlags())).containsExactly(AccessFlags.REMOTE_READ);
            assertThat(client.produceAccess("rdma-rights", 0).errorCode()).isZero();
            assertThat(await(datapath.queuePairAccessFlags()))
                    .containsExactly(AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE);
            assertThat(client.produceAccessShared("rdma-rights-shared", 0).errorCode())
                    .isZero();
            assertThat(await(datapath.queuePairAccessFlags()))
                    .containsExactly(AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC);
            assertThat(client.writeWithImm(new byte[16], readAddress, readRkey, 0))
                    .as("on a queue pair that may write, the consumer rkey still may not")
                    .isEqualTo(WorkCompletionStatus.REM_ACCESS_ERR);
        }
    }

    /**
     * Push replication access is a follower's to grant, to the leader it follows: a single broker follows nothing, so
     * a broker asking to push into its replica is refused, and no queue pair is opened for writing.
     */
    @Test
    void shouldRefusePushReplicationAccessWhereNoPartitionIsFollowed() throws Exception {
        topic("rdma-not-followed");
        awaitNoSessions();
        try (RdmaTestClient leader = client()) {
            assertThat(leader.replicaAccess("rdma-not-followed", 0, 2, 0).errorCode())
                    .isEqualTo(ControlErrorCodes.NOT_LEADER_OR_FOLLOWER);
            assertThat(leader.replicaAccess("rdma-no-such-topic", 0, 2, 0).errorCode())
                    .isEqualTo(ControlErrorCodes.UNKNOWN_TOPIC_OR_PARTITION);
            assertThat(await(datapath.queuePairAccessFlags())).containsExactly(AccessFlags.REMOTE_READ);
        }
    }

    private void awaitNoSessions() throws Exception {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (await(datapath.sessionCount()) > 0) {
            assertThat(System.nanoTime() - deadline)
                    .as("sessions left after 30 s")
                    .isNegative();
            Thread.onSpinWait();
        }
    }

    @Test
    void shouldPublishTheLogEndInTheSlotAndServeByteIdenticalSegmentReads() throws Exception {
        final Partition partition = topic("rdma-consume");
        try (RdmaTestClient consumer = client()) {
            final ConsumeAccessResponse access = consumer.consumeAccess("rdma-consume", 0, 0);
            assertThat(access.errorCode()).isZero();
            assertThat(access.readablePosition()).isZero();
            assertThat(access.slotCount()).isEqualTo(1);
            for (int i = 0; i < 3; i++) {
                assertThat(partition
                                .appendFromClient(MemorySegment.ofArray(RdmaBatches.batch("c" + i, 4, 50)))
                                .error())
                        .isEqualTo(org.apache.kafka.common.protocol.Errors.NONE);
            }
            final long slot = (long) access.slotIndex() * MetadataSlotDescriptor.LENGTH;

            assertThat(consumer.read(
                            access.slotRegionAddress(),
                            access.slotRegionRkey(),
                            access.slotCount() * MetadataSlotDescriptor.LENGTH))
                    .isEqualTo(WorkCompletionStatus.SUCCESS);
            final MemorySegment slots = consumer.readData(0, (long) access.slotCount() * MetadataSlotDescriptor.LENGTH);
            final long readable = MetadataSlotDescriptor.readable(slots, slot);
            final byte[] committed = logBytes(partition.log(), 0);
            assertThat(MetadataSlotDescriptor.position(readable)).isEqualTo(committed.length);
            assertThat(MetadataSlotDescriptor.isSealed(readable)).isFalse();
            assertThat(MetadataSlotDescriptor.highWatermark(slots, slot)).isEqualTo(12);
            assertThat(MetadataSlotDescriptor.segmentId(slots, slot)).isEqualTo(access.segmentId());

            assertThat(consumer.read(access.segmentAddress(), access.rkey(), committed.length))
                    .isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(consumer.readData(0, committed.length).toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo(committed);
            assertThat(consumer.writeWithImm(new byte[16], access.segmentAddress(), access.rkey(), 0))
                    .as("a consumer's queue pair does not allow remote writes at all")
                    .isEqualTo(WorkCompletionStatus.REM_INV_REQ_ERR);
        }
    }

    @Test
    void shouldServeSlotReadsWithoutAnyBrokerWorkWhileEmptyFetchesEachCostARequest() throws Exception {
        topic("rdma-offload");
        final NetworkMetrics metrics = broker.server().metrics();
        final RdmaControlHandler control = broker.rdma().controlHandler();
        try (RdmaTestClient consumer = client()) {
            final ConsumeAccessResponse access = consumer.consumeAccess("rdma-offload", 0, 0);
            final long requestsBefore = totalRequests(metrics);
            final long controlBefore = control.invocations();
            final long completionsBefore = datapath.receiveCompletions();

            for (int i = 0; i < 10_000; i++) {
                assertThat(consumer.read(
                                access.slotRegionAddress(),
                                access.slotRegionRkey(),
                                access.slotCount() * MetadataSlotDescriptor.LENGTH))
                        .isEqualTo(WorkCompletionStatus.SUCCESS);
            }

            assertThat(totalRequests(metrics) - requestsBefore).isZero();
            assertThat(control.invocations() - controlBefore).isZero();
            assertThat(datapath.receiveCompletions() - completionsBefore).isZero();
        }
        final long fetchesBefore = metrics.requests(ApiKeys.FETCH);
        emptyFetches("rdma-offload", 10_000);
        assertThat(metrics.requests(ApiKeys.FETCH) - fetchesBefore).isEqualTo(10_000);
    }

    private static long totalRequests(final NetworkMetrics metrics) {
        long total = 0;
        for (final ApiKeys key : ApiKeys.values()) {
            total += metrics.requests(key);
        }
        return total;
    }

    /** Sends {@code count} Fetch requests at the log end (empty answers), pipelined in windows. */
    private void emptyFetches(final String topic, final int count) throws Exception {
        final FetchRequestData data = new FetchRequestData()
                .setReplicaId(-1)
                .setMaxWaitMs(0)
                .setMinBytes(0)
                .setMaxBytes(1 << 20)
                .setSessionEpoch(-1);
        data.topics()
                .add(new FetchRequestData.FetchTopic()
                        .setTopic(topic)
                        .setPartitions(List.of(new FetchRequestData.FetchPartition()
                                .setPartition(0)
                                .setFetchOffset(0)
                                .setLogStartOffset(-1)
                                .setPartitionMaxBytes(1 << 20))));
        final short version = 12;
        final ByteBuffer body = new FetchRequest(data, version)
                .serializeWithHeader(new RequestHeader(ApiKeys.FETCH, version, "offload", 1));
        final byte[] frame = new byte[4 + body.remaining()];
        ByteBuffer.wrap(frame).putInt(body.remaining()).put(body);
        try (Socket socket =
                new Socket("127.0.0.1", broker.endpoints().getFirst().port())) {
            socket.setTcpNoDelay(true);
            final OutputStream out = socket.getOutputStream();
            final DataInputStream in = new DataInputStream(socket.getInputStream());
            final int window = 50;
            int answered = 0;
            byte[] last = null;
            for (int sent = 0; sent < count; sent += window) {
                final int n = Math.min(window, count - sent);
                final byte[] burst = new byte[frame.length * n];
                for (int i = 0; i < n; i++) {
                    System.arraycopy(frame, 0, burst, i * frame.length, frame.length);
                }
                out.write(burst);
                out.flush();
                for (int i = 0; i < n; i++) {
                    last = new byte[in.readInt()];
                    in.readFully(last);
                    answered++;
                }
            }
            assertThat(answered).isEqualTo(count);
            final ByteBuffer response = ByteBuffer.wrap(last);
            ResponseHeader.parse(response, ApiKeys.FETCH.responseHeaderVersion(version));
            final FetchResponseData.PartitionData partition = new FetchResponseData(
                            new ByteBufferAccessor(response), version)
                    .responses()
                    .getFirst()
                    .partitions()
                    .getFirst();
            assertThat(partition.errorCode()).isZero();
            assertThat(partition.records() == null ? 0 : partition.records().sizeInBytes())
                    .as("an empty fetch")
                    .isZero();
        }
    }

    @Test
    void shouldGrantTheNextSegmentWhenTheProducerRollsMidStreamAndSealTheOldOneForReaders() throws Exception {
        final Partition partition = topic("rdma-roll");
        try (RdmaTestClient producer = client();
                RdmaTestClient consumer = client()) {
            final ConsumeAccessResponse reading = consumer.consumeAccess("rdma-roll", 0, 0);
            ProduceAccessResponse access = producer.produceAccess("rdma-roll", 0);
            final int firstSegment = access.segmentId();
            final ByteArrayOutputStream expected = new ByteArrayOutputStream();
            long tail = access.tailPosition();
            int order = access.firstOrder();
            long nextOffset = 0;
            int rolls = 0;
            for (int i = 0; i < 24; i++) {
                final byte[] batch = RdmaBatches.batch("r" + i, 4, 1000);
                if (tail + batch.length > access.capacity()) {
                    access = producer.rollFull("rdma-roll", 0, access.segmentId());
                    assertThat(access.errorCode()).isZero();
                    assertThat(access.tailPosition()).isZero();
                    assertThat(access.segmentBaseOffset()).isEqualTo(nextOffset);
                    tail = 0;
                    order = access.firstOrder();
                    rolls++;
                }
                final int immediate = ProduceImmediateDescriptor.immediate(access.segmentId(), order);
                producer.writeStaged(access, batch, immediate);
                assertThat(producer.awaitAck()).isEqualTo(new RdmaTestClient.Ack(nextOffset, immediate, (short) 0));
                expected.writeBytes(RdmaBatches.asCommitted(batch, nextOffset, 0));
                tail += batch.length;
                order = ProduceImmediateDescriptor.nextOrder(order);
                nextOffset += 4;
            }

            assertThat(rolls).isEqualTo(1);
            assertThat(access.segmentId()).isNotEqualTo(firstSegment);
            assertThat(partition.logEndOffset()).isEqualTo(96);
            assertThat(logBytes(partition.log(), 0)).isEqualTo(expected.toByteArray());
            consumer.read(reading.slotRegionAddress(), reading.slotRegionRkey(), MetadataSlotDescriptor.LENGTH);
            final long readable =
                    MetadataSlotDescriptor.readable(consumer.readData(0, MetadataSlotDescriptor.LENGTH), 0);
            assertThat(MetadataSlotDescriptor.isSealed(readable)).isTrue();
            assertThat(MetadataSlotDescriptor.position(readable))
                    .isEqualTo(partition.log().segments().iterator().next().committedPosition());
        }
    }

    @Test
    void shouldRevokeReadersOfADeletedSegmentAndAnswerStaleOffsetsCleanly() throws Exception {
        final Partition partition = topic("rdma-retention");
        for (int i = 0; i < 3; i++) {
            partition.appendFromClient(MemorySegment.ofArray(RdmaBatches.batch("d" + i, 2, 100)));
        }
        try (RdmaTestClient consumer = client()) {
            final ConsumeAccessResponse access = consumer.consumeAccess("rdma-retention", 0, 0);
            assertThat(access.errorCode()).isZero();
            final long revokedBefore = datapath.revokedGrants();
            partition.log().roll();
            partition.appendFromClient(MemorySegment.ofArray(RdmaBatches.batch("after", 2, 100)));
            assertThat(partition.log().deleteOldSegments()).isEqualTo(1);

            await(datapath.sweepNow()); // the periodic sweep may have been first
            assertThat(datapath.revokedGrants() - revokedBefore).isEqualTo(1);

            consumer.read(access.slotRegionAddress(), access.slotRegionRkey(), MetadataSlotDescriptor.LENGTH);
            final long readable =
                    MetadataSlotDescriptor.readable(consumer.readData(0, MetadataSlotDescriptor.LENGTH), 0);
            assertThat(MetadataSlotDescriptor.isRevoked(readable)).isTrue();
            assertThat(consumer.consumeAccess("rdma-retention", 0, 0).errorCode())
                    .isEqualTo(ControlErrorCodes.OFFSET_OUT_OF_RANGE);
            assertThat(await(datapath.isRegistered(access.segmentId()))).isFalse();
            assertThat(consumer.read(access.segmentAddress(), access.rkey(), 64))
                    .as("a READ with the deregistered rkey")
                    .isEqualTo(WorkCompletionStatus.REM_ACCESS_ERR);
        }
    }
}
