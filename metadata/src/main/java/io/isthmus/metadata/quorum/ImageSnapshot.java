package io.isthmus.metadata.quorum;

import io.isthmus.metadata.image.BrokerEndpoint;
import io.isthmus.metadata.image.BrokerRegistration;
import io.isthmus.metadata.image.ClusterImage;
import io.isthmus.metadata.image.PartitionState;
import io.isthmus.metadata.image.TopicImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import java.util.zip.CheckedOutputStream;
import org.apache.kafka.common.Uuid;

/**
 * A cluster image in bytes: what a quorum snapshot holds, so a voter restarts (or a lagging one catches up) without
 * replaying the whole log, and what a broker-only node is sent ({@link ImageFetch}).
 *
 * <p>Big-endian throughout ({@link DataOutputStream}); a string is its UTF-8 bytes after an unsigned 2-byte length,
 * and a null string is the length 0xFFFF alone:
 *
 * <pre>
 *   magic   int32  0x49534D44 ("ISMD")
 *   version int16  2
 *   applied int64  the quorum log index the image includes
 *   brokers int32  count, then per broker:
 *       id int32 | epoch int64 | incarnation 2 x int64 | fenced byte (0 no, 1 yes, 2 yes and shutting down)
 *       | fencedAt int64 (the log index of the command that last fenced it) | rack string
 *       endpoints int32, then per endpoint: listener string | host string | port int32 | securityProtocol int16
 *   topics  int32  count, then per topic:
 *       name string | id 2 x int64 | partitions int32, then per partition:
 *           leader int32 | leaderEpoch int32 | partitionEpoch int32
 *           replicas, isr, addingReplicas, removingReplicas: each int32 count + that many int32
 *   crc     int32  CRC32C of every byte before it
 * </pre>
 *
 * <p>Written to a temporary file and moved into place, so a crash leaves the previous snapshot or the new one,
 * never half of one. The CRC is checked before anything is parsed, so a torn or altered file is refused with its
 * path in the message and never half-read.
 */
final class ImageSnapshot {
    static final int MAGIC = 0x49534D44;
    static final short VERSION = 2;
    private static final int NULL_STRING = 0xFFFF;

    private ImageSnapshot() {}

    static void write(ClusterImage image, Path file) throws IOException {
        byte[] bytes = encode(image);
        // Durable before Ratis may purge the log the snapshot replaces.
        DurableFile.replace(file, out -> out.write(bytes));
    }

    static ClusterImage read(Path file) throws IOException {
        return decode(Files.readAllBytes(file), "metadata snapshot " + file);
    }

