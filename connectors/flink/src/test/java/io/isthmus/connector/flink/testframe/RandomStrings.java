package io.isthmus.connector.flink.testframe;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Test data for the suites: a seeded number of seeded random strings, so a failing case can be replayed. */
final class RandomStrings {
    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

    private RandomStrings() {}

    static List<String> generate(final String tag, final long seed) {
        final Random random = new Random(seed);
        final int count = 100 + random.nextInt(200);
        final List<String> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            final StringBuilder s = new StringBuilder(tag).append('-').append(i).append('-');
            final int length = random.nextInt(40);
            for (int c = 0; c < length; c++) {
                s.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
            }
            records.add(s.toString());
        }
        return records;
    }
}
