package io.isthmus.connector.flink.sink;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Version 1: the prefix (modified UTF-8, {@link DataOutputStream#writeUTF}), then the subtask id (int32). A later
 * version must still read version 1, or checkpoints taken before it cannot be restored.
 */
final class IsthmusWriterStateSerializer implements SimpleVersionedSerializer<IsthmusWriterState> {
    static final int VERSION = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(final IsthmusWriterState state) throws IOException {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(state.transactionalIdPrefix());
            out.writeInt(state.subtaskId());
        }
        return bytes.toByteArray();
    }

    @Override
    public IsthmusWriterState deserialize(final int version, final byte[] serialized) throws IOException {
        if (version != VERSION) {
            throw new IOException(
                    "unknown isthmus writer state version " + version + " (this sink reads " + VERSION + ")");
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
            return new IsthmusWriterState(in.readUTF(), in.readInt());
        }
    }
}