    /** The image in the layout above, checksum included: what a snapshot file holds and an observer is sent. */
    static byte[] encode(ClusterImage image) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CRC32C crc = new CRC32C();
        DataOutputStream out = new DataOutputStream(new CheckedOutputStream(bytes, crc));
        writeImage(image, out);
        out.flush();
        new DataOutputStream(bytes).writeInt((int) crc.getValue());
        return bytes.toByteArray();
    }

    /**
     * Reads an image {@link #encode} wrote, checking the CRC before anything is parsed.
     *
     * @param source what the bytes are, for the messages: a snapshot file, an answer from a voter
     * @throws IOException naming {@code source} if the bytes are torn, altered or not an image this build reads
     */
    static ClusterImage decode(byte[] bytes, String source) throws IOException {
        if (bytes.length < Integer.BYTES) {
            throw new IOException(
                    source + " has " + bytes.length + " bytes, too few for its checksum: torn or" + " truncated");
        }
        int bodyLength = bytes.length - Integer.BYTES;
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bodyLength);
        int stored = ByteBuffer.wrap(bytes, bodyLength, Integer.BYTES).getInt();
        if (stored != (int) crc.getValue()) {
            throw new IOException(source + " fails its CRC32C (stored " + Integer.toHexString(stored) + ", computed "
                    + Integer.toHexString((int) crc.getValue()) + "): torn, truncated or altered");
        }
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes, 0, bodyLength));
        try {
            ClusterImage image = readImage(in, source);
            if (in.available() != 0) {
                throw new IOException(source + " has " + in.available() + " bytes after its image");
            }
            return image;
        } catch (EOFException e) {
            throw new IOException(source + " ends inside its image", e);
        } catch (IllegalArgumentException e) {
            throw new IOException(source + " holds an impossible image: " + e.getMessage(), e);
        }
    }

    private static void writeImage(ClusterImage image, DataOutputStream out) throws IOException {
        out.writeInt(MAGIC);
        out.writeShort(VERSION);
        out.writeLong(image.appliedIndex());
        out.writeInt(image.brokers().size());
        for (BrokerRegistration b : image.brokers().values()) {
            out.writeInt(b.id());
            out.writeLong(b.epoch());
            writeUuid(b.incarnationId(), out);
            out.writeByte(b.shuttingDown() ? 2 : b.fenced() ? 1 : 0);
            out.writeLong(b.fencedAt());
            writeString(b.rack(), out);
            out.writeInt(b.endpoints().size());
            for (BrokerEndpoint e : b.endpoints()) {
                writeString(e.listener(), out);
                writeString(e.host(), out);
                out.writeInt(e.port());
                out.writeShort(e.securityProtocol());
            }
        }
        out.writeInt(image.topics().size());
        for (TopicImage t : image.topics().values()) {
            writeString(t.name(), out);
            writeUuid(t.id(), out);
            out.writeInt(t.partitions().size());
            for (PartitionState p : t.partitions()) {
                out.writeInt(p.leader());
                out.writeInt(p.leaderEpoch());
                out.writeInt(p.partitionEpoch());
                writeInts(p.replicas(), out);
                writeInts(p.isr(), out);
                writeInts(p.addingReplicas(), out);
                writeInts(p.removingReplicas(), out);
            }
        }
    }

    private static ClusterImage readImage(DataInputStream in, String source) throws IOException {
        int magic = in.readInt();
        if (magic != MAGIC) {
            throw new IOException(source + " is not a metadata image: magic " + Integer.toHexString(magic)
                    + ", expected " + Integer.toHexString(MAGIC));
        }
        short version = in.readShort();
        if (version != VERSION) {
            throw new IOException(source + " has version " + version + "; this build reads " + VERSION);
        }
        long applied = in.readLong();
        TreeMap<Integer, BrokerRegistration> brokers = new TreeMap<>();
        for (int i = count(in, source); i > 0; i--) {
            int id = in.readInt();
            long epoch = in.readLong();
            Uuid incarnation = readUuid(in);
            byte fencing = in.readByte();
            if (fencing < 0 || fencing > 2) {
                throw new IOException(source + " holds fencing state " + fencing + " for broker " + id);
            }
            long fencedAt = in.readLong();
            String rack = readString(in);
            List<BrokerEndpoint> endpoints = new ArrayList<>();
            for (int e = count(in, source); e > 0; e--) {
                endpoints.add(new BrokerEndpoint(readString(in), readString(in), in.readInt(), in.readShort()));
            }
            brokers.put(
                    id,
                    new BrokerRegistration(
                            id, epoch, incarnation, endpoints, rack, fencing > 0, fencing == 2, fencedAt));
        }
        TreeMap<String, TopicImage> topics = new TreeMap<>();
        for (int i = count(in, source); i > 0; i--) {
            String name = readString(in);
            Uuid id = readUuid(in);
            List<PartitionState> partitions = new ArrayList<>();
            for (int p = count(in, source); p > 0; p--) {
                int leader = in.readInt();
                int leaderEpoch = in.readInt();
                int partitionEpoch = in.readInt();
                partitions.add(new PartitionState(
                        readInts(in, source),
                        readInts(in, source),
                        leader,
                        leaderEpoch,
                        partitionEpoch,
                        readInts(in, source),
                        readInts(in, source)));
            }
            topics.put(name, new TopicImage(name, id, partitions));
        }
        return new ClusterImage(applied, brokers, topics);
    }

    /** A count; the CRC was checked before parsing, so only a writer's bug could make one negative. */
    private static int count(DataInputStream in, String source) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            throw new IOException(source + " holds a negative count " + n);
        }
        return n;
    }

    private static void writeInts(List<Integer> values, DataOutputStream out) throws IOException {
        out.writeInt(values.size());
        for (int v : values) {
            out.writeInt(v);
        }
    }

    private static List<Integer> readInts(DataInputStream in, String source) throws IOException {
        int n = count(in, source);
        List<Integer> values = new ArrayList<>(Math.min(n, 1024));
        for (int i = 0; i < n; i++) {
            values.add(in.readInt());
        }
        return values;
    }

    private static void writeUuid(Uuid id, DataOutputStream out) throws IOException {
        out.writeLong(id.getMostSignificantBits());
        out.writeLong(id.getLeastSignificantBits());
    }

    private static Uuid readUuid(DataInputStream in) throws IOException {
        return new Uuid(in.readLong(), in.readLong());
    }

    private static void writeString(String s, DataOutputStream out) throws IOException {
        if (s == null) {
            out.writeShort(NULL_STRING);
            return;
        }
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        if (utf8.length >= NULL_STRING) {
            throw new IOException("a string of " + utf8.length + " bytes does not fit a metadata snapshot");
        }
        out.writeShort(utf8.length);
        out.write(utf8);
    }

    private static String readString(DataInputStream in) throws IOException {
        int length = in.readUnsignedShort();
        if (length == NULL_STRING) {
            return null;
        }
        byte[] utf8 = new byte[length];
        in.readFully(utf8);
        return new String(utf8, StandardCharsets.UTF_8);
    }
}
