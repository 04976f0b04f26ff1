package io.isthmus.broker.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.security.Unauthenticated;
import io.isthmus.protocol.control.ControlApiKeys;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ControlFrame;
import io.isthmus.protocol.control.ControlRequestHeader;
import io.isthmus.protocol.control.ReleaseAccessRequest;
import io.isthmus.protocol.control.ReleaseAccessResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.DescribeUserScramCredentialsRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class KafkaConnectionHandlerTest {
    private static final int MAX_FRAME = 64 * 1024;
    private static final short METADATA_VERSION = 12;
    private static final short HEARTBEAT_VERSION = 4;

    private final NetworkMetrics metrics = new NetworkMetrics();
    private final FakeDispatcher dispatcher = new FakeDispatcher();
    private final FakeControl control = new FakeControl();
    private EmbeddedChannel channel;

    @AfterEach
    void tearDown() {
        if (channel != null) {
            channel.finishAndReleaseAll();
        }
    }

    /** Serves every API up to its latest version, except Metadata and ApiVersions, served up to older ones. */
    private static final class FakeApis implements SupportedApis {
        static final short MAX_METADATA = METADATA_VERSION;
        static final short MAX_API_VERSIONS = 2;

        @Override
        public boolean supports(final ApiKeys apiKey, final short version) {
            final short max =
                    switch (apiKey) {
                        case METADATA -> MAX_METADATA;
                        case API_VERSIONS -> MAX_API_VERSIONS;
                        default -> apiKey.latestVersion();
                    };
            return version >= apiKey.oldestVersion() && version <= max;
        }

        @Override
        public ApiMessage unsupportedVersionResponse() {
            final ApiVersionsResponseData response =
                    new ApiVersionsResponseData().setErrorCode(Errors.UNSUPPORTED_VERSION.code());
            response.apiKeys()
                    .add(new ApiVersionsResponseData.ApiVersion()
                            .setApiKey(ApiKeys.API_VERSIONS.id)
                            .setMinVersion((short) 0)
                            .setMaxVersion(MAX_API_VERSIONS));
            return response;
        }

        @Override
        public String describe(final ApiKeys apiKey) {
            return "test";
        }
    }

    /** Keeps each request's future for the test to complete, unless a behaviour answers at once. */
    private static final class FakeDispatcher implements RequestDispatcher {
        final List<RequestContext> contexts = new ArrayList<>();
        final Map<Integer, CompletableFuture<Response>> futures = new HashMap<>();
        Function<AbstractRequest, CompletableFuture<Response>> behaviour;

        @Override
        public CompletableFuture<Response> dispatch(final RequestContext context, final AbstractRequest request) {
            contexts.add(context);
            if (behaviour != null) {
                return behaviour.apply(request);
            }
            final CompletableFuture<Response> future = new CompletableFuture<>();
            futures.put(context.header().correlationId(), future);
            return future;
        }
    }

    /** Keeps each control request for the test to answer, after reading its body as a real handler does. */
    private static final class FakeControl implements ControlRequestHandler {
        final List<ControlExchange> exchanges = new ArrayList<>();

        @Override
        public boolean handles(final short apiKey) {
            return ControlApiKeys.isControlApiKey(apiKey);
        }

        @Override
        public void handle(final long connectionId, final ControlExchange exchange) {
            new ReleaseAccessRequest().wrap(exchange.body(), 0);
            exchanges.add(exchange);
        }

        @Override
        public void connectionClosed(final long connectionId) {}
    }

    private EmbeddedChannel controlChannel() {
        channel = new EmbeddedChannel(
                new RequestFrameDecoder(MAX_FRAME),
                new KafkaConnectionHandler(
                        dispatcher,
                        control,
                        new FakeApis(),
                        metrics,
                        "PLAINTEXT",
                        7,
                        16,
                        new Unauthenticated(() -> KafkaPrincipal.ANONYMOUS)));
        return channel;
    }

    /** A RELEASE_ACCESS request frame, in direct memory as a socket read would leave it, {@code cut} bytes short. */
    private static ByteBuf releaseFrame(final int correlationId, final String topic, final int cut) {
        final MemorySegment frame = MemorySegment.ofArray(new byte[128]);
        final ControlRequestHeader header = new ControlRequestHeader()
                .wrapForEncode(frame, ControlFrame.REQUEST_HEADER_OFFSET)
                .apiKey(ControlApiKeys.RELEASE_ACCESS)
                .apiVersion(ControlApiKeys.VERSION)
                .correlationId(correlationId)
                .clientId("test-client");
        final long body = ControlFrame.REQUEST_HEADER_OFFSET + header.bodyOffset();
        final int length = (int) body
                + new ReleaseAccessRequest()
                        .wrapForEncode(frame, body)
                        .partition(4)
                        .access(ReleaseAccessRequest.CONSUME)
                        .topic(topic)
                        .encodedLength()
                - cut;
        ControlFrame.putSize(frame, 0, length);
        final ByteBuf buffer = Unpooled.directBuffer(length);
        buffer.writeBytes(frame.asByteBuffer().limit(length));
        return buffer;
    }

    private EmbeddedChannel channel(final int maxInflight) {
        channel = new EmbeddedChannel(
                new RequestFrameDecoder(MAX_FRAME),
                new KafkaConnectionHandler(dispatcher, new FakeApis(), metrics, "PLAINTEXT", 7, maxInflight));
        return channel;
    }

    private static ByteBuf frame(final AbstractRequest request, final int correlationId) {
        final ByteBuffer body = request.serializeWithHeader(
                new RequestHeader(request.apiKey(), request.version(), "test-client", correlationId));
        final ByteBuf frame = Unpooled.buffer(4 + body.remaining());
        frame.writeInt(body.remaining());
        frame.writeBytes(body);
        return frame;
    }

    private static FetchRequest fetch() {
        return new FetchRequest.Builder(
                        ApiKeys.FETCH.latestVersion(),
                        ApiKeys.FETCH.latestVersion(),
                        -1,
                        -1,
                        Integer.MAX_VALUE,
                        1,
                        new java.util.LinkedHashMap<>())
                .build(ApiKeys.FETCH.latestVersion());
    }

    private static MetadataRequest metadata(final short version) {
        return new MetadataRequest.Builder(new MetadataRequestData().setTopics(null)).build(version);
    }

    private static HeartbeatRequest heartbeat() {
        return new HeartbeatRequest.Builder(new HeartbeatRequestData()
                        .setGroupId("group")
                        .setMemberId("member")
                        .setGenerationId(1))
                .build(HEARTBEAT_VERSION);
    }

    private static Response metadataResponse(final String clusterId) {
        return Response.of(new MetadataResponseData().setClusterId(clusterId));
    }

    /** A written response: its correlation id and body. */
    private record Written(int correlationId, ApiMessage body) {}

    private Written readResponse(final ApiKeys apiKey, final short version) {
        final ByteBuf buf = channel.readOutbound();
        assertThat(buf).as("a response was written").isNotNull();
        try {
            final ByteBuffer bytes = ByteBuffer.allocate(buf.readableBytes());
            buf.readBytes(bytes);
            bytes.flip();
            assertThat(bytes.getInt()).isEqualTo(bytes.remaining());
            final ResponseHeader header = ResponseHeader.parse(bytes, apiKey.responseHeaderVersion(version));
            final AbstractResponse body =
                    AbstractResponse.parseResponse(apiKey, new ByteBufferAccessor(bytes), version);
            assertThat(bytes.remaining()).isZero();
            return new Written(header.correlationId(), body.data());
        } finally {
            buf.release();
        }
    }

    @Test
    void shouldWriteResponsesInRequestOrderWhateverOrderTheyCompleteIn() {
        channel(16);
        for (int correlationId = 1; correlationId <= 3; correlationId++) {
            channel.writeInbound(frame(metadata(METADATA_VERSION), correlationId));
        }
        assertThat(dispatcher.contexts).hasSize(3);

        dispatcher.futures.get(3).complete(metadataResponse("three"));
        dispatcher.futures.get(2).complete(metadataResponse("two"));

        assertThat(channel.outboundMessages()).isEmpty();

        dispatcher.futures.get(1).complete(metadataResponse("one"));

        final List<String> clusterIds = new ArrayList<>();
        final List<Integer> correlationIds = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            final Written written = readResponse(ApiKeys.METADATA, METADATA_VERSION);
            correlationIds.add(written.correlationId());
            clusterIds.add(((MetadataResponseData) written.body()).clusterId());
        }
        assertThat(correlationIds).containsExactly(1, 2, 3);
        assertThat(clusterIds).containsExactly("one", "two", "three");
        assertThat(metrics.requests(ApiKeys.METADATA)).isEqualTo(3);
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void aFetchStillWaitingWhenItsClientGoesIsCancelledOtherRequestsAreNot() {
        channel(16);
        channel.writeInbound(frame(fetch(), 1));
        channel.writeInbound(frame(metadata(METADATA_VERSION), 2));
        final CompletableFuture<Response> fetch = dispatcher.futures.get(1);
        final CompletableFuture<Response> metadata = dispatcher.futures.get(2);

        channel.close();

        assertThat(fetch).isCancelled();
        assertThat(metadata).isNotDone();
    }

    @Test
    void anIdleEventClosesAQuietConnectionButNotOneWithARequestWaiting() {
        channel(16);
        channel.writeInbound(frame(fetch(), 1));

        channel.pipeline().fireUserEventTriggered(IdleStateEvent.ALL_IDLE_STATE_EVENT);
        assertThat(channel.isOpen()).as("a long poll is waiting").isTrue();

        dispatcher.futures.get(1).complete(Response.of(new FetchResponseData()));
        ReferenceCountUtil.release(channel.readOutbound());
        channel.pipeline().fireUserEventTriggered(IdleStateEvent.ALL_IDLE_STATE_EVENT);

        assertThat(channel.isOpen()).isFalse();
        assertThat(metrics.connectionsClosedIdle()).isEqualTo(1);
    }

    @Test
    void aConnectionThatCarriedAControlRequestIsNeverClosedAsIdle() {
        controlChannel();
        channel.writeInbound(releaseFrame(1, "events", 0));
        final ControlExchange exchange = control.exchanges.getFirst();
        exchange.answer(new ReleaseAccessResponse(), ReleaseAccessResponse.LENGTH)
                .errorCode(ControlErrorCodes.NONE);
        exchange.complete();
        ReferenceCountUtil.release(channel.readOutbound());

        channel.pipeline().fireUserEventTriggered(IdleStateEvent.ALL_IDLE_STATE_EVENT);

        assertThat(channel.isOpen()).as("it may hold an RDMA session").isTrue();
    }

    @Test
    void aFrameThatStopsHalfwayClosesTheConnectionAfterTheReadTimeout() throws Exception {
        channel = new EmbeddedChannel(
                new RequestFrameDecoder(MAX_FRAME, 50),
                new KafkaConnectionHandler(dispatcher, new FakeApis(), metrics, "PLAINTEXT", 7, 16));
        channel.freezeTime(); // the read timeout runs on the channel's clock, which the test moves
        final ByteBuf whole = frame(metadata(METADATA_VERSION), 1);
        channel.writeInbound(whole.readRetainedSlice(10));

        channel.advanceTimeBy(40, TimeUnit.MILLISECONDS);
        channel.runPendingTasks();
        assertThat(channel.isOpen()).as("before the read timeout").isTrue();
        channel.advanceTimeBy(60, TimeUnit.MILLISECONDS);
        channel.runPendingTasks();

        assertThat(channel.isOpen()).isFalse();
        assertThat(metrics.connectionsClosedForBadInput()).isEqualTo(1);
        assertThat(dispatcher.contexts).isEmpty();
        whole.release();
    }

    @Test
    void aFrameThatArrivesInPiecesWithinTheReadTimeoutIsServed() throws Exception {
        channel = new EmbeddedChannel(
                new RequestFrameDecoder(MAX_FRAME, 200),
                new KafkaConnectionHandler(dispatcher, new FakeApis(), metrics, "PLAINTEXT", 7, 16));
        channel.freezeTime(); // the read timeout runs on the channel's clock, which the test moves
        final ByteBuf first = frame(metadata(METADATA_VERSION), 1);
        final ByteBuf second = frame(metadata(METADATA_VERSION), 2);
        // The first frame and the start of the second, then the rest of the second: each frame gets its own clock.
        channel.writeInbound(Unpooled.wrappedBuffer(first, second.readRetainedSlice(5)));
        channel.advanceTimeBy(120, TimeUnit.MILLISECONDS);
        channel.runPendingTasks();
        channel.writeInbound(second);
        channel.advanceTimeBy(120, TimeUnit.MILLISECONDS);
        channel.runPendingTasks();

        assertThat(channel.isOpen()).isTrue();
        assertThat(dispatcher.contexts).hasSize(2);
        assertThat(metrics.connectionsClosedForBadInput()).isZero();
    }

    @Test
    void aRefusedRequestIsAnsweredWithItsOwnErrorResponse() {
        channel(16);
        dispatcher.behaviour = request -> {
            throw new UnsupportedVersionException("this broker does not serve " + request.apiKey());
        };

        channel.writeInbound(frame(heartbeat(), 5));

        final Written written = readResponse(ApiKeys.HEARTBEAT, HEARTBEAT_VERSION);
        assertThat(written.correlationId()).isEqualTo(5);
        assertThat(((HeartbeatResponseData) written.body()).errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
        assertThat(metrics.unexpectedFailures()).isZero();
    }

    @Test
    void aRequestWhoseErrorResponseCannotBeBuiltClosesTheConnectionAsKafkaDoes() {
        // Found by the fuzzer: kafka-clients cannot build the error answer of a DescribeUserScramCredentials that
        // asks for every user (a null list), which is a valid request.
        channel(16);
        dispatcher.behaviour = request -> {
            throw new UnsupportedVersionException("this broker does not serve " + request.apiKey());
        };
        final DescribeUserScramCredentialsRequest everyUser = new DescribeUserScramCredentialsRequest.Builder(
                        new DescribeUserScramCredentialsRequestData().setUsers(null))
                .build((short) 0);

        channel.writeInbound(frame(everyUser, 6));

        assertThat(channel.isOpen()).isFalse();
        assertThat(metrics.connectionsClosedForBadInput()).isEqualTo(1);
        assertThat(metrics.unexpectedFailures()).isZero();
    }

    @Test
    void shouldHandTheDispatcherTheRequestAndItsContext() {
        channel(16);

        channel.writeInbound(frame(metadata(METADATA_VERSION), 42));

        final RequestContext context = dispatcher.contexts.getFirst();
        assertThat(context.apiKey()).isEqualTo(ApiKeys.METADATA);
        assertThat(context.apiVersion()).isEqualTo(METADATA_VERSION);
        assertThat(context.clientId()).isEqualTo("test-client");
        assertThat(context.header().correlationId()).isEqualTo(42);
        assertThat(context.connectionId()).isEqualTo(7);
        assertThat(context.listenerName()).isEqualTo("PLAINTEXT");
        assertThat(metrics.connections()).isEqualTo(1);
        assertThat(metrics.bytesIn()).isPositive();
    }

    @Test
    void shouldAssembleAFrameThatArrivesInPieces() {
        channel(16);
        dispatcher.behaviour = request -> CompletableFuture.completedFuture(metadataResponse("c"));
        final ByteBuf whole = frame(metadata(METADATA_VERSION), 5);
        final ByteBuf first = whole.readRetainedSlice(3);
        final ByteBuf rest = whole.readRetainedSlice(whole.readableBytes());
        whole.release();

        channel.writeInbound(first);
        assertThat(dispatcher.contexts).isEmpty();
        channel.writeInbound(rest);

        assertThat(readResponse(ApiKeys.METADATA, METADATA_VERSION).correlationId())
                .isEqualTo(5);
    }

    @Test
    void shouldCloseTheConnectionForAFrameLargerThanTheMaximum() {
        channel(16);
        final ByteBuf frame = Unpooled.buffer();
        frame.writeInt(MAX_FRAME + 1);
        frame.writeBytes(new byte[16]);

        channel.writeInbound(frame);

        assertThat(channel.isOpen()).isFalse();
        assertThat(dispatcher.contexts).isEmpty();
        assertThat(metrics.connectionsClosedForBadInput()).isEqualTo(1);
    }

    @Test
    void shouldCloseTheConnectionForANegativeFrameSize() {
        channel(16);
        final ByteBuf frame = Unpooled.buffer();
        frame.writeInt(-5);
        frame.writeBytes(new byte[16]);

        channel.writeInbound(frame);

        assertThat(channel.isOpen()).isFalse();
        assertThat(dispatcher.contexts).isEmpty();
        assertThat(metrics.connectionsClosedForBadInput()).isEqualTo(1);
    }

    @Test
    void shouldCloseTheConnectionForAnUnparseableHeader() {
        channel(16);
        final ByteBuf frame = Unpooled.buffer();
        frame.writeInt(6);
        frame.writeShort(9999); // no such API
        frame.writeShort(0);
        frame.writeShort(0);

        channel.writeInbound(frame);

        assertThat(channel.isOpen()).isFalse();
        assertThat(channel.outboundMessages()).isEmpty();
        assertThat(dispatcher.contexts).isEmpty();
        assertThat(metrics.connectionsClosedForBadInput()).isEqualTo(1);
    }

    @Test
    void shouldCloseTheConnectionForAMalformedBody() {
        channel(16);
        final ByteBuf valid = frame(heartbeat(), 3);
        final int cut = 4;
        final ByteBuf frame = Unpooled.buffer();
        frame.writeInt(valid.readableBytes() - 4 - cut);
        frame.writeBytes(valid, 4, valid.readableBytes() - 4 - cut);
        valid.release();

        channel.writeInbound(frame);

        assertThat(channel.isOpen()).isFalse();
        assertThat(dispatcher.contexts).isEmpty();
    }

    @Test
    void shouldAnswerApiVersionsAtAnUnsupportedVersionInV0() {
        channel(16);

        channel.writeInbound(frame(new ApiVersionsRequest.Builder().build((short) 3), 11));

        final Written written = readResponse(ApiKeys.API_VERSIONS, (short) 0);
        assertThat(written.correlationId()).isEqualTo(11);
        final ApiVersionsResponseData body = (ApiVersionsResponseData) written.body();
        assertThat(body.errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
        assertThat(body.apiKeys().find(ApiKeys.API_VERSIONS.id).maxVersion()).isEqualTo((short) 2);
        assertThat(dispatcher.contexts).isEmpty();
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void shouldAnswerApiVersionsNewerThanKafkaClientsKnowsInV0() {
        channel(16);
        final byte[] clientId = "future-client".getBytes(StandardCharsets.UTF_8);
        final ByteBuf frame = Unpooled.buffer();
        frame.writeInt(2 + 2 + 4 + 2 + clientId.length + 1 + 8);
        frame.writeShort(ApiKeys.API_VERSIONS.id);
        frame.writeShort(Short.MAX_VALUE);
        frame.writeInt(12);
        frame.writeShort(clientId.length);
        frame.writeBytes(clientId);
        frame.writeByte(0);
        frame.writeBytes(new byte[8]); // a body no version we know can read

        channel.writeInbound(frame);

        final Written written = readResponse(ApiKeys.API_VERSIONS, (short) 0);
        assertThat(written.correlationId()).isEqualTo(12);
        assertThat(((ApiVersionsResponseData) written.body()).errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void shouldCloseTheConnectionForAnotherApiAtAnUnsupportedVersion() {
        channel(16);

        channel.writeInbound(frame(metadata((short) (FakeApis.MAX_METADATA + 1)), 1));

        assertThat(channel.isOpen()).isFalse();
        assertThat(channel.outboundMessages()).isEmpty();
        assertThat(dispatcher.contexts).isEmpty();
        assertThat(metrics.connectionsClosedForBadInput()).isEqualTo(1);
    }

    @Test
    void shouldAnswerADispatcherExceptionWithThatApisErrorResponse() {
        channel(16);
        dispatcher.behaviour = request -> {
            throw new IllegalStateException("handler bug");
        };

        channel.writeInbound(frame(heartbeat(), 1));

        final Written written = readResponse(ApiKeys.HEARTBEAT, HEARTBEAT_VERSION);
        assertThat(written.correlationId()).isEqualTo(1);
        assertThat(((HeartbeatResponseData) written.body()).errorCode()).isEqualTo(Errors.UNKNOWN_SERVER_ERROR.code());
        assertThat(channel.isOpen()).isTrue();
        assertThat(metrics.errors(ApiKeys.HEARTBEAT)).isEqualTo(1);
    }

    @Test
    void shouldAnswerAFailedFutureWithTheErrorOfItsException() {
        channel(16);
        dispatcher.behaviour = request ->
                CompletableFuture.failedFuture(new CompletionException(new NotCoordinatorException("moved")));

        channel.writeInbound(frame(heartbeat(), 1));

        final Written written = readResponse(ApiKeys.HEARTBEAT, HEARTBEAT_VERSION);
        assertThat(((HeartbeatResponseData) written.body()).errorCode()).isEqualTo(Errors.NOT_COORDINATOR.code());
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void shouldWriteNothingForResponseNoneAndStillWriteLaterResponses() {
        channel(16);
        channel.writeInbound(frame(metadata(METADATA_VERSION), 1));
        channel.writeInbound(frame(metadata(METADATA_VERSION), 2));

        dispatcher.futures.get(1).complete(Response.NONE);
        assertThat(channel.outboundMessages()).isEmpty();
        dispatcher.futures.get(2).complete(metadataResponse("after"));

        final Written written = readResponse(ApiKeys.METADATA, METADATA_VERSION);
        assertThat(written.correlationId()).isEqualTo(2);
        assertThat(channel.outboundMessages()).isEmpty();
        assertThat(metrics.requests(ApiKeys.METADATA)).isEqualTo(2);
    }

    @Test
    void framesOneReadBroughtWaitUndecodedWhileReadingIsPausedAndAreServedWhenItResumes() {
        channel(2);
        final ByteBuf manyFrames = Unpooled.buffer();
        for (int correlationId = 1; correlationId <= 10; correlationId++) {
            final ByteBuf one = frame(metadata(METADATA_VERSION), correlationId);
            manyFrames.writeBytes(one);
            one.release();
        }

        channel.writeInbound(manyFrames); // one socket read with ten requests

        assertThat(dispatcher.contexts).as("dispatched before the pause").hasSize(2);
        dispatcher.futures.get(1).complete(metadataResponse("1"));
        dispatcher.futures.get(2).complete(metadataResponse("2"));
        channel.runPendingTasks(); // the decoder resumes as an event-loop task

        assertThat(dispatcher.contexts).hasSize(4);
        for (int correlationId = 3; correlationId <= 10; correlationId++) {
            dispatcher.futures.get(correlationId).complete(metadataResponse(Integer.toString(correlationId)));
            channel.runPendingTasks();
        }
        assertThat(dispatcher.contexts).hasSize(10);
        for (int correlationId = 1; correlationId <= 10; correlationId++) {
            assertThat(readResponse(ApiKeys.METADATA, METADATA_VERSION).correlationId())
                    .isEqualTo(correlationId);
        }
    }

    @Test
    void shouldPauseReadingAtTheInflightLimitAndResumeBelowIt() {
        channel(2);
        channel.writeInbound(frame(metadata(METADATA_VERSION), 1));
        assertThat(channel.config().isAutoRead()).isTrue();

        channel.writeInbound(frame(metadata(METADATA_VERSION), 2));
        assertThat(channel.config().isAutoRead()).isFalse();

        // Completing a later response frees no slot: it still waits behind the first.
        dispatcher.futures.get(2).complete(metadataResponse("2"));
        assertThat(channel.config().isAutoRead()).isFalse();

        dispatcher.futures.get(1).complete(metadataResponse("1"));
        assertThat(channel.config().isAutoRead()).isTrue();
        assertThat(readResponse(ApiKeys.METADATA, METADATA_VERSION).correlationId())
                .isEqualTo(1);
        assertThat(readResponse(ApiKeys.METADATA, METADATA_VERSION).correlationId())
                .isEqualTo(2);
    }

    @Test
    void shouldCloseTheLeasesOfAResponseOnceItIsWritten() {
        channel(16);
        final AtomicInteger closed = new AtomicInteger();
        channel.writeInbound(frame(metadata(METADATA_VERSION), 1));

        dispatcher.futures.get(1).complete(new Response(new MetadataResponseData(), List.of(closed::incrementAndGet)));

        assertThat(readResponse(ApiKeys.METADATA, METADATA_VERSION).correlationId())
                .isEqualTo(1);
        assertThat(closed).hasValue(1);
    }

    @Test
    void shouldCloseTheLeasesOfResponseNone() {
        channel(16);
        final AtomicInteger closed = new AtomicInteger();
        channel.writeInbound(frame(metadata(METADATA_VERSION), 1));

        dispatcher.futures.get(1).complete(new Response(null, List.of(closed::incrementAndGet)));

        assertThat(closed).hasValue(1);
    }

    @Test
    void shouldCloseTheLeasesOfUnwrittenResponsesWhenTheChannelCloses() {
        channel(16);
        final AtomicInteger closed = new AtomicInteger();
        channel.writeInbound(frame(metadata(METADATA_VERSION), 1));
        channel.writeInbound(frame(metadata(METADATA_VERSION), 2));
        channel.writeInbound(frame(metadata(METADATA_VERSION), 3));
        dispatcher.futures.get(2).complete(new Response(new MetadataResponseData(), List.of(closed::incrementAndGet)));
        assertThat(closed).hasValue(0);

        channel.close();

        assertThat(closed).hasValue(1);
        dispatcher.futures.get(3).complete(new Response(new MetadataResponseData(), List.of(closed::incrementAndGet)));
        assertThat(closed).hasValue(2);
        assertThat(channel.outboundMessages()).isEmpty();
        assertThat(metrics.connections()).isZero();
    }

    @Test
    void shouldAnswerAControlRequestLaterFromTheFrameItKeepsUntilThenInRequestOrder() {
        controlChannel();
        final ByteBuf request = releaseFrame(8, "events", 0);
        channel.writeInbound(request);
        channel.writeInbound(frame(metadata(METADATA_VERSION), 9));
        final ControlExchange exchange = control.exchanges.getFirst();
        assertThat(request.refCnt()).as("the frame is kept for the answer").isEqualTo(1);

        dispatcher.futures.get(9).complete(metadataResponse("after"));
        assertThat(channel.outboundMessages())
                .as("the control answer goes first")
                .isEmpty();
        final ReleaseAccessRequest body = new ReleaseAccessRequest().wrap(exchange.body(), 0);
        assertThat(body.topic()).isEqualTo("events");
        assertThat(body.partition()).isEqualTo(4);
        exchange.answer(new ReleaseAccessResponse(), ReleaseAccessResponse.LENGTH)
                .errorCode(ControlErrorCodes.UNKNOWN_TOPIC_OR_PARTITION);
        exchange.complete();

        assertThat(request.refCnt()).as("the frame is freed once answered").isZero();
        final ByteBuf answer = channel.readOutbound();
        final MemorySegment written = MemorySegment.ofArray(ByteBufUtil.getBytes(answer));
        answer.release();
        assertThat(ControlFrame.size(written, 0)).isEqualTo(4 + ReleaseAccessResponse.LENGTH);
        assertThat(ControlFrame.responseCorrelationId(written, 0)).isEqualTo(8);
        assertThat(new ReleaseAccessResponse()
                        .wrap(written, ControlFrame.RESPONSE_BODY_OFFSET)
                        .errorCode())
                .isEqualTo(ControlErrorCodes.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(readResponse(ApiKeys.METADATA, METADATA_VERSION).correlationId())
                .isEqualTo(9);
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void shouldCloseTheConnectionForATruncatedControlRequestAndFreeItsFrame() {
        controlChannel();
        final ByteBuf request = releaseFrame(8, "events", 2);

        channel.writeInbound(request);

        assertThat(channel.isOpen()).isFalse();
        assertThat(control.exchanges).isEmpty();
        assertThat(request.refCnt()).isZero();
        assertThat(metrics.connectionsClosedForBadInput()).isEqualTo(1);
    }

    @Test
    void shouldFreeAControlAnswerThatArrivesAfterTheConnectionClosed() {
        controlChannel();
        final ByteBuf request = releaseFrame(8, "events", 0);
        channel.writeInbound(request);
        final ControlExchange exchange = control.exchanges.getFirst();

        channel.close();
        exchange.answer(new ReleaseAccessResponse(), ReleaseAccessResponse.LENGTH);
        exchange.complete();

        assertThat(exchange.answered().join().refCnt()).isZero();
        assertThat(request.refCnt()).isZero();
        assertThat(channel.outboundMessages()).isEmpty();
    }
}
