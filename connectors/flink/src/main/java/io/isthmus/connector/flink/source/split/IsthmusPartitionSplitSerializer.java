package io.isthmus.connector.flink.source.split;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.kafka.common.TopicPartition;

/**
 * Serializes {@link IsthmusPartitionSplit}s into checkpoints.
 *
 * <pre>
 * version 1:
 *   topic            UTF (DataOutput.writeUTF)
 *   partition        int32
 *   startingOffset   int64
 *   stoppingOffset   int64   (Long.MIN_VALUE: none)
 * </pre>
 *
 * A change of layout is a new version; every version ever written stays readable.
 */
public final class IsthmusPartitionSplitSerializer implements SimpleVersionedSerializer<IsthmusPartitionSplit> {
    public static final int VERSION = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(final IsthmusPartitionSplit split) throws IOException {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            write(split, out);
        }
        return bytes.toByteArray();
    }

    @Override
    public IsthmusPartitionSplit deserialize(final int version, final byte[] serialized) throws IOException {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
            return read(version, in);
        }
    }

    /** Writes the current version's fields; the enumerator's state embeds splits this way. */
    public static void write(final IsthmusPartitionSplit split, final DataOutputStream out) throws IOException {
        out.writeUTF(split.partition().topic());
        out.writeInt(split.partition().partition());
        out.writeLong(split.startingOffset());
        out.writeLong(split.stoppingOffset());
    }

    /** Reads the fields of {@code version}. */
    public static IsthmusPartitionSplit read(final int version, final DataInputStream in) throws IOException {
        if (version != VERSION) {
            throw new IOException("unknown isthmus split serializer version: " + version + ", known: " + VERSION);
        }
        final String topic = in.readUTF();
        final int partition = in.readInt();
        final long start = in.readLong();
        final long stop = in.readLong();
        return new IsthmusPartitionSplit(new TopicPartition(topic, partition), start, stop);
    }
}
