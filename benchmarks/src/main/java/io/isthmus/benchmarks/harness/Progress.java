package io.isthmus.benchmarks.harness;

import java.util.Locale;

/** Progress on stderr: one line per broker run of a case, with elapsed time and its headline figures. */
final class Progress {
    private final int total;
    private final long start = System.nanoTime();
    private int done;

    Progress(final int total) {
        this.total = total;
    }

    void note(final String message) {
        System.err.printf(Locale.ROOT, "[%s] %s%n", elapsed(), message);
    }

    void begin(final String what) {
        System.err.printf(Locale.ROOT, "[%s] (%d/%d) %-40s ... ", elapsed(), done + 1, total, what);
        System.err.flush();
    }

    void end(final String headline) {
        done++;
        System.err.println(headline);
    }

    private String elapsed() {
        final long seconds = (System.nanoTime() - start) / 1_000_000_000L;
        return String.format(Locale.ROOT, "%2d:%02d", seconds / 60, seconds % 60);
    }
}
