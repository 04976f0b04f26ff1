package io.isthmus.metadata.quorum;

import io.isthmus.metadata.broker.ControllerChannel;
import io.isthmus.metadata.image.ClusterImage;
import java.io.IOException;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.kafka.common.message.AllocateProducerIdsRequestData;
import org.apache.kafka.common.message.AllocateProducerIdsResponseData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.protocol.exceptions.RaftRetryFailureException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's way to the metadata quorum's leader: every controller request a broker sends (registration, heartbeats,
 * topic and partition changes, producer id blocks) and the image fetch of a broker-only node, each answered with
 * Kafka's response once the leader has committed and applied it. A command may be sent from any node.
 *
 * <p>Three ways of sending, for three kinds of request:
 *
 * <ul>
 *   <li><b>Commands</b> go through a Ratis client that finds the leader and retries through elections for up to
 *       {@link #DEFAULT_RETRY_SPAN}. A command that runs out of retries leaves that client failing every later
 *       command at once (Ratis keeps the failure in its ordered send window), so the client is then replaced: one long
 *       outage of the quorum must not cut a broker off from it for good.
 *   <li><b>Image fetches</b> are unordered reads on the same client, so a fetch parked on the leader for up to a second
 *       holds up no command behind it.
 *   <li><b>Heartbeats</b> go to one voter at a time, without retries, starting at the voter that last answered one as
 *       leader. Ratis serves a linearizable read on any voter, so a heartbeat that reached a follower is not redirected
 *       by Ratis; the follower answers {@code NOT_CONTROLLER} (as a Kafka controller that is not active does) and the
 *       next voter is asked, each voter once per heartbeat.
 * </ul>
 */
public final class QuorumClient implements ControllerChannel, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(QuorumClient.class);

    /** How long a command may take to commit, through elections included, before its future fails. */
    static final Duration DEFAULT_RETRY_SPAN = Duration.ofSeconds(30);

    private static final Duration RETRY_SLEEP = Duration.ofMillis(100);

    /** Ratis's default request timeout: a heartbeat never waits longer for one voter. */
    private static final Duration HEARTBEAT_TIMEOUT_CAP = Duration.ofSeconds(3);

    private final RaftGroup group;
    private final RaftProperties properties;
    private final Duration retrySpan;
    private final List<RaftPeerId> voters;
    private final RaftClient heartbeats;
    /** How long a heartbeat waits for one voter before it asks the next. */
    private final Duration heartbeatPerVoter;

    private final AtomicReference<RaftPeerId> controller = new AtomicReference<>();
    private RaftClient client;
    private boolean closed;

    private QuorumClient(RaftGroup group, RaftProperties properties, Duration sessionTimeout, Duration retrySpan) {
        RatisProcessGuard.install();
        this.group = group;
        this.properties = properties;
        this.retrySpan = retrySpan;
        this.voters = group.getPeers().stream()
                .map(RaftPeer::getId)
                .sorted(Comparator.comparingInt(id -> Integer.parseInt(id.toString())))
                .toList();
        this.client = build(properties, commandRetries());
        this.heartbeatPerVoter = heartbeatPerVoter(sessionTimeout, voters.size());
        this.heartbeats = build(heartbeatProperties(heartbeatPerVoter), RetryPolicies.noRetry());
    }

    /**
     * A client of the quorum {@code group}, with the RPC settings in {@code properties}, for a broker whose session
     * lasts {@code sessionTimeout} ({@code broker.session.timeout.ms}).
     */
    static QuorumClient connect(RaftGroup group, RaftProperties properties, Duration sessionTimeout) {
        return connect(group, properties, sessionTimeout, DEFAULT_RETRY_SPAN);
    }

    /** As {@link #connect(RaftGroup, RaftProperties, Duration)}, commands retried for {@code retrySpan} (tests). */
    static QuorumClient connect(
            RaftGroup group, RaftProperties properties, Duration sessionTimeout, Duration retrySpan) {
        return new QuorumClient(group, properties, sessionTimeout, retrySpan);
    }

    /**
     * Heartbeats wait for each voter at most a share of the session, so that one voter that hangs (paused, cut off,
     * gone) ahead of the leader leaves time to reach the leader within the session; never longer than Ratis's own
     * default.
     */
    private static Duration heartbeatPerVoter(Duration sessionTimeout, int voters) {
        long perVoter = Math.min(HEARTBEAT_TIMEOUT_CAP.toMillis(), sessionTimeout.toMillis() / Math.max(1, voters));
        return Duration.ofMillis(Math.max(100, perVoter));
    }

    private static RaftProperties heartbeatProperties(Duration perVoter) {
        RaftProperties heartbeat = new RaftProperties();
        RaftConfigKeys.Rpc.setType(heartbeat, SupportedRpcType.GRPC);
        RaftClientConfigKeys.Rpc.setRequestTimeout(
                heartbeat, TimeDuration.valueOf(perVoter.toMillis(), TimeUnit.MILLISECONDS));
        return heartbeat;
    }

    /**
     * Retries every {@link #RETRY_SLEEP}, {@link #retrySpan} worth of attempts: through elections and short outages
     * (that long when voters refuse at once; longer when they hang, each attempt then waiting out its timeout).
     */
    private RetryPolicy commandRetries() {
        return RetryPolicies.retryUpToMaximumCountWithFixedSleep(
                (int) (retrySpan.toMillis() / RETRY_SLEEP.toMillis()),
                TimeDuration.valueOf(RETRY_SLEEP.toMillis(), TimeUnit.MILLISECONDS));
    }

    private RaftClient build(RaftProperties rpc, RetryPolicy retryPolicy) {
        return RaftClient.newBuilder()
                .setProperties(rpc)
                .setRaftGroup(group)
                .setRetryPolicy(retryPolicy)
                .build();
    }

    @Override
    public CompletableFuture<BrokerRegistrationResponseData> registerBroker(BrokerRegistrationRequestData r) {
        return submit(r).thenApply(BrokerRegistrationResponseData.class::cast);
    }

    /**
     * A broker's heartbeat, answered by the quorum leader without a log entry unless the broker's fencing changes.
     * A broker that stops sending them is fenced after {@code broker.session.timeout.ms}. Fails with {@code
     * NotControllerException} if no voter answered as leader (an election under way), or with the last voter's
     * failure if none answered at all.
     */
    @Override
    public CompletableFuture<BrokerHeartbeatResponseData> heartbeat(BrokerHeartbeatRequestData h) {
        RaftPeerId last = controller.get();
        int first = last == null ? 0 : Math.max(0, voters.indexOf(last));
        return heartbeatFrom(message(h), first, 0, null);
    }

    /** Asks voter {@code first + tried} (of the voters in id order); one that does not lead passes it on. */
    private CompletableFuture<BrokerHeartbeatResponseData> heartbeatFrom(
            Message heartbeat, int first, int tried, Throwable lastFailure) {
        if (tried == voters.size()) {
            controller.set(null);
            return CompletableFuture.failedFuture(lastFailure);
        }
        RaftPeerId voter = voters.get((first + tried) % voters.size());
        return heartbeats
                .async()
                .sendReadOnlyUnordered(heartbeat, voter)
                // Ratis's request timeout does not bound a request to a voter that has gone away (its stream waits
                // for the connection): one that did not answer in its share of the session is given up here. Waiting
                // longer made a whole heartbeat outlast the session every time while the voter that led was down, and
                // the next leader fenced every broker.
                .orTimeout(heartbeatPerVoter.toMillis(), TimeUnit.MILLISECONDS)
                .handle((reply, failure) -> {
                    Throwable why = failure;
                    if (failure == null && reply.isSuccess()) {
                        BrokerHeartbeatResponseData answer = (BrokerHeartbeatResponseData) answerOf(reply);
                        if (Errors.forCode(answer.errorCode()) != Errors.NOT_CONTROLLER) {
                            controller.set(voter);
                            return CompletableFuture.completedFuture(answer);
                        }
                        why = Errors.NOT_CONTROLLER.exception("metadata voter " + voter + " does not lead the quorum");
                    } else if (failure == null) {
                        why = reply.getException();
                    } else {
                        // Without retries Ratis never reconnects to a voter on its own: a voter that restarted
                        // would fail every later heartbeat at once on the stream that broke.
                        heartbeats.getClientRpc().handleException(voter, unwrapped(failure), true);
                    }
                    // The next heartbeat starts past a voter that failed this one, not with it again.
                    controller.compareAndSet(voter, null);
                    return heartbeatFrom(heartbeat, first, tried + 1, why);
                })
                .thenCompose(Function.identity());
    }

    /**
     * Creates topics. Partition counts and replication factors must be settled (not -1) unless a topic gives its
     * assignments: every voter must compute the same placement, so no voter's local defaults may enter it.
     */
    public CompletableFuture<CreateTopicsResponseData> createTopics(CreateTopicsRequestData c) {
        return submit(c).thenApply(CreateTopicsResponseData.class::cast);
    }

    public CompletableFuture<DeleteTopicsResponseData> deleteTopics(DeleteTopicsRequestData d) {
        return submit(d).thenApply(DeleteTopicsResponseData.class::cast);
    }

    /** A partition leader's change of its ISR, checked against the leader and partition epochs it was built on. */
    public CompletableFuture<AlterPartitionResponseData> alterPartition(AlterPartitionRequestData a) {
        return submit(a).thenApply(AlterPartitionResponseData.class::cast);
    }

    /** Adds partitions to topics; their replication factor is the topic's. */
    public CompletableFuture<CreatePartitionsResponseData> createPartitions(CreatePartitionsRequestData c) {
        return submit(c).thenApply(CreatePartitionsResponseData.class::cast);
    }

    /**
     * Starts, replaces or cancels partition reassignments; a reassignment completes when its partition's leader has
     * brought every target replica into the ISR.
     */
    public CompletableFuture<AlterPartitionReassignmentsResponseData> alterPartitionReassignments(
            AlterPartitionReassignmentsRequestData a) {
        return submit(a).thenApply(AlterPartitionReassignmentsResponseData.class::cast);
    }

    /** Preferred-leader election; an unclean election is refused. */
    public CompletableFuture<ElectLeadersResponseData> electLeaders(ElectLeadersRequestData e) {
        return submit(e).thenApply(ElectLeadersResponseData.class::cast);
    }

    /** A block of producer ids for a registered broker; no two blocks the quorum hands out overlap. */
    public CompletableFuture<AllocateProducerIdsResponseData> allocateProducerIds(AllocateProducerIdsRequestData a) {
        return submit(a).thenApply(AllocateProducerIdsResponseData.class::cast);
    }

    /**
     * The leader's image if it has applied past {@code have}, waiting up to {@code wait} (at most {@link
     * ImageFetch#MAX_WAIT}) for it to; empty if it had nothing newer by then.
     */
    public CompletableFuture<Optional<ClusterImage>> fetchImage(long have, Duration wait) {
        // Not watched: an unordered request that runs out of retries leaves the client usable.
        return current()
                .async()
                .sendReadOnlyUnordered(Message.valueOf(ByteString.copyFrom(ImageFetch.encodeQuery(have, wait))))
                .thenApply(reply -> {
                    if (!reply.isSuccess()) {
                        throw new CompletionException(reply.getException());
                    }
                    try {
                        return ImageFetch.decodeAnswer(
                                reply.getMessage().getContent().asReadOnlyByteBuffer());
                    } catch (IOException e) {
                        throw new CompletionException(e);
                    }
                });
    }

    /** The voter that last answered a heartbeat as leader, else the one commands last found leading, if any. */
    public OptionalInt leaderId() {
        RaftPeerId leader = controller.get();
        if (leader == null) {
            leader = current().getLeaderId();
        }
        return leader == null ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(leader.toString()));
    }

    /** The Ratis client for commands, for a voter's own management calls (snapshots). */
    RaftClient raft() {
        return current();
    }

    private CompletableFuture<ApiMessage> submit(ApiMessage command) {
        RaftClient current = current();
        return watched(current, current.async().send(message(command))).thenApply(QuorumClient::answerOf);
    }

    private synchronized RaftClient current() {
        return client;
    }

    /**
     * Replaces {@code used} once a request on it ran out of retries or found it closed: Ratis fails every later
     * ordered request of a client whose request ran out of retries, so without a new client one long outage of the
     * quorum would leave this node unable to register, heartbeat or change anything until it restarts.
     */
    private CompletableFuture<RaftClientReply> watched(RaftClient used, CompletableFuture<RaftClientReply> sent) {
        return sent.whenComplete((reply, failure) -> {
            Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
            if (cause instanceof RaftRetryFailureException || cause instanceof AlreadyClosedException) {
                replace(used, cause);
            }
        });
    }

    private void replace(RaftClient broken, Throwable why) {
        RaftClient fresh;
        synchronized (this) {
            if (closed || client != broken) {
                return; // replaced already, or closing
            }
            fresh = build(properties, commandRetries());
            client = fresh;
        }
        LOG.warn("metadata quorum client replaced after {}; requests in flight on the old one fail", why.toString());
        try {
            broken.close();
        } catch (IOException e) {
            LOG.warn("closing the replaced metadata quorum client failed", e);
        }
    }

    private static Throwable unwrapped(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    static Message message(ApiMessage command) {
        return Message.valueOf(ByteString.copyFrom(MetadataCommands.encode(command)));
    }

    static ApiMessage answerOf(RaftClientReply reply) {
        if (!reply.isSuccess()) {
            throw new CompletionException(reply.getException());
        }
        return MetadataCommands.decodeAnswer(reply.getMessage().getContent().asReadOnlyByteBuffer());
    }

    @Override
    public void close() throws IOException {
        RaftClient last;
        synchronized (this) {
            closed = true;
            last = client;
        }
        try {
            heartbeats.close();
        } finally {
            last.close();
        }
    }
}
