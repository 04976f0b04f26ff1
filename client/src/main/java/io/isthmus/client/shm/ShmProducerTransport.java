package io.isthmus.client.shm;

import io.isthmus.client.network.OneSidedProducerTransport;
import io.isthmus.client.security.SecuritySettings;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ProduceStagingDescriptor;
import io.isthmus.protocol.control.ShmProduceAccessResponse;
import io.isthmus.protocol.control.ShmProduceResponse;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer's shared-memory datapath ({@code transport=shm}), for a broker on this host: per partition, a staging
 * file the broker creates in its shared-memory directory and this process maps read-write. A sealed batch is copied
 * into the partition's next staging slot, and a doorbell (SHM_PRODUCE, a few bytes on the session's control
 * connection) names the slot; the broker copies the batch to the partition's tail, validates and commits the copy
 * through the partition's append gateway (the one TCP produce takes, so TCP, RDMA and shared-memory producers of a
 * partition are committed in one order) and answers with the base offset. Answers come in the order rung, so a slot is
 * free again once its answer is read, and a partition has at most {@code slots} batches in flight.
 *
 * <p>The producer never writes the log: a batch torn by a producer killed while writing its slot, or changed while the
 * broker copies it, fails validation of the copy and is never committed; a producer killed before ringing leaves
 * nothing behind but its staging file, which the broker deletes when the connection closes. Nothing is reserved in
 * the log before a doorbell, so a stalled producer holds up no one.
 *
 * <p>Confined to the sender thread, but for {@link #wakeup()}.
 */
public final class ShmProducerTransport implements OneSidedProducerTransport, ShmAttachable {
    private static final Logger LOG = LoggerFactory.getLogger(ShmProducerTransport.class);

    /** Slot size asked for: the broker grants at most its {@code message.max.bytes}, which bounds a batch anyway. */
    private static final int SLOT_BYTES_WANTED = Integer.MAX_VALUE - ProduceStagingDescriptor.SLOT_ALIGNMENT;

    /** How long a stream waiting for its access turn holds the others back without asking again. */
    private static final long WAITER_STALE_NANOS = 100_000_000L;

    /** The least time between two attempts to attach to a broker whose session broke. */
    private static final long REATTACH_BACKOFF_NANOS = 100_000_000L;

    private final String clientId;
    private final long requestTimeoutMs;
    private final long unansweredDoorbellNanos;
    private final SecuritySettings security;
    private final int slotsWanted;
    private final short acks;
    private final Map<InetSocketAddress, Link> links = new HashMap<>();
    private final List<ShmProduceStream> streams = new ArrayList<>();
    /** When a broker whose session broke may be attached to again. */
    private final Map<InetSocketAddress, Long> reattachNotBefore = new HashMap<>();
    /** Sessions in use, and broken ones whose doorbells the next {@link #poll} fails. */
    private final List<Link> linkList = new ArrayList<>();

    private int inFlight;
    private long writes;
    private long accessRequests;
    private long connectionsLost;
    /** The session {@link #awaitOutcomes} blocks on, for {@link #wakeup()} from the application's threads. */
    private volatile ShmConnection waitingOn;

    /**
     * One session with a broker and its doorbells in flight, oldest first (the order the broker answers them in): a
     * ring of the stream, token and correlation id of each.
     */
    private static final class Link {
        final ShmConnection connection;
        ShmProduceStream[] streams = new ShmProduceStream[16];
        Object[] tokens = new Object[16];
        int[] correlationIds = new int[16];
        /** When each doorbell was rung ({@link System#nanoTime()}), to drop a session that stopped answering. */
        long[] rungNanos = new long[16];

        int head;
        int size;
        /** Why the session broke, or null. */
        String broken;
        /**
         * A stream waiting to ask for access: no other stream rings a new doorbell until every one in flight is
         * answered, so the access request gets its turn; forgotten if the stream stops asking ({@link #WAITER_STALE_NANOS}).
         */
        ShmProduceStream accessWaiter;
        /** When {@link #accessWaiter} last asked. */
        long accessWaiterNanos;

        Link(final ShmConnection connection) {
            this.connection = connection;
        }

        void add(final ShmProduceStream stream, final Object token, final int correlationId, final long rungAt) {
            if (size == streams.length) {
                grow();
            }
            final int index = (head + size) & (streams.length - 1);
            streams[index] = stream;
            tokens[index] = token;
            correlationIds[index] = correlationId;
            rungNanos[index] = rungAt;
            size++;
        }

        void removeFirst() {
            streams[head] = null;
            tokens[head] = null;
            head = (head + 1) & (streams.length - 1);
            size--;
        }

        private void grow() {
            final int capacity = streams.length * 2;
            final ShmProduceStream[] s = new ShmProduceStream[capacity];
            final Object[] t = new Object[capacity];
            final int[] c = new int[capacity];
            final long[] r = new long[capacity];
            for (int i = 0; i < size; i++) {
                final int from = (head + i) & (streams.length - 1);
                s[i] = streams[from];
                t[i] = tokens[from];
                c[i] = correlationIds[from];
                r[i] = rungNanos[from];
            }
            streams = s;
            tokens = t;
            correlationIds = c;
            rungNanos = r;
            head = 0;
        }
    }

    /**
     * @param slotsWanted staging slots asked for per partition: the batches in flight there (the broker may grant
     *     fewer, up to its {@code shm.produce.slots})
     * @param acks the producer's {@code acks}: with -1 (all) the broker answers a batch once {@code
     *     min.insync.replicas} hold it, waiting at most {@code requestTimeoutMs}
     */
    public ShmProducerTransport(
            final String clientId,
            final long requestTimeoutMs,
            final SecuritySettings security,
            final int slotsWanted,
            final short acks) {
        this.clientId = clientId;
        this.requestTimeoutMs = requestTimeoutMs;
        // Half as long again as the broker's own bound (an acks=all doorbell is answered REQUEST_TIMED_OUT after
        // request.timeout.ms), so a replication stall fails its batch rather than the whole session.
        this.unansweredDoorbellNanos = TimeUnit.MILLISECONDS.toNanos(requestTimeoutMs) * 3 / 2;
        this.security = security;
        this.slotsWanted = slotsWanted;
        this.acks = acks;
    }

    /**
     * Attaches to {@code broker} now, so that a producer asking for {@code transport=shm} learns at once whether it
     * can (same host, allowed to read the broker's directory) instead of at its first batch.
     *
     * @throws ShmTransportException with the reason if it cannot
     */
    @Override
    public void attach(final InetSocketAddress broker) {
        link(broker);
    }

    @Override
    public ShmProduceStream stream(final String topic, final int partition, final InetSocketAddress leader) {
        final ShmProduceStream stream = new ShmProduceStream(topic, partition, leader);
        streams.add(stream);
        return stream;
    }

    private Link link(final InetSocketAddress broker) {
        Link link = links.get(broker);
        if (link == null) {
            link = new Link(ShmConnection.open(broker, clientId, requestTimeoutMs, security));
            links.put(broker, link);
            linkList.add(link);
        }
        return link;
    }

    /**
     * The stream's session, attached anew if it broke: a refusal now (the broker restarting, its sessions all taken) is
     * retriable, since the producer attached once, and attempts to a broker are spaced by {@link #REATTACH_BACKOFF_NANOS}
     * so a partition's batches do not each open a connection.
     */
    private Link attached(final ShmProduceStream stream) {
        final Link existing = links.get(stream.broker);
        if (existing != null) {
            return existing;
        }
        final long now = System.nanoTime();
        final Long notBefore = reattachNotBefore.get(stream.broker);
        if (notBefore != null && now - notBefore < 0) {
            throw new NetworkException("shared-memory session to " + stream.broker + " lost, attaching again shortly");
        }
        try {
            final Link link = link(stream.broker);
            reattachNotBefore.remove(stream.broker);
            return link;
        } catch (final ShmTransportException e) {
            reattachNotBefore.put(stream.broker, now + REATTACH_BACKOFF_NANOS);
            throw new NetworkException(
                    "cannot attach to the shared-memory broker: " + stream + " cause=" + e.getMessage(), e);
        }
    }

    /**
     * Copies {@code batch} into the stream's next staging slot and rings the doorbell, unless every slot is in flight
     * or access must be asked for while doorbells are still unanswered.
     *
     * @throws ShmAccessRevokedException if the broker refuses access for now: no such partition (yet), no room for
     *     another staging file (retriable)
     * @throws NetworkException if the broker cannot be reached, refuses to attach again, or the connection broke
     *     (retriable)
     * @throws RecordTooLargeException if the batch is larger than a staging slot ({@code message.max.bytes})
     * @throws TopicAuthorizationException if the principal may not write the topic
     * @throws ShmTransportException if access is refused for good
     */
    @Override
    public boolean tryWrite(final Stream s, final MemorySegment batch, final int length, final Object token) {
        final ShmProduceStream stream = (ShmProduceStream) s;
        final Link link = attached(stream);
        final long now = System.nanoTime();
        if (stream.needsAccess) {
            if (stream.inFlight > 0 && stream.inFlightOn != link) {
                // In flight on another link (its leader moved): wait for their answers without holding this link up.
                return false;
            }
            if (stream.inFlight > 0 || link.size > 0) {
                // The access request is answered in turn, so it waits for the doorbells in flight, and holds new ones.
                link.accessWaiter = stream;
                link.accessWaiterNanos = now;
                return false;
            }
            if (link.accessWaiter == stream) {
                link.accessWaiter = null;
            }
            access(link, stream);
        } else if (link.accessWaiter != null) {
            if (link.accessWaiter.needsAccess && now - link.accessWaiterNanos < WAITER_STALE_NANOS) {
                return false;
            }
            link.accessWaiter = null; // it has access now, or stopped asking (its batch expired, its leader moved)
        }
        if (length > stream.slotBytes) {
            throw new RecordTooLargeException("batch larger than a staging slot (the broker's message.max.bytes): "
                    + stream + " batchBytes=" + length);
        }
        if (stream.inFlight == stream.slots) {
            return false;
        }
        final int slot = stream.nextSlot;
        MemorySegment.copy(batch, 0, stream.slot(slot), 0, length);
        final int correlationId;
        try {
            correlationId = link.connection.produce(stream.stagingId, slot);
        } catch (final ShmTransportException e) {
            lose(link, "ringing a doorbell failed: " + e.getMessage());
            throw new NetworkException(
                    "shared-memory control connection lost: " + stream + " cause=" + e.getMessage(), e);
        }
        link.add(stream, token, correlationId, System.nanoTime()); // after access, which may have waited
        stream.nextSlot = slot + 1 == stream.slots ? 0 : slot + 1;
        stream.inFlight++;
        stream.inFlightOn = link;
        inFlight++;
        writes++;
        return true;
    }

    private void access(final Link link, final ShmProduceStream stream) {
        accessRequests++;
        final ShmProduceAccessResponse answer;
        try {
            answer = link.connection.produceAccess(
                    stream.topic, stream.partition, slotsWanted, SLOT_BYTES_WANTED, acks, (int)
                            Math.min(Integer.MAX_VALUE, requestTimeoutMs));
        } catch (final ShmTransportException e) {
            lose(link, "asking for produce access failed: " + e.getMessage());
            throw new NetworkException(
                    "shared-memory control connection lost: " + stream + " cause=" + e.getMessage(), e);
        }
        final short error = answer.errorCode();
        final String detail = answer.detail();
        switch (error) {
            case ControlErrorCodes.NONE -> map(stream, answer.stagingId(), answer.slots(), answer.slotBytes(), detail);
            case ControlErrorCodes.TOPIC_AUTHORIZATION_FAILED ->
                throw new TopicAuthorizationException("not allowed to write " + stream.topic + ": " + detail);
            case ControlErrorCodes.NOT_LEADER_OR_FOLLOWER ->
                throw new NotLeaderOrFollowerException("shared-memory produce access refused: " + stream.broker
                        + " does not lead " + stream.topic + "-" + stream.partition + ": " + detail);
            case ControlErrorCodes.UNKNOWN_TOPIC_OR_PARTITION,
                    ControlErrorCodes.NOT_CONNECTED,
                    ControlErrorCodes.RESOURCES_EXHAUSTED ->
                throw new ShmAccessRevokedException("shared-memory produce access refused for now: " + stream
                        + " error=" + ControlErrorCodes.name(error) + " detail=" + detail);
            default ->
                throw new ShmTransportException("shared-memory produce access refused: " + stream + " error="
                        + ControlErrorCodes.name(error) + " detail=" + detail);
        }
    }

    private static void map(
            final ShmProduceStream stream,
            final int stagingId,
            final int slots,
            final int slotBytes,
            final String path) {
        final Arena mapping = Arena.ofShared();
        try (FileChannel channel = FileChannel.open(Path.of(path), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final MemorySegment staging =
                    channel.map(FileChannel.MapMode.READ_WRITE, 0, (long) slots * slotBytes, mapping);
            stream.granted(stagingId, slots, slotBytes, staging, mapping);
        } catch (final IOException | RuntimeException e) {
            mapping.close();
            throw new ShmTransportException(
                    "cannot map the staging file the broker granted: " + stream + " file=" + path + " cause=" + e, e);
        }
    }

    /** Hands every doorbell answer that arrived to {@code handler}, in the order rung. */
    @Override
    public int poll(final AckHandler handler) {
        int answered = 0;
        for (int l = linkList.size() - 1; l >= 0; l--) {
            final Link link = linkList.get(l);
            while (link.broken == null && link.size > 0) {
                final ShmProduceResponse answer;
                try {
                    answer = link.connection.pollProduced(link.correlationIds[link.head]);
                } catch (final ShmTransportException e) {
                    lose(link, e.getMessage());
                    break;
                }
                if (answer == null) {
                    final long waited = System.nanoTime() - link.rungNanos[link.head];
                    if (waited > unansweredDoorbellNanos) {
                        // A broker that stopped answering without closing the connection (paused, wedged): as Kafka's
                        // client does after request.timeout.ms, the connection is dropped and the batches retried
                        // where the metadata says.
                        lose(link, "no answer to a doorbell within 1.5 x request.timeout.ms=" + requestTimeoutMs);
                    }
                    break;
                }
                final ShmProduceStream stream = link.streams[link.head];
                final Object token = link.tokens[link.head];
                final short error = answer.errorCode();
                final long baseOffset = answer.baseOffset();
                final RuntimeException failure =
                        error == ControlErrorCodes.NONE ? null : failure(stream, error, answer);
                answered++;
                complete(link, token, baseOffset, failure, handler);
            }
            if (link.broken != null) {
                // Whether the broker appended these is unknown: retriable, and an idempotent producer's retry is
                // answered with the original offset if it did.
                while (link.size > 0) {
                    answered++;
                    complete(
                            link,
                            link.tokens[link.head],
                            -1,
                            new NetworkException("shared-memory session lost before the answer: " + link.broken),
                            handler);
                }
                linkList.remove(l);
            }
        }
        return answered;
    }

    private void complete(
            final Link link,
            final Object token,
            final long baseOffset,
            final RuntimeException failure,
            final AckHandler handler) {
        final ShmProduceStream stream = link.streams[link.head];
        link.removeFirst();
        stream.inFlight--;
        inFlight--;
        handler.onAck(token, baseOffset, failure);
    }

    private static RuntimeException failure(
            final ShmProduceStream stream, final short error, final ShmProduceResponse answer) {
        final String detail = answer.detail();
        if (error == ControlErrorCodes.NOT_LEADER_OR_FOLLOWER) {
            // The broker dropped the grant: access is asked for again, where the refreshed metadata says.
            stream.lost();
        }
        if (error == ControlErrorCodes.ACCESS_REVOKED || error == ControlErrorCodes.NOT_CONNECTED) {
            stream.lost();
            return new ShmAccessRevokedException("shared-memory produce access revoked: " + stream + " error="
                    + ControlErrorCodes.name(error) + " detail=" + detail);
        }
        if (error >= ControlErrorCodes.RDMA_UNAVAILABLE || error == ControlErrorCodes.INVALID_REQUEST) {
            return new ShmTransportException("shared-memory produce refused: " + stream + " error="
                    + ControlErrorCodes.name(error) + " detail=" + detail);
        }
        // Kafka's own codes (the partition's append gateway answers as for a Produce request).
        return Errors.forCode(error).exception(stream.topic + "-" + stream.partition + ": " + detail);
    }

    /**
     * The session broke (the broker stopped, restarted or closed the connection): it is closed, its streams ask for
     * access again on a new session, and the next {@link #poll} fails its doorbells in flight.
     */
    private void lose(final Link link, final String reason) {
        connectionsLost++;
        LOG.info("shared-memory produce session lost: broker={} reason={}", link.connection.broker(), reason);
        link.broken = reason;
        links.remove(link.connection.broker(), link);
        link.connection.close();
        for (final ShmProduceStream stream : streams) {
            if (stream.broker.equals(link.connection.broker())) {
                stream.lost();
            }
        }
    }

    /**
     * Blocks on the control socket of a session with doorbells in flight until an answer arrives, at most a
     * millisecond, or until {@link #wakeup()}: no spinning, the cores are the application's and the broker's.
     */
    @Override
    public void awaitOutcomes(final int idleRounds, final long maxNanos) {
        for (final Link link : linkList) {
            if (link.broken == null && link.size > 0) {
                waitingOn = link.connection;
                try {
                    link.connection.awaitAnswer(1);
                } catch (final ShmTransportException e) {
                    lose(link, e.getMessage());
                } finally {
                    waitingOn = null;
                }
                return;
            }
        }
    }

    @Override
    public void wakeup() {
        final ShmConnection waiting = waitingOn;
        if (waiting != null) {
            waiting.wakeup();
        }
    }

    @Override
    public void failAll(final AckHandler handler, final String reason) {
        for (final Link link : linkList) {
            while (link.size > 0) {
                complete(link, link.tokens[link.head], -1, new KafkaException(reason), handler);
            }
        }
    }

    @Override
    public int inFlight() {
        return inFlight;
    }

    /** Batches handed over so far (doorbells rung). */
    public long writes() {
        return writes;
    }

    /** SHM_PRODUCE_ACCESS requests so far: one per partition, and one more after each loss of access. */
    public long accessRequests() {
        return accessRequests;
    }

    /** Sessions that broke under this producer (broker stopped or restarted). */
    public long connectionsLost() {
        return connectionsLost;
    }

    /** Closes the sessions (the broker deletes the staging files) and unmaps the staging files. */
    @Override
    public void close() {
        for (final Link link : linkList) {
            link.connection.close();
        }
        links.clear();
        linkList.clear();
        for (final ShmProduceStream stream : streams) {
            stream.unmap();
        }
        streams.clear();
    }

    @Override
    public String toString() {
        return "ShmProducerTransport{clientId=" + clientId + ", sessions=" + links.size() + ", inFlight=" + inFlight
                + ", writes=" + writes + '}';
    }
}
