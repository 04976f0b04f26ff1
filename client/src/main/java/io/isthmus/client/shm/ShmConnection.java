package io.isthmus.client.shm;

import io.isthmus.client.network.ControlChannel;
import io.isthmus.client.security.SecuritySettings;
import io.isthmus.protocol.control.ConsumeAccessRequest;
import io.isthmus.protocol.control.ControlApiKeys;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.MetadataSlotDescriptor;
import io.isthmus.protocol.control.ReleaseAccessRequest;
import io.isthmus.protocol.control.ReleaseAccessResponse;
import io.isthmus.protocol.control.ShmAttachRequest;
import io.isthmus.protocol.control.ShmAttachResponse;
import io.isthmus.protocol.control.ShmConsumeAccessResponse;
import io.isthmus.protocol.control.ShmDirectoryLayout;
import io.isthmus.protocol.control.ShmProduceAccessRequest;
import io.isthmus.protocol.control.ShmProduceAccessResponse;
import io.isthmus.protocol.control.ShmProduceRequest;
import io.isthmus.protocol.control.ShmProduceResponse;
import io.isthmus.protocol.control.ShmSlotFileDescriptor;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One client's shared-memory session with a broker on its host: the {@link ControlChannel} that attached (the broker
 * ends the session when it closes) and a read-only mapping of the broker's slot file, where this session's range of
 * metadata slots is loaded in place.
 *
 * <p>Attaching takes two SHM_ATTACH requests the first time: one with no token, answered SHM_TOKEN_MISMATCH with the
 * broker's shared-memory directory, then one with the token read from there. A client that cannot read it (another
 * host, another OS user) is refused with the reason. The mapped file must carry the generation the broker answered and
 * say OPEN; {@link #brokerAlive(boolean)} turns false when the broker stops or a restarted broker replaces the file.
 *
 * <p>A producer's session also asks for staging files and rings a doorbell per batch ({@link #produce}), whose answers
 * it reads without waiting ({@link #pollProduced}).
 *
 * <p>Not thread-safe: the consumer's polling thread, or the producer's sender, owns it.
 */
public final class ShmConnection implements AutoCloseable {
    private final ControlChannel control;
    private final Path directory;
    private final long generation;
    private final int slotRange;
    private final int slotsPerRange;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment slotFile;
    private final ConsumeAccessRequest consumeRequest = new ConsumeAccessRequest();
    private final ShmConsumeAccessResponse consumeResponse = new ShmConsumeAccessResponse();
    private final ReleaseAccessRequest releaseRequest = new ReleaseAccessRequest();
    private final ReleaseAccessResponse releaseResponse = new ReleaseAccessResponse();
    private final ShmProduceAccessRequest produceAccessRequest = new ShmProduceAccessRequest();
    private final ShmProduceAccessResponse produceAccessResponse = new ShmProduceAccessResponse();
    private final ShmProduceRequest produceRequest = new ShmProduceRequest();
    private final ShmProduceResponse produceResponse = new ShmProduceResponse();
    private boolean closed;

    private ShmConnection(final ControlChannel control, final ShmAttachResponse attached) throws IOException {
        this.control = control;
        this.directory = Path.of(attached.detail());
        this.generation = attached.generation();
        this.slotRange = attached.slotRange();
        this.slotsPerRange = attached.slotsPerRange();
        final Path file = directory.resolve(ShmDirectoryLayout.SLOT_FILE);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            slotFile = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
        } catch (final IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
        final long end = ShmSlotFileDescriptor.rangeOffset(slotRange + 1, slotsPerRange);
        if (slotFile.byteSize() < end
                || ShmSlotFileDescriptor.magic(slotFile) != ShmSlotFileDescriptor.MAGIC
                || ShmSlotFileDescriptor.generation(slotFile) != generation
                || ShmSlotFileDescriptor.state(slotFile) != ShmSlotFileDescriptor.OPEN) {
            final String found = slotFile.byteSize() < ShmSlotFileDescriptor.HEADER_LENGTH
                    ? "a short file"
                    : "generation " + Long.toHexString(ShmSlotFileDescriptor.generation(slotFile)) + " state "
                            + ShmSlotFileDescriptor.state(slotFile);
            arena.close();
            throw new ShmTransportException("the broker's slot file is not the one it attached us to (it restarted?):"
                    + " file=" + file + " expected generation " + Long.toHexString(generation) + ", found " + found);
        }
    }

    /**
     * Attaches to the broker at {@code broker}, which must run on this host and let this OS user read its directory.
     *
     * @throws ShmTransportException with the reason if the broker refuses or its files cannot be read here
     */
    public static ShmConnection open(
            final InetSocketAddress broker,
            final String clientId,
            final long requestTimeoutMs,
            final SecuritySettings security) {
        final ControlChannel control = ControlChannel.open(
                broker,
                clientId,
                requestTimeoutMs,
                security,
                ShmBrokerUnreachableException::new,
                ShmTransportException::new);
        try {
            ShmAttachResponse answer = attach(control, new byte[ShmDirectoryLayout.TOKEN_LENGTH]);
            if (answer.errorCode() == ControlErrorCodes.SHM_TOKEN_MISMATCH) {
                answer = attach(control, readToken(broker, answer.detail()));
            }
            if (answer.errorCode() != ControlErrorCodes.NONE) {
                throw new ShmTransportException("broker refused SHM_ATTACH: broker=" + broker + " error="
                        + ControlErrorCodes.name(answer.errorCode()) + " detail=" + answer.detail());
            }
            try {
                return new ShmConnection(control, answer);
            } catch (final IOException e) {
                throw new ShmTransportException(
                        "cannot map the broker's slot file: broker=" + broker + " dir=" + answer.detail() + " cause="
                                + e,
                        e);
            }
        } catch (final RuntimeException e) {
            control.close();
            throw e;
        }
    }

    private static ShmAttachResponse attach(final ControlChannel control, final byte[] token) {
        final ShmAttachRequest request =
                new ShmAttachRequest().wrapForEncode(control.requestFrame(), control.requestBodyOffset());
        request.token(token);
        return control.call(ControlApiKeys.SHM_ATTACH, request, new ShmAttachResponse());
    }

    /** The broker's token, which only those who may read its directory can read. */
    private static byte[] readToken(final InetSocketAddress broker, final String directory) {
        final Path file = Path.of(directory).resolve(ShmDirectoryLayout.TOKEN_FILE);
        try {
            final byte[] token = Files.readAllBytes(file);
            if (token.length != ShmDirectoryLayout.TOKEN_LENGTH) {
                throw new ShmTransportException("the broker's token has " + token.length + " bytes, not "
                        + ShmDirectoryLayout.TOKEN_LENGTH + ": file=" + file + " broker=" + broker);
            }
            return token;
        } catch (final IOException e) {
            throw new ShmTransportException(
                    "cannot read the broker's shared-memory token (is the broker on another host, or is this OS user"
                            + " not allowed to read its directory?): file=" + file + " broker=" + broker + " cause="
                            + e,
                    e);
        }
    }

    /** SHM_CONSUME_ACCESS from {@code offset}: the answer, valid until the next control request here. */
    public ShmConsumeAccessResponse consumeAccess(final String topic, final int partition, final long offset) {
        consumeRequest
                .wrapForEncode(control.requestFrame(), control.requestBodyOffset())
                .partition(partition)
                .offset(offset)
                .topic(topic);
        return control.call(ControlApiKeys.SHM_CONSUME_ACCESS, consumeRequest, consumeResponse);
    }

    /** SHM_RELEASE_ACCESS of a partition read so far: the answer, valid until the next control request here. */
    public ReleaseAccessResponse release(final String topic, final int partition) {
        releaseRequest
                .wrapForEncode(control.requestFrame(), control.requestBodyOffset())
                .partition(partition)
                .access(ReleaseAccessRequest.CONSUME)
                .topic(topic);
        return control.call(ControlApiKeys.SHM_RELEASE_ACCESS, releaseRequest, releaseResponse);
    }

    /**
     * SHM_PRODUCE_ACCESS: a staging file of {@code slots} slots of {@code slotBytes} for the partition (the broker may
     * grant fewer and smaller), its batches answered as the producer's {@code acks} and {@code timeoutMs} ({@code
     * request.timeout.ms}) say. The answer is valid until the next control request here; no doorbell may be waiting for
     * its answer.
     */
    public ShmProduceAccessResponse produceAccess(
            final String topic,
            final int partition,
            final int slots,
            final int slotBytes,
            final short acks,
            final int timeoutMs) {
        produceAccessRequest
                .wrapForEncode(control.requestFrame(), control.requestBodyOffset())
                .partition(partition)
                .slots(slots)
                .slotBytes(slotBytes)
                .acks(acks)
                .timeoutMs(timeoutMs)
                .topic(topic);
        return control.call(ControlApiKeys.SHM_PRODUCE_ACCESS, produceAccessRequest, produceAccessResponse);
    }

    /**
     * SHM_RELEASE_ACCESS of a partition's staging file (the broker deletes it; closing the connection does the same for
     * all of them); no doorbell may be waiting for its answer.
     */
    public ReleaseAccessResponse releaseProduce(final String topic, final int partition) {
        releaseRequest
                .wrapForEncode(control.requestFrame(), control.requestBodyOffset())
                .partition(partition)
                .access(ReleaseAccessRequest.PRODUCE)
                .topic(topic);
        return control.call(ControlApiKeys.SHM_RELEASE_ACCESS, releaseRequest, releaseResponse);
    }

    /**
     * Rings the doorbell for the batch in slot {@code slot} of staging file {@code stagingId}, without waiting for the
     * answer, which {@link #pollProduced} reads; returns the request's correlation id.
     */
    public int produce(final int stagingId, final int slot) {
        produceRequest
                .wrapForEncode(control.requestFrame(), control.requestBodyOffset())
                .stagingId(stagingId)
                .slot(slot);
        return control.send(ControlApiKeys.SHM_PRODUCE, produceRequest);
    }

    /**
     * The answer to the oldest doorbell not answered yet ({@code correlationId}), or null if it has not arrived whole;
     * valid until the next answer is read here.
     */
    public ShmProduceResponse pollProduced(final int correlationId) {
        return control.poll(ControlApiKeys.SHM_PRODUCE, correlationId, produceResponse);
    }

    /** Waits up to {@code timeoutMillis} for a doorbell's answer (see {@link ControlChannel#awaitAnswer}). */
    public void awaitAnswer(final long timeoutMillis) {
        control.awaitAnswer(timeoutMillis);
    }

    /** Ends an {@link #awaitAnswer} early. Any thread. */
    public void wakeup() {
        control.wakeup();
    }

    /** The slot file as mapped; a slot's readable word is loaded with {@link MetadataSlotDescriptor#readableAcquire}. */
    public MemorySegment slotFile() {
        return slotFile;
    }

    /** Where slot {@code slotIndex} of this session lies in {@link #slotFile()}. */
    public long slotOffset(final int slotIndex) {
        if (slotIndex < 0 || slotIndex >= slotsPerRange) {
            throw new ShmTransportException("metadata slot out of range: slotIndex=" + slotIndex + " slotsPerRange="
                    + slotsPerRange + " broker=" + control.broker());
        }
        return ShmSlotFileDescriptor.rangeOffset(slotRange, slotsPerRange)
                + (long) slotIndex * MetadataSlotDescriptor.LENGTH;
    }

    /**
     * Whether the broker that attached us still serves the slot file: false once it stopped or a restarted broker
     * replaced the file (both mark it closed), and, checked with {@code probeConnection}, once the control connection
     * is gone (a broker killed and not restarted, or one that ended the session).
     */
    public boolean brokerAlive(final boolean probeConnection) {
        return !closed
                && ShmSlotFileDescriptor.state(slotFile) == ShmSlotFileDescriptor.OPEN
                && !(probeConnection && control.peerClosed());
    }

    public Path directory() {
        return directory;
    }

    public long generation() {
        return generation;
    }

    public InetSocketAddress broker() {
        return control.broker();
    }

    public boolean isClosed() {
        return closed;
    }

    /** Closes the control connection (the broker ends the session) and unmaps the slot file. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        control.close();
        arena.close();
    }

    @Override
    public String toString() {
        return "ShmConnection{broker=" + control.broker() + ", dir=" + directory + ", generation="
                + Long.toHexString(generation) + ", slotRange=" + slotRange + '}';
    }
}
