package io.isthmus.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * The values a hostile or careless client puts in fields: edge integers, names that do and do not exist, strings a
 * topic name may not hold, and wrong lengths for anything that has one.
 *
 * <p>Names never reach {@link #MAX_RANDOM_NAME} characters unless they are deliberately long, so they cannot name the
 * well-behaved client's topic or group, which are longer: the fuzzer attacks the broker, not that client's data, which
 * an unauthenticated broker lets any client delete by name.
 */
final class HostileValues {
    /** Random names stay below this length; the well-behaved client's names are longer. */
    static final int MAX_RANDOM_NAME = 12;

    private static final int[] EDGE_INTS = {
        0, 1, -1, 2, Integer.MAX_VALUE, Integer.MIN_VALUE, Short.MAX_VALUE, Short.MIN_VALUE, 0xFFFF, 1 << 24, 1 << 30
    };
    private static final String NAME_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789._-";
    private static final String[] ODD_STRINGS = {"", ".", "..", " ", "a/b", "ä", "\u0000", "__consumer_offsets", "x\ny"
    };

    private final SplittableRandom random;
    /** Existing-looking names, so requests also reach real partitions, groups and transactions. */
    private final String[] pool;

    HostileValues(final SplittableRandom random, final int poolSize) {
        this.random = random;
        this.pool = new String[poolSize];
        for (int i = 0; i < poolSize; i++) {
            pool[i] = "fuzz-" + i;
        }
    }

    SplittableRandom random() {
        return random;
    }

    boolean chance(final double probability) {
        return random.nextDouble() < probability;
    }

    int nextInt(final int bound) {
        return random.nextInt(bound);
    }

    int anInt() {
        return switch (random.nextInt(4)) {
            case 0 -> EDGE_INTS[random.nextInt(EDGE_INTS.length)];
            case 1 -> random.nextInt();
            default -> random.nextInt(8);
        };
    }

    /** A timeout or wait: mostly short, so answers come back in time; now and then enormous. */
    int aDuration() {
        return chance(0.002) ? anInt() : random.nextInt(50);
    }

    long aLong() {
        return switch (random.nextInt(4)) {
            case 0 -> random.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE;
            case 1 -> random.nextLong();
            case 2 -> -1L;
            default -> random.nextInt(100);
        };
    }

    /** A name: a pool name half the time, else random, odd or very long. */
    String aName() {
        final int pick = random.nextInt(10);
        if (pick < 5) {
            return pool[random.nextInt(pool.length)];
        }
        if (pick < 8) {
            final int length = random.nextInt(MAX_RANDOM_NAME);
            final StringBuilder name = new StringBuilder(length);
            for (int i = 0; i < length; i++) {
                name.append(NAME_CHARS.charAt(random.nextInt(NAME_CHARS.length())));
            }
            return name.toString();
        }
        if (pick < 9) {
            return ODD_STRINGS[random.nextInt(ODD_STRINGS.length)];
        }
        return "long-" + "x".repeat(200 + random.nextInt(400));
    }

    byte[] someBytes(final int max) {
        final byte[] bytes = new byte[random.nextInt(max + 1)];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) random.nextInt(256);
        }
        return bytes;
    }

    /**
     * The length to write for something {@code actual} long: usually the truth, now and then a lie (past the end,
     * negative, short by one, enormous).
     */
    int aLength(final int actual, final double lieProbability) {
        if (!chance(lieProbability)) {
            return actual;
        }
        return switch (random.nextInt(6)) {
            case 0 -> actual + 1;
            case 1 -> Math.max(0, actual - 1);
            case 2 -> -2;
            case 3 -> Integer.MAX_VALUE;
            case 4 -> 0x7FFF;
            default -> random.nextInt();
        };
    }

    static byte[] utf8(final String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }
}
