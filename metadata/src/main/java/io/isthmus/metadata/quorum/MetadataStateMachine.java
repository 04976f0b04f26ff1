package io.isthmus.metadata.quorum;

import io.isthmus.metadata.controller.ClusterController;
import io.isthmus.metadata.image.ClusterImage;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metadata quorum's replicated state machine: applies each committed command through a
 * {@link ClusterController} and publishes the resulting {@link ClusterImage}.
 *
 * <p>Ratis calls {@link #applyTransaction} from one thread in log order, so the controller needs no lock; the
 * image is published through a volatile field for readers on any thread. A command is decoded and checked in
 * {@link #startTransaction} on the leader, before it is logged, so a malformed request from anyone who can reach
 * the quorum port is refused there and never enters the log.
 *
 * <p>Heartbeats are read-only requests ({@link #query}): most change nothing and must not cost a log entry. The
 * leader's {@link BrokerSessions} answers them and logs one only when a broker's fencing changes. Broker-only nodes
 * follow the image through read-only requests too ({@link ImageFetch}).
 */
final class MetadataStateMachine extends BaseStateMachine {
    private static final Logger LOG = LoggerFactory.getLogger(MetadataStateMachine.class);

    private final ClusterController controller;
    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final List<Consumer<ClusterImage>> listeners = new CopyOnWriteArrayList<>();
    private final BrokerSessions sessions;
    private final AtomicInteger snapshotsInstalled = new AtomicInteger();
    private volatile ClusterImage image = ClusterImage.EMPTY;
    private final Set<ImageWait> imageWaits = ConcurrentHashMap.newKeySet();
    private final ExecutorService imageAnswers = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "metadata-image-answers");
        t.setDaemon(true);
        return t;
    });
    private volatile EncodedImage lastEncoded;

    MetadataStateMachine(String clusterId, BrokerSessions sessions) {
        this.controller = new ClusterController(clusterId);
        this.sessions = sessions;
    }

    ClusterImage image() {
        return image;
    }

    void addListener(Consumer<ClusterImage> listener) {
        listeners.add(listener);
        listener.accept(image);
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        getLifeCycle().startAndTransition(() -> {
            super.initialize(server, groupId, raftStorage);
            storage.init(raftStorage);
            load(storage.getLatestSnapshot());
        });
    }

    /** Before a snapshot from the leader is installed: Ratis checks the state machine says it is paused. */
    @Override
    public void pause() {
        // Called for every chunk of a snapshot, and again when an install restarts: pause once.
        if (getLifeCycleState() == LifeCycle.State.RUNNING) {
            getLifeCycle().transition(LifeCycle.State.PAUSING);
            getLifeCycle().transition(LifeCycle.State.PAUSED);
        }
    }

    /** After a snapshot was installed from the leader (this voter had fallen behind the leader's log). */
    @Override
    public void reinitialize() throws IOException {
        load(storage.loadLatestSnapshot());
        snapshotsInstalled.incrementAndGet();
        if (getLifeCycleState() == LifeCycle.State.PAUSED) {
            getLifeCycle().transition(LifeCycle.State.STARTING);
            getLifeCycle().transition(LifeCycle.State.RUNNING);
        }
    }

    /** How many snapshots this voter installed from a leader since it started. */
    int snapshotsInstalled() {
        return snapshotsInstalled.get();
    }

    @Override
    public SimpleStateMachineStorage getStateMachineStorage() {
        return storage;
    }

    @Override
    public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
        TransactionContext transaction = super.startTransaction(request);
        try {
            MetadataCommands.decodeCommand(request.getMessage().getContent().asReadOnlyByteBuffer());
        } catch (RuntimeException e) {
            // Set on the transaction, the refusal is the sender's final answer and nothing is logged; thrown, it
            // would reach the sender as a transport failure and be retried.
            transaction.setException(new IllegalArgumentException(
                    "refused a malformed metadata command from " + request.getClientId() + ": " + e.getMessage(), e));
        }
        return transaction;
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        ByteString data = entry.getStateMachineLogEntry().getLogData();
        // Not caught: an entry this voter cannot read (checked on the leader before it was logged) means this voter
        // is not the version its peers are; Ratis then stops it, which is safe, where guessing would diverge.
        ApiMessage command = MetadataCommands.decodeCommand(data.asReadOnlyByteBuffer());
        byte[] answer;
        synchronized (this) {
            try {
                answer = MetadataCommands.encode(controller.apply(entry.getIndex(), command));
            } catch (RuntimeException e) {
                // Every voter fails the same command the same way: answered, and the log goes on. (A command that
                // failed restored the state; an answer that could not be encoded leaves the command applied.)
                LOG.error("metadata command at {} refused", TermIndex.valueOf(entry), e);
                answer = MetadataCommands.encodeRefusal(e.getMessage() == null ? e.toString() : e.getMessage());
            }
            image = controller.image();
            updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
        }
        publish();
        return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(answer)));
    }

    @Override
    public CompletableFuture<Message> query(Message request) {
        ByteBuffer content = request.getContent().asReadOnlyByteBuffer();
        if (ImageFetch.isImageFetch(content)) {
            return imageFetch(content);
        }
        ApiMessage message;
        try {
            message = MetadataCommands.decodeCommand(request.getContent().asReadOnlyByteBuffer());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(
                    new IOException("refused a malformed metadata query: " + e.getMessage(), e));
        }
        if (!(message instanceof BrokerHeartbeatRequestData heartbeat)) {
            return CompletableFuture.failedFuture(
                    new IOException("the only metadata query is a broker heartbeat, got " + message.apiKey()));
        }
        return sessions.onHeartbeat(heartbeat, image)
                .thenApply(answer -> Message.valueOf(ByteString.copyFrom(MetadataCommands.encode(answer))));
    }

    /**
     * A broker-only node's long poll: answered at once if this voter has applied past what the node holds, otherwise
     * when it does ({@link #publish}) or when the node's wait is over, whichever comes first. Answers are built on a
     * thread of their own, neither the apply thread that completes a wait nor the JVM's shared timer thread that ends
     * one, and an image is encoded once however many nodes ask for it.
     */
    private CompletableFuture<Message> imageFetch(ByteBuffer content) {
        ImageFetch.Query query;
        try {
            query = ImageFetch.decodeQuery(content);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(
                    new IOException("refused a malformed image fetch: " + e.getMessage(), e));
        }
        CompletableFuture<Void> newer = new CompletableFuture<>();
        ImageWait wait = new ImageWait(query.have(), newer);
        imageWaits.add(wait);
        // Checked after joining the waits, so an image published in between is not missed.
        if (image.appliedIndex() > query.have()) {
            newer.complete(null);
        }
        newer.completeOnTimeout(null, query.waitMs(), TimeUnit.MILLISECONDS);
        return newer.handleAsync(
                (done, failure) -> {
                    imageWaits.remove(wait);
                    ClusterImage now = image;
                    if (now.appliedIndex() <= query.have()) {
                        return Message.valueOf(ByteString.copyFrom(ImageFetch.NOTHING_NEWER));
                    }
                    try {
                        return Message.valueOf(ByteString.copyFrom(ImageFetch.newerAnswer(encoded(now))));
                    } catch (IOException e) {
                        throw new CompletionException(e);
                    }
                },
                imageAnswers);
    }

    /** {@code now} encoded, from the last encoding if that was of the same image. */
    private byte[] encoded(ClusterImage now) throws IOException {
        EncodedImage last = lastEncoded;
        if (last == null || last.appliedIndex() != now.appliedIndex()) {
            last = new EncodedImage(now.appliedIndex(), ImageSnapshot.encode(now));
            lastEncoded = last;
        }
        return last.bytes();
    }

    /** A broker-only node waiting for an image newer than {@code have}. */
    private record ImageWait(long have, CompletableFuture<Void> newer) {}

    /** An image as {@link ImageSnapshot} encodes it; the applied index names the image. */
    private record EncodedImage(long appliedIndex, byte[] bytes) {}

    /** Stops answering image fetches, then closes as every state machine does. */
    @Override
    public void close() throws IOException {
        // Not shutdownNow: an answer already queued would be dropped with its future never completed.
        imageAnswers.shutdown();
        super.close();
    }

    @Override
    public void notifyLeaderChanged(RaftGroupMemberId member, RaftPeerId newLeader) {
        sessions.onLeaderChange(member.getPeerId().equals(newLeader));
    }

    @Override
    public long takeSnapshot() throws IOException {
        ClusterImage snapshot;
        TermIndex applied;
        synchronized (this) {
            snapshot = image;
            applied = getLastAppliedTermIndex();
        }
        if (applied == null || applied.getIndex() < 0) {
            return -1;
        }
        File file = storage.getSnapshotFile(applied.getTerm(), applied.getIndex());
        ImageSnapshot.write(snapshot, file.toPath());
        MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), applied));
        LOG.info(
                "metadata snapshot at {} ({} brokers, {} topics): {}",
                applied,
                snapshot.brokers().size(),
                snapshot.topics().size(),
                file);
        return applied.getIndex();
    }

    private void load(SingleFileSnapshotInfo snapshot) throws IOException {
        if (snapshot == null) {
            return;
        }
        Path file = snapshot.getFile().getPath();
        if (!Files.exists(file)) {
            throw new IOException("the latest metadata snapshot " + file + " is listed but missing");
        }
        if (snapshot.getFile().getFileDigest() != null) {
            MD5FileUtil.verifySavedMD5(file.toFile(), snapshot.getFile().getFileDigest());
        }
        ClusterImage restored = ImageSnapshot.read(file);
        synchronized (this) {
            controller.restore(restored);
            image = restored;
            setLastAppliedTermIndex(snapshot.getTermIndex());
        }
        LOG.info("metadata restored from snapshot {} at {}", file, snapshot.getTermIndex());
        publish();
    }

    private void publish() {
        ClusterImage now = image;
        for (ImageWait wait : imageWaits) {
            if (now.appliedIndex() > wait.have()) {
                wait.newer().complete(null);
            }
        }
        for (Consumer<ClusterImage> listener : listeners) {
            try {
                listener.accept(now);
            } catch (RuntimeException e) {
                LOG.error("a metadata listener failed on image {}", now, e);
            }
        }
    }
}
