package io.isthmus.cli;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Shows produce/consume progress on a stream: a {@code \r}-updated bar on a terminal, a line every few seconds
 * otherwise (logs, CI). Runs on its own daemon thread until {@link #stop()}.
 */
final class ProgressReporter implements Runnable {
    private static final int BAR_WIDTH = 30;

    private final PrintStream out;
    private final boolean terminal;
    private final long total;
    private final AtomicLong produced;
    private final AtomicLong consumed;
    private volatile boolean running = true;
    private Thread thread;

    ProgressReporter(
            final PrintStream out,
            final boolean terminal,
            final long total,
            final AtomicLong produced,
            final AtomicLong consumed) {
        this.out = out;
        this.terminal = terminal;
        this.total = total;
        this.produced = produced;
        this.consumed = consumed;
    }

    void start() {
        thread = Thread.ofPlatform().name("isthmus-demo-progress").daemon(true).start(this);
    }

    @Override
    public void run() {
        final long intervalMs = terminal ? 200 : 2000;
        while (running) {
            try {
                Thread.sleep(intervalMs);
            } catch (final InterruptedException e) {
                return;
            }
            if (running) {
                print();
            }
        }
    }

    private void print() {
        final long p = produced.get();
        final long c = consumed.get();
        if (terminal) {
            final int filled = (int) (BAR_WIDTH * c / Math.max(1, total));
            out.print(String.format(
                    Locale.ROOT,
                    "\r[%s%s] %3d%%  produced %,d  consumed %,d",
                    "#".repeat(filled),
                    " ".repeat(BAR_WIDTH - filled),
                    100 * c / Math.max(1, total),
                    p,
                    c));
        } else {
            out.println(String.format(
                    Locale.ROOT, "progress: produced=%d consumed=%d total=%d (%d%%)", p, c, total, 100 * c / total));
        }
        out.flush();
    }

    void stop() {
        running = false;
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(1000);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        print();
        if (terminal) {
            out.println();
        }
    }
}
