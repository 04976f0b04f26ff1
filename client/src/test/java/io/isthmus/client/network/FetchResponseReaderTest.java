package io.isthmus.client.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.client.testing.TestBatches;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.types.SchemaException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Responses serialised by kafka-clients itself, at every version it can negotiate, read in place. */
class FetchResponseReaderTest {
    private static final Uuid ALPHA_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
    private static final Uuid BETA_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAg");
    private static final int BODY_OFFSET = 13;

    static List<Short> versions() {
        final List<Short> versions = new ArrayList<>();
        for (short v = ApiKeys.FETCH.oldestVersion(); v <= ApiKeys.FETCH.latestVersion(); v++) {
            versions.add(v);
        }
        return versions;
    }

    /** Two whole batches and half of a third: the bytes of a fetch whose size limit cut the last batch. */
    private static byte[] records() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment segment = arena.allocate(4096);
            final long first = TestBatches.write(segment, 0, 40, 2);
            final long second = TestBatches.write(segment, first, 42, 3);
            final long third = TestBatches.write(segment, second, 45, 4);
            return segment.asSlice(0, second + (third - second) / 2).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    private static FetchResponseData response(final short version, final byte[] records) {
        final FetchResponseData.PartitionData withRecords = new FetchResponseData.PartitionData()
                .setPartitionIndex(0)
                .setErrorCode(Errors.NONE.code())
                .setHighWatermark(1_000)
                .setLastStableOffset(900)
                .setLogStartOffset(5)
                .setAbortedTransactions(List.of(
                        new FetchResponseData.AbortedTransaction()
                                .setProducerId(7)
                                .setFirstOffset(8),
                        new FetchResponseData.AbortedTransaction()
                                .setProducerId(9)
                                .setFirstOffset(10)))
                .setRecords(MemoryRecords.readableRecords(ByteBuffer.wrap(records)));
        if (version >= 11) {
            withRecords.setPreferredReadReplica(3);
        }
        if (version >= 12) {
            withRecords.divergingEpoch().setEpoch(4).setEndOffset(44);
            withRecords.currentLeader().setLeaderId(2).setLeaderEpoch(6);
            withRecords.snapshotId().setEndOffset(33).setEpoch(1);
        }
        final FetchResponseData.PartitionData outOfRange = new FetchResponseData.PartitionData()
                .setPartitionIndex(1)
                .setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code())
                .setHighWatermark(-1)
                .setAbortedTransactions(null)
                .setRecords(null);
        final FetchResponseData.PartitionData empty = new FetchResponseData.PartitionData()
                .setPartitionIndex(2)
                .setHighWatermark(77)
                .setRecords(MemoryRecords.EMPTY);
        final FetchResponseData data = new FetchResponseData()
                .setThrottleTimeMs(12)
                .setErrorCode(Errors.NONE.code())
                .setResponses(List.of(
                        new FetchResponseData.FetchableTopicResponse()
                                .setTopic("alpha")
                                .setTopicId(ALPHA_ID)
                                .setPartitions(List.of(withRecords, outOfRange)),
                        new FetchResponseData.FetchableTopicResponse()
                                .setTopic("beta")
                                .setTopicId(BETA_ID)
                                .setPartitions(List.of(empty))));
        if (version >= 16) {
            data.nodeEndpoints()
                    .add(new FetchResponseData.NodeEndpoint()
                            .setNodeId(2)
                            .setHost("leader")
                            .setPort(9092));
        }
        return data;
    }

    /** The body as kafka-clients writes it, at {@link #BODY_OFFSET} of a segment. */
    private static MemorySegment serialized(final Arena arena, final FetchResponseData data, final short version) {
        final ByteBuffer body = MessageUtil.toByteBufferAccessor(data, version).buffer();
        final MemorySegment segment = arena.allocate(BODY_OFFSET + body.remaining());
        MemorySegment.copy(MemorySegment.ofBuffer(body), 0, segment, BODY_OFFSET, body.remaining());
        return segment;
    }

    @ParameterizedTest
    @MethodSource("versions")
    void shouldReadWhatKafkaClientsWritesInPlace(final short version) {
        final byte[] records = records();
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment segment = serialized(arena, response(version, records), version);
            final FetchResponseReader reader =
                    new FetchResponseReader().wrap(segment, BODY_OFFSET, segment.byteSize(), version);

            assertThat(reader.errorCode()).isZero();
            assertThat(reader.hasTopicIds()).isEqualTo(version >= 13);

            assertThat(reader.nextTopic()).isTrue();
            assertThat(version >= 13 ? reader.topicIdEquals(ALPHA_ID) : reader.topicNameEquals("alpha"))
                    .isTrue();
            assertThat(version >= 13 ? reader.topicIdEquals(BETA_ID) : reader.topicNameEquals("beta"))
                    .isFalse();
            assertThat(reader.topicNameEquals("alphb")).isFalse();

            assertThat(reader.nextPartition()).isTrue();
            assertThat(reader.partitionIndex()).isZero();
            assertThat(reader.partitionErrorCode()).isZero();
            assertThat(reader.highWatermark()).isEqualTo(1_000);
            assertThat(reader.lastStableOffset()).isEqualTo(900);
            assertThat(reader.logStartOffset()).isEqualTo(version >= 5 ? 5 : -1);
            assertThat(reader.preferredReadReplica()).isEqualTo(version >= 11 ? 3 : -1);
            assertThat(reader.abortedTransactionCount())
                    .as("the aborted transactions a read_committed consumer skips")
                    .isEqualTo(2);
            assertThat(reader.abortedProducerId(0)).isEqualTo(7);
            assertThat(reader.abortedFirstOffset(0)).isEqualTo(8);
            assertThat(reader.abortedProducerId(1)).isEqualTo(9);
            assertThat(reader.abortedFirstOffset(1)).isEqualTo(10);
            assertThatThrownBy(() -> reader.abortedProducerId(2)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThat(reader.recordsLength()).isEqualTo(records.length);
            assertThat(segment.asSlice(reader.recordsOffset(), reader.recordsLength())
                            .toArray(ValueLayout.JAVA_BYTE))
                    .as("the record bytes, in place in the buffer the body lies in")
                    .isEqualTo(records);

            assertThat(reader.nextPartition()).isTrue();
            assertThat(reader.partitionIndex()).isEqualTo(1);
            assertThat(reader.partitionErrorCode()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE.code());
            assertThat(reader.abortedTransactionCount())
                    .as("a null list (read_uncommitted)")
                    .isZero();
            assertThat(reader.recordsLength()).isEqualTo(-1);
            assertThat(reader.nextPartition()).isFalse();

            assertThat(reader.nextTopic()).isTrue();
            assertThat(version >= 13 ? reader.topicIdEquals(BETA_ID) : reader.topicNameEquals("beta"))
                    .isTrue();
            assertThat(reader.nextPartition()).isTrue();
            assertThat(reader.partitionIndex()).isEqualTo(2);
            assertThat(reader.highWatermark()).isEqualTo(77);
            assertThat(reader.recordsLength()).isZero();

            assertThat(reader.nextTopic()).isFalse();
            assertThat(reader.position()).as("the whole body read").isEqualTo(segment.byteSize());
        }
    }

    @ParameterizedTest
    @MethodSource("versions")
    void shouldStepOverPartitionsNotReadWhenMovingToTheNextTopic(final short version) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment segment = serialized(arena, response(version, records()), version);
            final FetchResponseReader reader =
                    new FetchResponseReader().wrap(segment, BODY_OFFSET, segment.byteSize(), version);

            assertThat(reader.nextTopic()).isTrue();
            assertThat(reader.nextTopic()).isTrue();
            assertThat(reader.nextPartition()).isTrue();
            assertThat(reader.partitionIndex()).isEqualTo(2);
            assertThat(reader.nextTopic()).isFalse();
            assertThat(reader.position()).isEqualTo(segment.byteSize());
        }
    }

    @ParameterizedTest
    @MethodSource("versions")
    void shouldRefuseEveryTruncatedBodyWithoutReadingPastIt(final short version) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment segment = serialized(arena, response(version, records()), version);
            final FetchResponseReader reader = new FetchResponseReader();
            for (long limit = BODY_OFFSET; limit < segment.byteSize(); limit++) {
                final long end = limit;
                assertThatThrownBy(() -> {
                            reader.wrap(segment, BODY_OFFSET, end, version);
                            while (reader.nextTopic()) {
                                while (reader.nextPartition()) {
                                    assertThat(reader.recordsOffset() + Math.max(0, reader.recordsLength()))
                                            .isLessThanOrEqualTo(end);
                                }
                            }
                        })
                        .as("body cut at %d of %d", end, segment.byteSize())
                        .isInstanceOf(SchemaException.class);
            }
        }
    }

    @Test
    void shouldRefuseAVersionItDoesNotKnow() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment segment = arena.allocate(64);
            assertThatThrownBy(() -> new FetchResponseReader()
                            .wrap(segment, 0, 64, (short) (FetchResponseReader.LATEST_VERSION + 1)))
                    .isInstanceOf(SchemaException.class)
                    .hasMessageContaining("not readable in place");
        }
    }

    @Test
    void shouldKnowEveryVersionKafkaClientsCanNegotiate() {
        assertThat(FetchResponseReader.OLDEST_VERSION).isEqualTo(ApiKeys.FETCH.oldestVersion());
        assertThat(FetchResponseReader.LATEST_VERSION).isEqualTo(ApiKeys.FETCH.latestVersion());
    }
}
