package io.isthmus.metadata.quorum;

import java.nio.ByteBuffer;
import java.util.Set;
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
 * <p>The version written is the newest kafka-clients knows; the version is in the entry, so a voter with a newer
 * kafka-clients still reads an older log.
 */
public final class MetadataCommands {
    /** The controller requests the quorum applies. */
    public static final Set<ApiKeys> COMMANDS = Set.of(
            ApiKeys.BROKER_REGISTRATION,
            ApiKeys.BROKER_HEARTBEAT,
            ApiKeys.CREATE_TOPICS,
            ApiKeys.CREATE_PARTITIONS,
            ApiKeys.DELETE_TOPICS,
            ApiKeys.ALTER_PARTITION,
            ApiKeys.ALTER_PARTITION_REASSIGNMENTS,
            ApiKeys.ELECT_LEADERS);

    private static final int HEADER_BYTES = 4;

    private MetadataCommands() {}

    public static byte[] encode(ApiMessage message) {
        short version = message.highestSupportedVersion();
        ByteBuffer body = MessageUtil.toByteBufferAccessor(message, version).buffer();
        ByteBuffer out = ByteBuffer.allocate(HEADER_BYTES + body.remaining());
        out.putShort(message.apiKey()).putShort(version).put(body);
        return out.array();
    }

    /** Reads a command, refusing anything but {@link #COMMANDS}. */
    public static ApiMessage decodeCommand(ByteBuffer entry) {
        return decode(entry, true);
    }

    public static ApiMessage decodeAnswer(ByteBuffer entry) {
        return decode(entry, false);
    }

    private static ApiMessage decode(ByteBuffer entry, boolean request) {
        if (entry.remaining() < HEADER_BYTES) {
            throw new IllegalArgumentException("a metadata " + (request ? "command" : "answer") + " of "
                    + entry.remaining() + " bytes is shorter than its " + HEADER_BYTES + "-byte header");
        }
        short apiKey = entry.getShort();
        short version = entry.getShort();
        if (!ApiKeys.hasId(apiKey) || (request && !COMMANDS.contains(ApiKeys.forId(apiKey)))) {
            throw new IllegalArgumentException(
                    "api key " + apiKey + " is not a metadata command; the quorum applies " + COMMANDS);
        }
        ApiMessageType type = ApiMessageType.fromApiKey(apiKey);
        ApiMessage message = request ? type.newRequest() : type.newResponse();
        if (version < message.lowestSupportedVersion() || version > message.highestSupportedVersion()) {
            throw new IllegalArgumentException(type + " version " + version + " is outside the supported "
                    + message.lowestSupportedVersion() + ".." + message.highestSupportedVersion());
        }
        message.read(new ByteBufferAccessor(entry.slice()), version);
        return message;
    }
}
