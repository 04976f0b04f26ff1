package io.isthmus.benchmarks.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a benchmark ran on: read from /proc and the JVM, so that every report says which machine it describes. */
public record MachineInfo(
        String cpuModel, int cores, long memoryBytes, String kernel, String jdk, String vm, String os) {

    public static MachineInfo collect() {
        return new MachineInfo(
                readCpuModel(),
                Runtime.getRuntime().availableProcessors(),
                readMemoryBytes(),
                firstLine(Path.of("/proc/sys/kernel/osrelease"), System.getProperty("os.version")),
                Runtime.version().toString(),
                System.getProperty("java.vm.name") + " (" + System.getProperty("java.vm.vendor") + ")",
                System.getProperty("os.name") + " " + System.getProperty("os.arch"));
    }

    public Map<String, Object> asMap() {
        final Map<String, Object> map = new LinkedHashMap<>();
        map.put("cpu_model", cpuModel);
        map.put("cores", cores);
        map.put("memory_bytes", memoryBytes);
        map.put("kernel", kernel);
        map.put("jdk", jdk);
        map.put("vm", vm);
        map.put("os", os);
        return map;
    }

    public String markdown() {
        return "| machine | |\n| --- | --- |\n"
                + "| CPU | " + cpuModel + ", " + cores + " cores visible to the JVM |\n"
                + "| memory | " + (memoryBytes >> 20) + " MiB |\n"
                + "| kernel | " + kernel + " |\n"
                + "| JDK | " + jdk + ", " + vm + " |\n";
    }

    private static String readCpuModel() {
        for (final String line : lines(Path.of("/proc/cpuinfo"))) {
            if (line.startsWith("model name")) {
                return line.substring(line.indexOf(':') + 1).trim();
            }
        }
        return "unknown";
    }

    private static long readMemoryBytes() {
        for (final String line : lines(Path.of("/proc/meminfo"))) {
            if (line.startsWith("MemTotal:")) {
                final String[] parts = line.trim().split("\\s+");
                return Long.parseLong(parts[1]) * 1024;
            }
        }
        return -1;
    }

    private static String firstLine(final Path path, final String fallback) {
        final List<String> lines = lines(path);
        return lines.isEmpty() ? fallback : lines.getFirst().trim();
    }

    private static List<String> lines(final Path path) {
        try {
            return Files.readAllLines(path);
        } catch (final IOException notLinux) {
            return List.of();
        }
    }
}
