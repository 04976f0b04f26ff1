package io.isthmus.metadata.quorum;

import io.isthmus.metadata.image.ClusterImage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Optional;

/**
 * How a broker-only node ({@link MetadataObserver}) follows the metadata: a read-only query to the quorum's leader
 * that waits until the leader has applied past the index the node already has, or until the node's wait is over, and
 * answers the whole image when it is newer. It is a long poll, as Kafka's observers fetch the metadata log; what
 * travels is the image itself rather than the log entries, because Ratis keeps its log to its voters.
 *
 * <p>Framed as the quorum's other messages ({@link MetadataCommands}: an int16 api key, an int16 version), under an
 * api key of its own that no Kafka api uses, so it can never be taken for a command and logged:
 *
 * <pre>
 *   query:  apiKey int16 = -2 | version int16 = 0 | have int64 (the applied index the node holds) | waitMs int32
 *   answer: apiKey int16 = -2 | version int16 = 0 | newer byte (0 no, 1 yes) | if newer: the image, as
 *           {@link ImageSnapshot} encodes it (its applied index and CRC32C included)
 * </pre>
 */
final class ImageFetch {
    /** The api key of the query and its answer. */
    static final short API_KEY = -2;

    static final short VERSION = 0;

    /** The longest a query may wait: under the quorum client's request timeout, so a wait is never a failure. */
    static final Duration MAX_WAIT = Duration.ofSeconds(1);

    private static final int HEADER_BYTES = 4;
    private static final int QUERY_BYTES = HEADER_BYTES + Long.BYTES + Integer.BYTES;

    private ImageFetch() {}

    /** What a node asks: an image newer than {@code have}, waiting up to {@code waitMs} for one. */
    record Query(long have, int waitMs) {}

    /** Whether {@code message} is an image fetch (query or answer), by its api key. */
    static boolean isImageFetch(ByteBuffer message) {
        return message.remaining() >= Short.BYTES && message.getShort(message.position()) == API_KEY;
    }

    static byte[] encodeQuery(long have, Duration wait) {
        int waitMs = (int) Math.min(MAX_WAIT.toMillis(), Math.max(0, wait.toMillis()));
        return ByteBuffer.allocate(QUERY_BYTES)
                .putShort(API_KEY)
                .putShort(VERSION)
                .putLong(have)
                .putInt(waitMs)
                .array();
    }

    /** @throws IllegalArgumentException for anything but a well-formed query of this version */
    static Query decodeQuery(ByteBuffer query) {
        if (query.remaining() != QUERY_BYTES) {
            throw new IllegalArgumentException(
                    "an image fetch of " + query.remaining() + " bytes; it has " + QUERY_BYTES);
        }
        ByteBuffer in = query.duplicate();
        checkHeader(in);
        long have = in.getLong();
        int waitMs = in.getInt();
        if (waitMs < 0 || waitMs > MAX_WAIT.toMillis()) {
            throw new IllegalArgumentException(
                    "an image fetch waiting " + waitMs + " ms; at most " + MAX_WAIT.toMillis() + " ms");
        }
        return new Query(have, waitMs);
    }

    /** The answer that the leader has applied nothing past what the node holds. */
    static final byte[] NOTHING_NEWER = ByteBuffer.allocate(HEADER_BYTES + 1)
            .putShort(API_KEY)
            .putShort(VERSION)
            .put((byte) 0)
            .array();

    /** The answer carrying a newer image, {@code encodedImage} as {@link ImageSnapshot#encode} wrote it. */
    static byte[] newerAnswer(byte[] encodedImage) {
        return ByteBuffer.allocate(HEADER_BYTES + 1 + encodedImage.length)
                .putShort(API_KEY)
                .putShort(VERSION)
                .put((byte) 1)
                .put(encodedImage)
                .array();
    }

    /**
     * The image an answer carries, empty if the leader had nothing newer.
     *
     * @throws IOException if the answer is torn or not an image this build reads
     */
    static Optional<ClusterImage> decodeAnswer(ByteBuffer answer) throws IOException {
        ByteBuffer in = answer.duplicate();
        try {
            checkHeader(in);
            byte newer = in.get();
            if (newer == 0 && !in.hasRemaining()) {
                return Optional.empty();
            }
            if (newer != 1) {
                throw new IllegalArgumentException("an image fetch answer flagged " + newer);
            }
        } catch (IllegalArgumentException | java.nio.BufferUnderflowException e) {
            throw new IOException("a malformed image fetch answer: " + e.getMessage(), e);
        }
        byte[] image = new byte[in.remaining()];
        in.get(image);
        return Optional.of(ImageSnapshot.decode(image, "the image a metadata voter sent"));
    }

    private static void checkHeader(ByteBuffer in) {
        if (in.remaining() < HEADER_BYTES) {
            throw new IllegalArgumentException("an image fetch message of " + in.remaining() + " bytes");
        }
        short apiKey = in.getShort();
        short version = in.getShort();
        if (apiKey != API_KEY || version != VERSION) {
            throw new IllegalArgumentException("api key " + apiKey + " version " + version + " is not an image fetch"
                    + " (api key " + API_KEY + ", version " + VERSION + ")");
        }
    }
}
