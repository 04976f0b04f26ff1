package io.isthmus.connector.flink.sink;

import io.isthmus.client.producer.TransactionHandle;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The exactly-once sink's committable, a prepared transaction's {@link TransactionHandle}, in checkpoints. Version 1:
 * producer id (int64), producer epoch (int16), transactional id (modified UTF-8), as Kafka's {@code
 * KafkaCommittableSerializer} orders them.
 */
final class TransactionHandleSerializer implements SimpleVersionedSerializer<TransactionHandle> {
    static final int VERSION = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(final TransactionHandle handle) throws IOException {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeLong(handle.producerId());
            out.writeShort(handle.producerEpoch());
            out.writeUTF(handle.transactionalId());
        }
        return bytes.toByteArray();
    }

    @Override
    public TransactionHandle deserialize(final int version, final byte[] serialized) throws IOException {
        if (version != VERSION) {
            throw new IOException(
                    "unknown isthmus committable version " + version + " (this sink reads " + VERSION + ")");
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
            final long producerId = in.readLong();
            final short epoch = in.readShort();
            return new TransactionHandle(in.readUTF(), producerId, epoch);
        }
    }
}
