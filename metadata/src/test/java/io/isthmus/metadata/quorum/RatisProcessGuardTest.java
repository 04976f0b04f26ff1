package io.isthmus.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.ratis.util.ExitUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ratis would end the JVM on a port it cannot bind, or on any thread's uncaught exception; these run in the test JVM,
 * so without the guard a failure here is the fork dying rather than an assertion.
 */
class RatisProcessGuardTest {
    @TempDir
    Path dir;

    @Test
    void aVoterWhosePortIsTakenFailsItsStartNamingThePortAndStartsOnceItIsFree() throws Exception {
        QuorumSettings settings;
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            List<QuorumVoter> alone = List.of(new QuorumVoter(1, "127.0.0.1", taken.getLocalPort()));
            settings = QuorumSettings.of(1, "cluster-a", alone, dir.resolve("voter"));
            MetadataNode.format(settings);

            assertThatThrownBy(() -> MetadataQuorum.start(settings))
                    .hasMessageContaining("voter 1")
                    .hasMessageContaining("127.0.0.1:" + taken.getLocalPort())
                    .hasMessageContaining("Address already in use");
        }

        try (MetadataQuorum voter = MetadataQuorum.start(settings)) {
            LocalQuorum.await(Duration.ofSeconds(30), voter::isLeader, "voter 1 to lead its quorum of one");
        }
    }

    @Test
    void aThreadDyingOfAnExceptionOnceRatisIsLoadedIsReportedAndTheProcessGoesOn() throws Exception {
        List<QuorumVoter> alone = List.of(new QuorumVoter(1, "127.0.0.1", LocalQuorum.freePort()));
        QuorumSettings settings = QuorumSettings.of(1, "cluster-a", alone, dir.resolve("voter"));
        MetadataNode.format(settings);
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        try (MetadataQuorum voter = MetadataQuorum.start(settings)) {
            // Ratis installs its handler when ExitUtils is first used, which a start that binds never does: use it.
            assertThat(ExitUtils.isTerminated()).isFalse();
            assertThat(Thread.getDefaultUncaughtExceptionHandler()).isSameAs(before);

            // No handler of its own: its death goes to the default handler, which prints it to standard error.
            Thread dying = new Thread(
                    () -> {
                        throw new IllegalStateException("a thread dies, as this test means it to");
                    },
                    "dies-on-purpose");
            dying.start();
            dying.join();

            assertThat(dying.isAlive()).isFalse();
            LocalQuorum.await(Duration.ofSeconds(30), voter::isLeader, "voter 1 to lead its quorum of one");
        }
    }
}
