package io.isthmus.fuzz;

import io.isthmus.protocol.control.ControlApiKeys;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslHandshakeRequest;

/**
 * Generates request frames: an API key (every Kafka API with a request schema, and isthmus's control keys), a version
 * (mostly one the schema has, sometimes not), a request header, a body from the API's real schema ({@link
 * SchemaFuzzer}), then, for some frames, a mutation of the whole frame (a wrong size prefix, a cut, bytes flipped or
 * inserted, the version or key swapped).
 *
 * <p>Not thread-safe: one generator per connection, each with its own seed, so a run is reproducible per seed.
 */
final class FrameGenerator {
    /** A frame and its correlation id. */
    record Frame(byte[] bytes, int correlationId, boolean mutated) {}

    private static final short SYNC_VERSION = 3;

    private final HostileValues values;
    private final SchemaFuzzer schemas;
    private final double frameMutationProbability;
    private final List<ApiKeys> apis = new ArrayList<>();
    private final FrameBuffer buffer = new FrameBuffer(4096);
    private final boolean saslListener;
    private int nextCorrelationId;

    /**
     * @param lieProbability the chance that any one length or count inside a body is wrong
     * @param frameMutationProbability the chance that a whole frame is damaged after it is built
     */
    FrameGenerator(final long seed, final double lieProbability, final double frameMutationProbability) {
        this(seed, lieProbability, frameMutationProbability, false);
    }

    /**
     * @param saslListener whether the frames go to a SASL listener: then most are SaslHandshake and SaslAuthenticate
     *     requests with hostile mechanisms and tokens (SCRAM and PLAIN messages bent out of shape, garbage), since
     *     anything else before authentication only closes the connection
     */
    FrameGenerator(
            final long seed,
            final double lieProbability,
            final double frameMutationProbability,
            final boolean saslListener) {
        this.saslListener = saslListener;
        this.values = new HostileValues(new SplittableRandom(seed), 8);
        this.schemas = new SchemaFuzzer(values, new RecordsFuzzer(values), lieProbability);
        this.frameMutationProbability = frameMutationProbability;
        for (final ApiKeys api : ApiKeys.values()) {
            if (api.messageType.requestSchemas().length > 0) {
                apis.add(api);
            }
        }
    }

    /** The APIs frames are drawn from. */
    List<ApiKeys> apis() {
        return List.copyOf(apis);
    }

    Frame next() {
        buffer.clear();
        final int correlationId = nextCorrelationId++;
        buffer.putInt(0); // the size, set below
        if (saslListener && values.chance(0.9)) {
            writeSaslRequest(correlationId);
        } else if (values.chance(0.01)) {
            writeControlRequest(correlationId);
        } else {
            writeKafkaRequest(correlationId);
        }
        buffer.setInt(0, buffer.length() - 4);
        final boolean mutate = values.chance(frameMutationProbability);
        if (mutate) {
            mutate();
        }
        return new Frame(buffer.toArray(), correlationId, mutate);
    }

    /** A valid ApiVersions request: its answer proves that every frame sent before it on the connection was read. */
    Frame sync() {
        buffer.clear();
        final int correlationId = nextCorrelationId++;
        buffer.putInt(0);
        buffer.putShort(ApiKeys.API_VERSIONS.id).putShort(SYNC_VERSION).putInt(correlationId);
        buffer.putShort(4).putBytes(HostileValues.utf8("sync"));
        buffer.putUnsignedVarint(0); // header tagged fields
        buffer.putUnsignedVarint(5).putBytes(HostileValues.utf8("fuzz")); // client_software_name
        buffer.putUnsignedVarint(4).putBytes(HostileValues.utf8("1.0")); // client_software_version
        buffer.putUnsignedVarint(0);
        buffer.setInt(0, buffer.length() - 4);
        return new Frame(buffer.toArray(), correlationId, false);
    }

    private void writeKafkaRequest(final int correlationId) {
        final ApiKeys api = apis.get(values.nextInt(apis.size()));
        final Schema[] versions = api.messageType.requestSchemas();
        final short version =
                (short) (api.oldestVersion() + values.nextInt(api.latestVersion() - api.oldestVersion() + 1));
        final short headerVersion = api.requestHeaderVersion(version);
        buffer.putShort(api.id).putShort(version).putInt(correlationId);
        if (headerVersion >= 1) {
            if (values.chance(0.05)) {
                buffer.putShort(-1); // a null client id, which Kafka allows
            } else {
                final byte[] clientId = HostileValues.utf8(values.aName());
                buffer.putShort(clientId.length).putBytes(clientId);
            }
        }
        if (headerVersion >= 2) {
            buffer.putUnsignedVarint(0);
        }
        final Schema schema = version >= 0 && version < versions.length ? versions[version] : null;
        if (schema != null) {
            schemas.write(buffer, schema);
        } else {
            buffer.putBytes(values.someBytes(64));
        }
    }

