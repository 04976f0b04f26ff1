package io.isthmus.metadata.quorum;

import io.isthmus.metadata.image.ClusterImage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;

/**
 * One voter in a JVM of its own, so a test can kill it with {@code kill -9} or pause it with {@code SIGSTOP}.
 *
 * <p>Every 50 ms it replaces its status file with one line: {@code leader=<bool> topics=<count>
 * digest=<sha-256 of the sorted topic names and ids>}.
 *
 * <p>Arguments: node id, cluster id, {@code controller.quorum.voters}, directory, status file.
 */
public final class VoterProcess {
    private VoterProcess() {}

    public static void main(String[] args) throws Exception {
        QuorumSettings settings = new QuorumSettings(
                Integer.parseInt(args[0]),
                args[1],
                QuorumVoter.parseAll(args[2]),
                Path.of(args[3]),
                Duration.ofMillis(500),
                // Sessions are not what this process is for: its test's one broker never heartbeats.
                Duration.ofHours(1),
                50,
                QuorumSettings.DEFAULT_LOG_SEGMENT_BYTES);
        Path status = Path.of(args[4]);
        Path tmp = status.resolveSibling(status.getFileName() + ".tmp");
        MetadataNode.format(settings);
        try (MetadataQuorum quorum = MetadataQuorum.start(settings)) {
            while (true) {
                Files.writeString(tmp, statusOf(quorum), StandardCharsets.UTF_8);
                Files.move(tmp, status, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                Thread.sleep(50);
            }
        }
    }

    static String statusOf(MetadataQuorum quorum) throws Exception {
        ClusterImage image = quorum.image();
        return "leader=" + quorum.isLeader() + " topics=" + image.topics().size() + " digest=" + digest(image);
    }

    static String digest(ClusterImage image) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        image.topics()
                .values()
                .forEach(t -> sha.update((t.name() + ' ' + t.id() + '\n').getBytes(StandardCharsets.UTF_8)));
        return HexFormat.of().formatHex(sha.digest());
    }
}
