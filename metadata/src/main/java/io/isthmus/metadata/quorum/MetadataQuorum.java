package io.isthmus.metadata.quorum;

import io.isthmus.metadata.image.ClusterImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.ExitUtils;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One voter of the cluster's metadata quorum: a Ratis server holding the replicated log of controller commands, the
 * state machine applying them, and a {@link QuorumClient} that sends this node's commands to whichever voter leads.
 *
 * <p>Metadata changes go through {@link #controller()}: each is a Kafka controller request answered with Kafka's
 * response once the command is committed on a majority and applied, sent from any voter (the client finds the
 * leader). Reads are local: {@link #image()} is what this voter has applied, which may trail the leader by the
 * entries in flight.
 *
 * <p>Closing stops, in reverse order of starting, the session timer, the client and the server; the log and
 * snapshots stay on disk and a voter started again on the same directory recovers from them.
 */
public final class MetadataQuorum implements MetadataNode {
    private static final Logger LOG = LoggerFactory.getLogger(MetadataQuorum.class);

    private final QuorumSettings settings;
    private final RaftGroup group;
    private final MetadataStateMachine stateMachine;
    private final RaftServer server;
    private final QuorumClient client;
    private final ClientId sessionClientId = ClientId.randomId();
    private final AtomicLong sessionCallId = new AtomicLong();
    private final ScheduledExecutorService sessionTimer;

    private MetadataQuorum(QuorumSettings settings) throws IOException {
        RatisProcessGuard.install();
        this.settings = settings;
        this.group = groupOf(settings);
        BrokerSessions sessions = new BrokerSessions(settings.brokerSessionTimeout(), System::nanoTime);
        this.stateMachine = new MetadataStateMachine(settings.clusterId(), sessions);
        RaftProperties properties = propertiesOf(settings);
        NodeDirectory.check(settings);
        boolean startedBefore = NodeDirectory.startedAsVoter(settings);
        boolean started = Files.isDirectory(
                settings.directory().resolve(group.getGroupId().getUuid().toString()));
        if (startedBefore && !started) {
            throw new IllegalStateException("metadata directory " + settings.directory() + " has lost the quorum log"
                    + " of voter " + settings.nodeId() + " (it started here before): it must not rejoin as a new"
                    + " voter that forgot its votes; restore the directory or replace the voter deliberately");
        }
        this.server = RaftServer.newBuilder()
                .setServerId(peerId(settings.nodeId()))
                .setGroup(group)
                .setProperties(properties)
                .setStateMachine(stateMachine)
                // FORMAT only on the first start after formatting, when Ratis has written nothing yet.
                .setOption(started ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT)
                .build();
        this.client = QuorumClient.connect(group, properties, settings.brokerSessionTimeout());
        sessions.logThrough(this::submitHere);
        this.sessionTimer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "metadata-sessions-" + settings.nodeId());
            t.setDaemon(true);
            return t;
        });
        long period = Math.max(10, settings.brokerSessionTimeout().toMillis() / 4);
        // Checked against the server's own role too: a leader deposed while it could not hear of it (paused, cut
        // off) is not told, and would otherwise keep trying to fence brokers that now heartbeat to its successor.
        sessionTimer.scheduleWithFixedDelay(
                () -> {
                    // A scheduled task that throws is never run again: a failure here must not end fencing.
                    try {
                        if (isLeader()) {
                            sessions.expire(stateMachine::image);
                        }
                    } catch (RuntimeException e) {
                        LOG.error("voter {}: checking broker sessions failed", settings.nodeId(), e);
                    }
                },
                period,
                period,
                TimeUnit.MILLISECONDS);
    }

    /**
     * Starts this voter; it joins (or, with its peers, elects) the quorum's leader in the background.
     *
     * @throws IllegalStateException if its directory is not formatted, or formatted for another cluster or node
     */
    public static MetadataQuorum start(QuorumSettings settings) throws IOException {
        if (!settings.isVoter()) {
            throw new IllegalArgumentException("node.id " + settings.nodeId() + " is not among " + QuorumVoter.SETTING
                    + " " + settings.voters() + "; only a voter runs the metadata quorum");
        }
        MetadataQuorum quorum = new MetadataQuorum(settings);
        try {
            quorum.server.start();
            NodeDirectory.markStarted(settings);
        } catch (ExitUtils.ExitException e) {
            // Ratis gives up on its server (its port taken, for one); the guard turned its System.exit into this.
            final IOException failure = new IOException(
                    "voter " + settings.nodeId() + " could not start its quorum server on "
                            + settings.self().address() + ": " + rootMessageOf(e),
                    e);
            closeAfter(quorum, failure);
            throw failure;
        } catch (IOException | RuntimeException e) {
            closeAfter(quorum, e);
            throw e;
        }
        return quorum;
    }

    /** Closes a voter that failed to start with {@code failure}, adding any failure to close to it. */
    private static void closeAfter(MetadataQuorum quorum, Exception failure) {
        try {
            quorum.close();
        } catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /** The innermost cause's message, which says why (a taken port), where Ratis's own says only that it failed. */
    private static String rootMessageOf(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage();
    }

    @Override
    public int nodeId() {
        return settings.nodeId();
    }

    /** The metadata this voter has applied. */
    @Override
    public ClusterImage image() {
        return stateMachine.image();
    }

    /** Calls {@code listener} with the current image now and with each new image after a command is applied. */
    @Override
    public void addListener(Consumer<ClusterImage> listener) {
        stateMachine.addListener(listener);
    }

    /** The voter this one believes leads, if it knows of one. */
    @Override
    public OptionalInt leaderId() {
        try {
            RaftPeerId leader = server.getDivision(group.getGroupId()).getInfo().getLeaderId();
            return leader == null ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(leader.toString()));
        } catch (IOException e) {
            return OptionalInt.empty();
        }
    }

    public boolean isLeader() {
        try {
            return server.getDivision(group.getGroupId()).getInfo().isLeader();
        } catch (IOException e) {
            return false;
        }
    }

    /** The way to the quorum's leader for this node's commands, heartbeats included. */
    @Override
    public QuorumClient controller() {
        return client;
    }

    /** How many snapshots this voter installed from a leader, having fallen behind its log (for tests). */
    int snapshotsInstalled() {
        return stateMachine.snapshotsInstalled();
    }

    /** Writes a snapshot now on this voter (they are also taken every {@code snapshotEveryEntries} entries). */
    public long takeSnapshot(Duration timeout) throws IOException {
        RaftClientReply reply = client.raft()
                .getSnapshotManagementApi(peerId(settings.nodeId()))
                .create(timeout.toMillis());
        if (!reply.isSuccess()) {
            throw new IOException("metadata snapshot on voter " + settings.nodeId() + " failed", reply.getException());
        }
        return reply.getLogIndex();
    }

    /**
     * Logs a command through this voter's own server only, never forwarded: what the leader's session timer decides
     * must not be logged by a successor that saw heartbeats this voter did not, so a voter that no longer leads
     * fails with {@code NotLeaderException} instead. (It cannot go through {@link #client} either: the heartbeat
     * that caused it is in flight there, and Ratis orders one client's requests.)
     */
    private CompletableFuture<ApiMessage> submitHere(ApiMessage command) {
        RaftClientRequest request = RaftClientRequest.newBuilder()
                .setClientId(sessionClientId)
                .setServerId(peerId(settings.nodeId()))
                .setGroupId(group.getGroupId())
                .setCallId(sessionCallId.incrementAndGet())
                .setMessage(QuorumClient.message(command))
                .setType(RaftClientRequest.writeRequestType())
                .build();
        try {
            return server.submitClientRequestAsync(request).thenApply(QuorumClient::answerOf);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public void close() throws IOException {
        sessionTimer.shutdownNow();
        IOException failure = null;
        for (AutoCloseable resource : List.<AutoCloseable>of(client, server)) {
            try {
                resource.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IOException("closing metadata voter " + settings.nodeId() + " failed", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** One Ratis group per cluster, its id derived from the cluster id so every voter agrees without being told. */
    static RaftGroup groupOf(QuorumSettings settings) {
        UUID groupUuid =
                UUID.nameUUIDFromBytes(("isthmus-metadata/" + settings.clusterId()).getBytes(StandardCharsets.UTF_8));
        List<RaftPeer> peers = settings.voters().stream()
                .map(v -> RaftPeer.newBuilder()
                        .setId(peerId(v.id()))
                        .setAddress(v.address())
                        .build())
                .toList();
        return RaftGroup.valueOf(RaftGroupId.valueOf(groupUuid), peers);
    }

    private static RaftPeerId peerId(int nodeId) {
        return RaftPeerId.valueOf(Integer.toString(nodeId));
    }

    private static RaftProperties propertiesOf(QuorumSettings settings) {
        RaftProperties p = new RaftProperties();
        RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
        GrpcConfigKeys.Server.setHost(p, settings.self().host());
        GrpcConfigKeys.Server.setPort(p, settings.self().port());
        RaftServerConfigKeys.setStorageDir(p, List.of(settings.directory().toFile()));
        long election = settings.electionTimeout().toMillis();
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(election, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(2 * election, TimeUnit.MILLISECONDS));
        TimeDuration requestTimeout =
                TimeDuration.valueOf(settings.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
        RaftServerConfigKeys.Rpc.setRequestTimeout(p, requestTimeout);
        // This voter's own client (its broker's commands) waits as long for an answer.
        RaftClientConfigKeys.Rpc.setRequestTimeout(p, requestTimeout);
        // Heartbeats are read-only requests: linearizable, so a leader cut off from the others cannot answer them (and
        // grant a broker a lease) after a successor was elected and started counting sessions.
        RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, settings.snapshotEveryEntries());
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2);
        // The log is purged up to each snapshot, so it does not grow forever; a voter that falls behind what is left
        // is sent the leader's snapshot.
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
        RaftServerConfigKeys.Log.setPurgeGap(p, (int) Math.min(1024, settings.snapshotEveryEntries()));
        RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(settings.logSegmentBytes()));
        return p;
    }
}
