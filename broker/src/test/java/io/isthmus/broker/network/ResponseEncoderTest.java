package io.isthmus.broker.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.testkit.KafkaBatches;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ResponseEncoderTest {
    private static final int CORRELATION_ID = 77;
    private static final int FILE_PREFIX = 13;

    @TempDir
    Path tmp;

    private final MemoryRecords first = KafkaBatches.plain("first", 3, 1_700_000_000_000L);
    private final MemoryRecords second = KafkaBatches.plain("second", 5, 1_700_000_000_001L);
    private final Uuid topicId = Uuid.randomUuid();
    private FileChannel file;

    /** A segment-like file: some unrelated bytes, then both batches, so regions start inside the file. */
    @BeforeEach
    void setUp() throws Exception {
        final Path path = tmp.resolve("00000000000000000000.log");
        final ByteArrayOutputStream content = new ByteArrayOutputStream();
        content.write(new byte[FILE_PREFIX]);
        content.write(KafkaBatches.bytes(first));
        content.write(KafkaBatches.bytes(second));
        Files.write(path, content.toByteArray());
        file = FileChannel.open(path, StandardOpenOption.READ);
    }

    @AfterEach
    void tearDown() throws Exception {
        file.close();
    }

    private FetchResponseData fetchResponse(final Function<Integer, BaseRecords> recordsOfPartition) {
        final FetchResponseData response = new FetchResponseData().setSessionId(0);
        final FetchResponseData.FetchableTopicResponse topic = new FetchResponseData.FetchableTopicResponse()
                .setTopic("orders")
                .setTopicId(topicId);
        for (int p = 0; p < 2; p++) {
            topic.partitions()
                    .add(new FetchResponseData.PartitionData()
                            .setPartitionIndex(p)
                            .setHighWatermark(100 + p)
                            .setLastStableOffset(100 + p)
                            .setLogStartOffset(0)
                            .setRecords(recordsOfPartition.apply(p)));
        }
        response.responses().add(topic);
        return response;
    }

    private FileRegionRecords region(final int partition) {
        return partition == 0
                ? new FileRegionRecords(file, FILE_PREFIX, first.sizeInBytes())
                : new FileRegionRecords(file, FILE_PREFIX + first.sizeInBytes(), second.sizeInBytes());
    }

    private MemoryRecords memory(final int partition) {
        return partition == 0 ? first : second;
    }

    /** What kafka-clients itself sends for this response: size, header, body. */
    private static byte[] kafkaEncoding(
            final ApiKeys apiKey, final short version, final org.apache.kafka.common.protocol.ApiMessage body) {
        final ByteBuffer headerAndBody = RequestUtils.serialize(
                new ResponseHeaderData().setCorrelationId(CORRELATION_ID),
                apiKey.responseHeaderVersion(version),
                body,
                version);
        final ByteBuffer framed = ByteBuffer.allocate(4 + headerAndBody.remaining());
        framed.putInt(headerAndBody.remaining()).put(headerAndBody);
        return framed.array();
    }

    /** Concatenates the parts as the socket would see them, releasing each. */
    private static byte[] wireBytes(final List<Object> parts) throws Exception {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final WritableByteChannel target = Channels.newChannel(out);
        for (final Object part : parts) {
            if (part instanceof ByteBuf buf) {
                final byte[] bytes = new byte[buf.readableBytes()];
                buf.getBytes(buf.readerIndex(), bytes);
                out.write(bytes);
            } else {
                final SegmentFileRegion region = (SegmentFileRegion) part;
                long written = 0;
                while (written < region.count()) {
                    written += region.transferTo(target, written);
                }
            }
            ReferenceCountUtil.release(part);
        }
        return out.toByteArray();
    }

    private static List<Object> encode(
            final ApiKeys apiKey, final short version, final org.apache.kafka.common.protocol.ApiMessage body) {
        return ResponseEncoder.encode(
                ByteBufAllocator.DEFAULT, new RequestHeader(apiKey, version, "client", CORRELATION_ID), body);
    }

    private static List<String> kinds(final List<Object> parts) {
        final List<String> kinds = new ArrayList<>();
        for (final Object part : parts) {
            kinds.add(part instanceof ByteBuf ? "buf" : part instanceof SegmentFileRegion ? "region" : "other");
        }
        return kinds;
    }

    @ParameterizedTest
    @ValueSource(shorts = {4, 7, 11, 12, 13, 16, 17})
    void shouldSpliceFileRecordsBetweenBuffersByteIdenticalToKafkasEncoding(final short version) throws Exception {
        final short latest = (short) Math.min(version, ApiKeys.FETCH.latestVersion());

        final List<Object> parts = encode(ApiKeys.FETCH, latest, fetchResponse(this::region));

        // Flexible versions end every structure with tagged fields, so bytes follow the last records.
        if (latest >= 12) {
            assertThat(kinds(parts)).containsExactly("buf", "region", "buf", "region", "buf");
        } else {
            assertThat(kinds(parts)).containsExactly("buf", "region", "buf", "region");
        }
        assertThat(((SegmentFileRegion) parts.get(1)).position()).isEqualTo(FILE_PREFIX);
        assertThat(((SegmentFileRegion) parts.get(1)).count()).isEqualTo(first.sizeInBytes());
        assertThat(((SegmentFileRegion) parts.get(3)).count()).isEqualTo(second.sizeInBytes());
        assertThat(wireBytes(parts)).isEqualTo(kafkaEncoding(ApiKeys.FETCH, latest, fetchResponse(this::memory)));
    }

    @Test
    void shouldLeaveAnEmptyFileRegionOut() throws Exception {
        final short version = ApiKeys.FETCH.latestVersion();

        final List<Object> parts = encode(
                ApiKeys.FETCH, version, fetchResponse(p -> p == 0 ? new FileRegionRecords(file, 0, 0) : region(1)));

        assertThat(kinds(parts)).containsExactly("buf", "region", "buf");
        assertThat(wireBytes(parts))
                .isEqualTo(kafkaEncoding(
                        ApiKeys.FETCH, version, fetchResponse(p -> p == 0 ? MemoryRecords.EMPTY : memory(1))));
    }

    @Test
    void shouldWriteMemoryRecordsInline() throws Exception {
        final short version = ApiKeys.FETCH.latestVersion();

        final List<Object> parts = encode(ApiKeys.FETCH, version, fetchResponse(this::memory));

        assertThat(kinds(parts)).containsExactly("buf");
        assertThat(wireBytes(parts)).isEqualTo(kafkaEncoding(ApiKeys.FETCH, version, fetchResponse(this::memory)));
    }

    @ParameterizedTest
    @ValueSource(shorts = {0, 1, 8, 9, 12})
    void shouldEncodeAResponseWithoutRecordsAsOneBufferAsKafkaDoes(final short version) throws Exception {
        final MetadataResponseData body =
                new MetadataResponseData().setClusterId("cluster").setControllerId(3);
        body.brokers()
                .add(new MetadataResponseData.MetadataResponseBroker()
                        .setNodeId(3)
                        .setHost("h\u00e9llo")
                        .setPort(9092));
        body.topics()
                .add(new MetadataResponseData.MetadataResponseTopic()
                        .setName("orders")
                        .setTopicId(topicId)
                        .setErrorCode((short) 3));

        final List<Object> parts = encode(ApiKeys.METADATA, version, body);

        assertThat(kinds(parts)).containsExactly("buf");
        assertThat(wireBytes(parts)).isEqualTo(kafkaEncoding(ApiKeys.METADATA, version, body));
    }
}
