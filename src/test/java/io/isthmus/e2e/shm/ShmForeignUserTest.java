package io.isthmus.e2e.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.isthmus.broker.Broker;
import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.e2e.EmbeddedBroker;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client of another OS user than the broker's, on the broker's host, is refused shared memory for producing and
 * consuming, with the reason, and {@code auto} gives it TCP, which works. The client runs as {@code nobody} ({@code
 * setpriv}, so the test needs root; elsewhere it is skipped and counted). The broker's directories are opened for
 * traversal on purpose, so what refuses the client is the token's owner-only mode, not an unreachable path.
 */
class ShmForeignUserTest {
    private static final String TOPIC = "foreign";

    @TempDir
    Path dir;

    @TempDir
    Path classPath;

    @Test
    void shouldRefuseSharedMemoryToAnotherOsUserAndLetAutoTakeTcp() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "switching to another OS user needs root");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "setpriv (util-linux) switches the user");
        final Path logs = dir.resolve("logs");
        try (Broker broker = EmbeddedBroker.start(logs)) {
            final String bootstrap = broker.bootstrapServers();
            try (IsthmusAdmin admin = new IsthmusAdmin(bootstrap)) {
                admin.createTopic(TOPIC, 1, (short) 1);
            }
            final Path shmDir = logs.resolve(".isthmus-shm");
            for (final Path open : List.of(dir, logs, shmDir)) {
                Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
            final List<String> command = new ArrayList<>(List.of(
                    "/usr/bin/setpriv",
                    "--reuid=65534",
                    "--regid=65534",
                    "--clear-groups",
                    "--",
                    ProcessHandle.current().info().command().orElseThrow(),
                    "-XX:-UsePerfData",
                    "--enable-native-access=ALL-UNNAMED",
                    "-cp",
                    readableClassPath(),
                    ShmForeignUserProcess.class.getName(),
                    bootstrap,
                    TOPIC));
            final Process child = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .directory(classPath.toFile())
                    .start();
            final String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(child.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(child.exitValue()).as(output).isZero();
            assertThat(output)
                    .contains("producer refused: shared-memory transport is not available")
                    .contains("consumer refused: shared-memory transport is not available")
                    .contains("auto consumer=TCP")
                    .contains("auto producer=TCP")
                    .contains("sent");
            assertThat(output.lines()
                            .filter(l -> l.contains(" refused: ")
                                    && l.contains("cannot read the broker's shared-memory token")
                                    && l.contains("AccessDeniedException")))
                    .as("both refusals name the token the other user may not read: " + output)
                    .hasSize(2);
            assertThat(broker.shm().sessionCount()).isZero();
            assertThat(broker.shm().produceGrantCount()).isZero();
            assertThat(broker.partitions()
                            .partition(new org.apache.kafka.common.TopicPartition(TOPIC, 0))
                            .orElseThrow()
                            .log()
                            .logEndOffset())
                    .as("the foreign user's record, over TCP")
                    .isEqualTo(1);
        }
    }

    /**
     * This JVM's class path with every entry the other user cannot read (the local Maven repository under root's home)
     * copied into a directory anyone can read.
     */
    private String readableClassPath() throws Exception {
        Files.setPosixFilePermissions(classPath, PosixFilePermissions.fromString("rwxr-xr-x"));
        final List<String> entries = new ArrayList<>();
        int copied = 0;
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            final Path path = Path.of(entry);
            if (!entry.startsWith(System.getProperty("user.home")) || !Files.isRegularFile(path)) {
                entries.add(entry);
                continue;
            }
            final Path copy = classPath.resolve(copied++ + "-" + path.getFileName());
            Files.copy(path, copy, StandardCopyOption.REPLACE_EXISTING);
            Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rw-r--r--"));
            entries.add(copy.toString());
        }
        return String.join(File.pathSeparator, entries);
    }
}
