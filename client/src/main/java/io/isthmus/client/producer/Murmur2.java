package io.isthmus.client.producer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The 32-bit murmur2 hash exactly as Kafka's {@code Utils.murmur2} computes it (seed {@code 0x9747b28c}, 4-byte
 * little-endian blocks), over {@code byte[]} or {@link MemorySegment}, allocating nothing. Kafka's default partitioner
 * maps a key to {@code toPositive(murmur2(key)) % partitions}.
 */
public final class Murmur2 {
    private static final int SEED = 0x9747b28c;
    private static final int M = 0x5bd1e995;
    private static final int R = 24;

    private Murmur2() {}

    public static int hash(final byte[] data) {
        return hash(MemorySegment.ofArray(data));
    }

    public static int hash(final MemorySegment data) {
        final long length = data.byteSize();
        if (length > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("key too large to hash: length=" + length);
        }
        final int n = (int) length;
        int h = SEED ^ n;
        final int blocks = n >>> 2;
        for (int i = 0; i < blocks; i++) {
            final long at = (long) i << 2;
            int k = (byteAt(data, at) & 0xff)
                    | ((byteAt(data, at + 1) & 0xff) << 8)
                    | ((byteAt(data, at + 2) & 0xff) << 16)
                    | ((byteAt(data, at + 3) & 0xff) << 24);
            k *= M;
            k ^= k >>> R;
            k *= M;
            h *= M;
            h ^= k;
        }
        final long tail = n & ~3L;
        switch (n & 3) {
            case 3:
                h ^= (byteAt(data, tail + 2) & 0xff) << 16;
            // fall through
            case 2:
                h ^= (byteAt(data, tail + 1) & 0xff) << 8;
            // fall through
            case 1:
                h ^= byteAt(data, tail) & 0xff;
                h *= M;
                break;
            default:
                break;
        }
        h ^= h >>> 13;
        h *= M;
        h ^= h >>> 15;
        return h;
    }

    private static byte byteAt(final MemorySegment data, final long offset) {
        return data.get(ValueLayout.JAVA_BYTE, offset);
    }

    /** Kafka's {@code Utils.toPositive}: clears the sign bit (not {@code Math.abs}, which fails for MIN_VALUE). */
    public static int toPositive(final int number) {
        return number & 0x7fffffff;
    }

    /** The partition Kafka's default partitioner picks for a non-null key. */
    public static int partitionForKey(final MemorySegment key, final int partitions) {
        return toPositive(hash(key)) % partitions;
    }

    /** The partition Kafka's default partitioner picks for a non-null key. */
    public static int partitionForKey(final byte[] key, final int partitions) {
        return toPositive(hash(key)) % partitions;
    }
}