    private static final String[] MECHANISMS = {"SCRAM-SHA-256", "SCRAM-SHA-512", "PLAIN", "GSSAPI", "OAUTHBEARER"};

    /** A SaslHandshake or SaslAuthenticate, well framed, with a mechanism or token a careless or hostile client sends. */
    private void writeSaslRequest(final int correlationId) {
        final AbstractRequest request;
        if (values.chance(0.5)) {
            final String mechanism =
                    values.chance(0.8) ? MECHANISMS[values.nextInt(MECHANISMS.length)] : values.aName();
            request = new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism(mechanism))
                    .build((short) (values.nextInt(2)));
        } else {
            request = new SaslAuthenticateRequest.Builder(new SaslAuthenticateRequestData().setAuthBytes(saslToken()))
                    .build((short) values.nextInt(3));
        }
        final ByteBuffer framed = request.serializeWithHeader(
                new RequestHeader(request.apiKey(), request.version(), values.aName(), correlationId));
        final byte[] bytes = new byte[framed.remaining()];
        framed.get(bytes);
        buffer.putBytes(bytes);
    }

    private byte[] saslToken() {
        final String user = values.aName();
        final String nonce = values.aName();
        final String token =
                switch (values.nextInt(7)) {
                    case 0 -> "n,,n=" + user + ",r=" + nonce; // a SCRAM client-first, names and nonces hostile
                    case 1 -> "n,a=" + user + ",n=" + user + ",r=" + nonce + ",ext=" + values.aName();
                    case 2 -> "c=biws,r=" + nonce + ",p=" + values.aName(); // a client-final out of turn or forged
                    case 3 -> "\u0000" + user + "\u0000" + values.aName(); // PLAIN
                    case 4 -> user + "\u0000\u0000\u0000";
                    case 5 -> "";
                    default -> new String(values.someBytes(64), java.nio.charset.StandardCharsets.ISO_8859_1);
                };
        return token.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private void writeControlRequest(final int correlationId) {
        final short key =
                (short) (ControlApiKeys.FIRST + values.nextInt(ControlApiKeys.LAST - ControlApiKeys.FIRST + 1));
        buffer.putShort(key).putShort(values.chance(0.9) ? ControlApiKeys.VERSION : values.anInt());
        buffer.putInt(correlationId);
        final byte[] clientId = HostileValues.utf8(values.aName());
        buffer.putShort(clientId.length).putBytes(clientId);
        buffer.putUnsignedVarint(0);
        buffer.putBytes(values.someBytes(80));
    }

    private void mutate() {
        final int length = buffer.length();
        switch (values.nextInt(7)) {
            case 0 -> buffer.setInt(0, values.aLength(length - 4, 1.0)); // a size prefix that lies
            case 1 -> {
                // Cut short, the size prefix still claiming the rest: the broker waits for bytes that never come.
                buffer.truncate(4 + values.nextInt(Math.max(1, length - 4)));
            }
            case 2 -> {
                final int flips = 1 + values.nextInt(4);
                for (int i = 0; i < flips; i++) {
                    final int at = 4 + values.nextInt(Math.max(1, length - 4));
                    buffer.setByte(at, (byte) (buffer.byteAt(at) ^ (1 << values.nextInt(8))));
                }
            }
            case 3 -> {
                buffer.insert(4 + values.nextInt(Math.max(1, length - 4)), (byte) 0xFF, 1 + values.nextInt(8));
                buffer.setInt(0, buffer.length() - 4);
            }
            case 4 -> {
                buffer.setByte(6, (byte) values.anInt()); // the version's high byte
                buffer.setByte(7, (byte) values.anInt());
            }
            case 5 -> {
                buffer.setByte(4, (byte) values.nextInt(256)); // the API key
                buffer.setByte(5, (byte) values.nextInt(256));
            }
            default -> {
                buffer.truncate(4 + values.nextInt(Math.max(1, Math.min(12, length - 4))));
                buffer.setInt(0, buffer.length() - 4); // a whole frame that ends inside the header
            }
        }
    }
}
