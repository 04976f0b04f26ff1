package io.isthmus.metadata.quorum;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;

/**
 * How a command and its answer travel through the quorum: as Kafka's own controller request and response messages.
 *
 * <p>Each quorum log entry (and each answer) is one message:
 *
 * <pre>
 *   0        2        4
 *   +--------+--------+-------------------------------------+
 *   | apiKey | version| the message body, Kafka's encoding  |
 *   +--------+--------+-------------------------------------+
 *   int16 big-endian, as on Kafka's wire
 * </pre>
 *
 * <p>An answer whose api key is {@link #REFUSAL} carries instead the UTF-8 reason a command could not be applied.
 *
 * <p>The versions written are pinned in {@link #VERSIONS}, not taken from whatever kafka-clients is on the class
 * path: a voter must never log an entry another voter of the same cluster cannot read (it would stop that voter), so
 * moving to a newer version is a deliberate change, made only once every voter reads it.
 */
public final class MetadataCommands {
    /** The controller requests the quorum applies, each with the version it writes (kafka-clients 4.4's newest). */
    static final Map<ApiKeys, Short> VERSIONS = Map.of(
            ApiKeys.BROKER_REGISTRATION, (short) 4,
            ApiKeys.BROKER_HEARTBEAT, (short) 2,
            ApiKeys.CREATE_TOPICS, (short) 7,
            ApiKeys.CREATE_PARTITIONS, (short) 3,
            ApiKeys.DELETE_TOPICS, (short) 6,
            ApiKeys.ALTER_PARTITION, (short) 3,
            ApiKeys.ALTER_PARTITION_REASSIGNMENTS, (short) 1,
            ApiKeys.ELECT_LEADERS, (short) 2,
            ApiKeys.ALLOCATE_PRODUCER_IDS, (short) 0);

    public static final Set<ApiKeys> COMMANDS = VERSIONS.keySet();

    /** The api key of an answer that refuses a command which could not be applied. */
    static final short REFUSAL = -1;

    private static final int HEADER_BYTES = 4;

    private MetadataCommands() {}

    /** Encodes a command, or the answer to one, at the pinned version of its api. */
    public static byte[] encode(ApiMessage message) {
        Short version = VERSIONS.get(ApiKeys.forId(message.apiKey()));
        if (version == null) {
            throw new IllegalArgumentException(ApiKeys.forId(message.apiKey()) + " is not a metadata command");
        }
        ByteBuffer body = MessageUtil.toByteBufferAccessor(message, version).buffer();
        ByteBuffer out = ByteBuffer.allocate(HEADER_BYTES + body.remaining());
        out.putShort(message.apiKey()).putShort(version).put(body);
        return out.array();
    }

    /** The answer to a command that could not be applied: the reason, for the sender. */
    static byte[] encodeRefusal(String reason) {
        byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(HEADER_BYTES + text.length)
                .putShort(REFUSAL)
                .putShort((short) 0)
                .put(text)
                .array();
    }

    /** Reads a command, refusing anything but {@link #COMMANDS}. */
    public static ApiMessage decodeCommand(ByteBuffer entry) {
        return decode(entry, true);
    }

    /**
     * Reads an answer.
     *
     * @throws UnknownServerException with the quorum's reason, for a refusal
     */
    public static ApiMessage decodeAnswer(ByteBuffer entry) {
        if (entry.remaining() >= HEADER_BYTES && entry.getShort(entry.position()) == REFUSAL) {
            ByteBuffer text = entry.duplicate().position(entry.position() + HEADER_BYTES);
            throw new UnknownServerException(
                    "the metadata quorum could not apply the command: " + StandardCharsets.UTF_8.decode(text));
        }
        return decode(entry, false);
    }

    private static ApiMessage decode(ByteBuffer entry, boolean request) {
        if (entry.remaining() < HEADER_BYTES) {
            throw new IllegalArgumentException("a metadata " + (request ? "command" : "answer") + " of "
                    + entry.remaining() + " bytes is shorter than its " + HEADER_BYTES + "-byte header");
        }
        short apiKey = entry.getShort();
        short version = entry.getShort();
        if (!ApiKeys.hasId(apiKey) || !COMMANDS.contains(ApiKeys.forId(apiKey))) {
            throw new IllegalArgumentException(
                    "api key " + apiKey + " is not a metadata command; the quorum applies " + COMMANDS);
        }
        ApiMessageType type = ApiMessageType.fromApiKey(apiKey);
        ApiMessage message = request ? type.newRequest() : type.newResponse();
        // Above the pinned version is refused too: a voter with an older kafka-clients could not read it.
        if (version < message.lowestSupportedVersion() || version > VERSIONS.get(ApiKeys.forId(apiKey))) {
            throw new IllegalArgumentException(type + " version " + version + " is outside the supported "
                    + message.lowestSupportedVersion() + ".." + message.highestSupportedVersion());
        }
        message.read(new ByteBufferAccessor(entry.slice()), version);
        return message;
    }
}
