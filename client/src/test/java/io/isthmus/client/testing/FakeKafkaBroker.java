package io.isthmus.client.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A one-partition Kafka broker, just enough for a consumer over TCP: ApiVersions, Metadata, ListOffsets and Fetch,
 * answered with kafka-clients' own serialisers. Its log is a list of batches; a fetch answers from the batch holding the
 * fetch offset on, cut at {@link #FetchCut a byte limit} that may end mid-batch, as a real broker's size limits do.
 * Offsets past the log end answer OFFSET_OUT_OF_RANGE. Every fetch offset asked for is recorded.
 */
public final class FakeKafkaBroker implements AutoCloseable {
    public static final String TOPIC = "t";
    public static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAw");

    /** How many bytes of the log a fetch from a position may return. */
    @FunctionalInterface
    public interface FetchCut {
        int bytes(long fetchOffset, int available);
    }

    private final ServerSocketChannel server;
    private final short fetchVersion;
    private final List<byte[]> batches = new ArrayList<>();
    private final List<Long> baseOffsets = new ArrayList<>();
    private final List<Long> fetchOffsets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;
    private volatile FetchCut cut = (offset, available) -> available;
    /** Other brokers its metadata names besides itself (node 0), leading nothing. */
    private final java.util.Map<Integer, InetSocketAddress> others = new java.util.concurrent.ConcurrentHashMap<>();

    private volatile long logEnd;
    private volatile boolean closed;

    /** @param fetchVersion the highest Fetch version to advertise (below 13: topics by name; from 13: by id) */
    public FakeKafkaBroker(final short fetchVersion) throws IOException {
        this.fetchVersion = fetchVersion;
        this.server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        this.acceptor = Thread.ofPlatform().daemon().name("fake-broker").start(this::accept);
    }

    public String bootstrapServers() throws IOException {
        return "127.0.0.1:" + ((InetSocketAddress) server.getLocalAddress()).getPort();
    }

    /** Appends a batch (as {@link TestBatches} writes them) of {@code records} records at the log end. */
    public synchronized void append(final byte[] batch, final int records) {
        batches.add(batch);
        baseOffsets.add(logEnd);
        logEnd += records;
    }

    /** Names broker {@code nodeId} at {@code address} in its metadata from now on, besides itself (node 0). */
    public void alsoNames(final int nodeId, final InetSocketAddress address) {
        others.put(nodeId, address);
    }

    public void cut(final FetchCut cut) {
        this.cut = cut;
    }

    /** The fetch offsets asked for so far, in order. */
    public List<Long> fetchOffsets() {
        return fetchOffsets;
    }

    private void accept() {
        while (!closed) {
            try {
                final SocketChannel channel = server.accept();
                Thread.ofPlatform().daemon().name("fake-broker-connection").start(() -> serve(channel));
            } catch (final IOException e) {
                return;
            }
        }
    }

    private void serve(final SocketChannel channel) {
        try (channel) {
            final ByteBuffer size = ByteBuffer.allocate(4);
            while (!closed) {
                size.clear();
                if (!readFully(channel, size)) {
                    return;
                }
                final ByteBuffer frame = ByteBuffer.allocate(size.getInt(0));
                if (!readFully(channel, frame)) {
                    return;
                }
                frame.flip();
                final RequestHeader header = RequestHeader.parse(frame);
                final ApiMessage body = answer(header, frame);
                write(channel, header, body);
            }
        } catch (final IOException e) {
            // the client went away
        }
    }

    private static boolean readFully(final SocketChannel channel, final ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                return false;
            }
        }
        return true;
    }

    private void write(final SocketChannel channel, final RequestHeader header, final ApiMessage body)
            throws IOException {
        final ByteBuffer bytes =
                MessageUtil.toByteBufferAccessor(body, header.apiVersion()).buffer();
        final boolean flexibleHeader = header.apiKey().responseHeaderVersion(header.apiVersion()) >= 1;
        final ByteBuffer out = ByteBuffer.allocate(4 + 4 + (flexibleHeader ? 1 : 0) + bytes.remaining());
        out.putInt(out.capacity() - 4).putInt(header.correlationId());
        if (flexibleHeader) {
            out.put((byte) 0);
        }
        out.put(bytes).flip();
        while (out.hasRemaining()) {
            channel.write(out);
        }
    }

    private ApiMessage answer(final RequestHeader header, final ByteBuffer body) {
        final short version = header.apiVersion();
        return switch (header.apiKey()) {
            case API_VERSIONS -> apiVersions();
            case METADATA -> metadata();
            case LIST_OFFSETS -> listOffsets(new ListOffsetsRequestData(new ByteBufferAccessor(body), version));
            case FETCH -> fetch(new FetchRequestData(new ByteBufferAccessor(body), version), version);
            default -> throw new IllegalStateException("not served: " + header.apiKey());
        };
    }

    private ApiVersionsResponseData apiVersions() {
        final ApiVersionsResponseData.ApiVersionCollection keys = new ApiVersionsResponseData.ApiVersionCollection();
        for (final ApiKeys key : List.of(ApiKeys.API_VERSIONS, ApiKeys.METADATA, ApiKeys.LIST_OFFSETS, ApiKeys.FETCH)) {
            keys.add(new ApiVersionsResponseData.ApiVersion()
                    .setApiKey(key.id)
                    .setMinVersion(key.oldestVersion())
                    .setMaxVersion(key == ApiKeys.FETCH ? fetchVersion : key.latestVersion()));
        }
        return new ApiVersionsResponseData().setApiKeys(keys);
    }

    private MetadataResponseData metadata() {
        final MetadataResponseData.MetadataResponseBrokerCollection brokers =
                new MetadataResponseData.MetadataResponseBrokerCollection();
        final InetSocketAddress address;
        try {
            address = (InetSocketAddress) server.getLocalAddress();
        } catch (final IOException e) {
            throw new IllegalStateException(e);
        }
        brokers.add(new MetadataResponseData.MetadataResponseBroker()
                .setNodeId(0)
                .setHost(address.getHostString())
                .setPort(address.getPort()));
        others.forEach((id, other) -> brokers.add(new MetadataResponseData.MetadataResponseBroker()
                .setNodeId(id)
                .setHost(other.getHostString())
                .setPort(other.getPort())));
        final MetadataResponseData.MetadataResponseTopicCollection topics =
                new MetadataResponseData.MetadataResponseTopicCollection();
        topics.add(new MetadataResponseData.MetadataResponseTopic()
                .setName(TOPIC)
                .setTopicId(TOPIC_ID)
                .setPartitions(List.of(new MetadataResponseData.MetadataResponsePartition()
                        .setPartitionIndex(0)
                        .setLeaderId(0)
                        .setLeaderEpoch(0)
                        .setReplicaNodes(List.of(0))
                        .setIsrNodes(List.of(0)))));
        return new MetadataResponseData()
                .setBrokers(brokers)
                .setClusterId("fake")
                .setControllerId(0)
                .setTopics(topics);
    }

    private ListOffsetsResponseData listOffsets(final ListOffsetsRequestData request) {
        final ListOffsetsResponseData response = new ListOffsetsResponseData();
        for (final ListOffsetsRequestData.ListOffsetsTopic topic : request.topics()) {
            final ListOffsetsResponseData.ListOffsetsTopicResponse answer =
                    new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(topic.name());
            for (final ListOffsetsRequestData.ListOffsetsPartition p : topic.partitions()) {
                answer.partitions()
                        .add(new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                                .setPartitionIndex(p.partitionIndex())
                                .setTimestamp(-1)
                                .setOffset(p.timestamp() == -2L ? 0 : logEnd));
            }
            response.topics().add(answer);
        }
        return response;
    }

    private FetchResponseData fetch(final FetchRequestData request, final short version) {
        final FetchRequestData.FetchTopic topic = request.topics().get(0);
        final FetchRequestData.FetchPartition partition = topic.partitions().get(0);
        final long offset = partition.fetchOffset();
        fetchOffsets.add(offset);
        final FetchResponseData.PartitionData answer = new FetchResponseData.PartitionData()
                .setPartitionIndex(partition.partition())
                .setHighWatermark(logEnd)
                .setLastStableOffset(logEnd)
                .setLogStartOffset(0);
        if (offset > logEnd) {
            answer.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code()).setRecords(MemoryRecords.EMPTY);
        } else {
            final byte[] records = recordsFrom(offset);
            if (records.length == 0) {
                pause(Math.min(50, request.maxWaitMs()));
            }
            answer.setRecords(MemoryRecords.readableRecords(ByteBuffer.wrap(records)));
        }
        final FetchResponseData.FetchableTopicResponse topicAnswer =
                new FetchResponseData.FetchableTopicResponse().setPartitions(List.of(answer));
        if (version >= 13) {
            topicAnswer.setTopicId(TOPIC_ID);
        } else {
            topicAnswer.setTopic(TOPIC);
        }
        return new FetchResponseData().setResponses(List.of(topicAnswer));
    }

    private synchronized byte[] recordsFrom(final long offset) {
        int first = batches.size();
        for (int i = 0; i < batches.size(); i++) {
            final long next = i + 1 < batches.size() ? baseOffsets.get(i + 1) : logEnd;
            if (offset < next) {
                first = i;
                break;
            }
        }
        int available = 0;
        for (int i = first; i < batches.size(); i++) {
            available += batches.get(i).length;
        }
        final ByteBuffer out = ByteBuffer.allocate(Math.min(available, cut.bytes(offset, available)));
        for (int i = first; i < batches.size() && out.hasRemaining(); i++) {
            final byte[] batch = batches.get(i);
            out.put(batch, 0, Math.min(batch.length, out.remaining()));
        }
        return out.array();
    }

    private static void pause(final long millis) {
        try {
            Thread.sleep(millis);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        try {
            acceptor.join(1_000);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
