package io.isthmus.broker.log;

import java.nio.file.Path;

/**
 * File names in a partition directory, as Kafka lays them out: each segment is three files named by its base offset
 * zero-padded to 20 digits ({@code 00000000000000000000.log}, {@code .index}, {@code .timeindex}); a segment removed
 * by retention keeps its files under an extra {@code .deleted} suffix until the last reader lets go; a clean shutdown
 * leaves {@code .clean_shutdown}.
 */
public final class LogFileNames {
    public static final String LOG_SUFFIX = ".log";
    public static final String INDEX_SUFFIX = ".index";
    public static final String TIME_INDEX_SUFFIX = ".timeindex";
    public static final String DELETED_SUFFIX = ".deleted";
    public static final String CLEAN_SHUTDOWN_FILE = ".clean_shutdown";

    private static final int OFFSET_DIGITS = 20;

    private LogFileNames() {}

    public static String fileName(final long baseOffset, final String suffix) {
        final String digits = Long.toString(baseOffset);
        return "0".repeat(OFFSET_DIGITS - digits.length()) + digits + suffix;
    }

    public static Path logFile(final Path dir, final long baseOffset) {
        return dir.resolve(fileName(baseOffset, LOG_SUFFIX));
    }

    public static Path indexFile(final Path dir, final long baseOffset) {
        return dir.resolve(fileName(baseOffset, INDEX_SUFFIX));
    }

    public static Path timeIndexFile(final Path dir, final long baseOffset) {
        return dir.resolve(fileName(baseOffset, TIME_INDEX_SUFFIX));
    }

    /** Base offset named by {@code fileName} if it is a segment file with {@code suffix}, else -1. */
    public static long baseOffsetOf(final String fileName, final String suffix) {
        if (!fileName.endsWith(suffix) || fileName.length() != OFFSET_DIGITS + suffix.length()) {
            return -1;
        }
        for (int i = 0; i < OFFSET_DIGITS; i++) {
            if (!Character.isDigit(fileName.charAt(i))) {
                return -1;
            }
        }
        try {
            return Long.parseLong(fileName, 0, OFFSET_DIGITS, 10);
        } catch (final NumberFormatException ex) {
            return -1;
        }
    }
}
