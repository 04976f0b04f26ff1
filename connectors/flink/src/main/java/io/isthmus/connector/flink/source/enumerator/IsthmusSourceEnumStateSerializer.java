package io.isthmus.connector.flink.source.enumerator;

import io.isthmus.connector.flink.source.split.IsthmusPartitionSplit;
import io.isthmus.connector.flink.source.split.IsthmusPartitionSplitSerializer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.kafka.common.TopicPartition;

/**
 * Serializes the enumerator's {@link IsthmusSourceEnumState} into checkpoints.
 *
 * <pre>
 * version 1:
 *   assignedCount            int32
 *   assigned partitions      assignedCount x (topic UTF, partition int32)
 *   splitVersion             int32   (IsthmusPartitionSplitSerializer's version of the splits below)
 *   unassignedCount          int32
 *   unassigned splits        unassignedCount x split (IsthmusPartitionSplitSerializer.write)
 *   initialDiscoveryFinished boolean
 * </pre>
 */
public final class IsthmusSourceEnumStateSerializer implements SimpleVersionedSerializer<IsthmusSourceEnumState> {
    public static final int VERSION = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(final IsthmusSourceEnumState state) throws IOException {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(state.assignedPartitions().size());
            for (final TopicPartition partition : state.assignedPartitions()) {
                out.writeUTF(partition.topic());
                out.writeInt(partition.partition());
            }
            out.writeInt(IsthmusPartitionSplitSerializer.VERSION);
            out.writeInt(state.unassignedSplits().size());
            for (final IsthmusPartitionSplit split : state.unassignedSplits()) {
                IsthmusPartitionSplitSerializer.write(split, out);
            }
            out.writeBoolean(state.initialDiscoveryFinished());
        }
        return bytes.toByteArray();
    }

    @Override
    public IsthmusSourceEnumState deserialize(final int version, final byte[] serialized) throws IOException {
        if (version != VERSION) {
            throw new IOException(
                    "unknown isthmus enumerator state serializer version: " + version + ", known: " + VERSION);
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
            final int assignedCount = in.readInt();
            final Set<TopicPartition> assigned = new HashSet<>();
            for (int i = 0; i < assignedCount; i++) {
                assigned.add(new TopicPartition(in.readUTF(), in.readInt()));
            }
            final int splitVersion = in.readInt();
            final int unassignedCount = in.readInt();
            final Set<IsthmusPartitionSplit> unassigned = new HashSet<>();
            for (int i = 0; i < unassignedCount; i++) {
                unassigned.add(IsthmusPartitionSplitSerializer.read(splitVersion, in));
            }
            final boolean initialDiscoveryFinished = in.readBoolean();
            if (in.available() > 0) {
                throw new IOException("isthmus enumerator state has " + in.available() + " bytes too many");
            }
            return new IsthmusSourceEnumState(assigned, unassigned, initialDiscoveryFinished);
        }
    }
}
