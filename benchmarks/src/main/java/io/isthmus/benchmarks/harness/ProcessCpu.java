package io.isthmus.benchmarks.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * CPU time (user + system) of a process. On Linux it is read from {@code /proc/<pid>/stat} (fields 14 and 15, in clock
 * ticks of 1/100 s: the kernel's USER_HZ on every Linux architecture the JDK supports), elsewhere from {@link
 * ProcessHandle.Info#totalCpuDuration()}.
 */
public final class ProcessCpu {
    private static final long USER_HZ = 100;

    private ProcessCpu() {}

    public static Duration of(final long pid) {
        final Path stat = Path.of("/proc", Long.toString(pid), "stat");
        try {
            final String text = Files.readString(stat);
            // The command name (field 2) is in parentheses and may contain spaces: count fields after its ')'.
            final String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
            final long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            return Duration.ofMillis(ticks * 1000 / USER_HZ);
        } catch (final IOException | RuntimeException notProc) {
            return ProcessHandle.of(pid)
                    .flatMap(handle -> handle.info().totalCpuDuration())
                    .orElse(Duration.ZERO);
        }
    }
}
