package io.isthmus.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.Broker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kcat (librdkafka 2.0, a non-Java Kafka client from Debian) produces a file of keyed records to an isthmus
 * broker and consumes it back identically. The launcher installs kcat; without it this test fails and says so.
 */
class KcatCompatibilityTest {
    private static final int RECORDS = 5_000;
    private static final int PARTITIONS = 3;

    @Test
    void shouldConsumeBackExactlyWhatKcatProduced(@TempDir final Path dir) throws Exception {
        final Path kcat = Path.of("/usr/bin/kcat");
        assertThat(kcat)
                .as("kcat is missing: run tools/ensure-packages.sh kcat")
                .isExecutable();
        final List<String> lines = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            lines.add("key-" + (i % 37) + ":value " + i + " \u00e9\u00e8 " + "z".repeat(i % 17));
        }
        final Path input = dir.resolve("input.txt");
        Files.write(input, lines, StandardCharsets.UTF_8);

        try (Broker broker = EmbeddedBroker.start(dir.resolve("logs"), "num.partitions=" + PARTITIONS)) {
            final String bootstrap = broker.bootstrapServers();
            run(dir, kcat.toString(), "-P", "-b", bootstrap, "-t", "kcat", "-K:", "-z", "lz4", "-l", input.toString());
            final List<String> consumed = run(
                    dir,
                    kcat.toString(),
                    "-C",
                    "-b",
                    bootstrap,
                    "-t",
                    "kcat",
                    "-o",
                    "beginning",
                    "-e",
                    "-q",
                    "-f",
                    "%k:%s\\n");

            assertThat(consumed).containsExactlyInAnyOrderElementsOf(lines);
            // Records of one key share a partition, so their order is kept.
            assertThat(perKey(consumed)).isEqualTo(perKey(lines));
        }
    }

    private static Map<String, List<String>> perKey(final List<String> lines) {
        final Map<String, List<String>> byKey = new HashMap<>();
        for (final String line : lines) {
            byKey.computeIfAbsent(line.substring(0, line.indexOf(':')), k -> new ArrayList<>())
                    .add(line);
        }
        return byKey;
    }

    static List<String> run(final Path dir, final String... command) throws IOException, InterruptedException {
        final Path out = Files.createTempFile(dir, "kcat", ".out");
        final Path err = Files.createTempFile(dir, "kcat", ".err");
        final Process process = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        assertThat(process.waitFor(90, TimeUnit.SECONDS))
                .as("kcat did not finish: %s", String.join(" ", command))
                .isTrue();
        assertThat(process.exitValue())
                .as("kcat failed: %s%n%s", String.join(" ", command), Files.readString(err))
                .isZero();
        return Files.readAllLines(out, StandardCharsets.UTF_8);
    }
}
