package io.isthmus.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class QuorumVoterTest {
    @Test
    void kafkasVoterListParsesWithIpv6InBrackets() {
        List<QuorumVoter> voters = QuorumVoter.parseAll("1@localhost:9093, 2@10.0.0.2:9094,3@[::1]:9095");

        assertThat(voters)
                .containsExactly(
                        new QuorumVoter(1, "localhost", 9093),
                        new QuorumVoter(2, "10.0.0.2", 9094),
                        new QuorumVoter(3, "::1", 9095));
        assertThat(voters.get(2).address()).isEqualTo("[::1]:9095");
        assertThat(voters.get(0)).hasToString("1@localhost:9093");
    }

    @Test
    void aMalformedListIsRefusedNamingTheSettingAndTheEntry() {
        assertThatThrownBy(() -> QuorumVoter.parseAll("")).hasMessageContaining("controller.quorum.voters is empty");
        assertThatThrownBy(() -> QuorumVoter.parseAll("1@host:9093,host:9094"))
                .hasMessageContaining("controller.quorum.voters")
                .hasMessageContaining("'host:9094'");
        assertThatThrownBy(() -> QuorumVoter.parseAll("x@host:9093")).hasMessageContaining("'x@host:9093'");
        assertThatThrownBy(() -> QuorumVoter.parseAll("1@host:0")).hasMessageContaining("port 0");
        assertThatThrownBy(() -> QuorumVoter.parseAll("1@a:1,1@b:2")).hasMessageContaining("voter 1 twice");
    }

    @Test
    void requestsMayTakeTwiceTheElectionTimeoutAndNeverLessThanRatissDefault() {
        List<QuorumVoter> voters = QuorumVoter.parseAll("1@localhost:9093");
        QuorumSettings defaults = QuorumSettings.of(1, "c", voters, Path.of("/tmp/x"));
        QuorumSettings slow = new QuorumSettings(
                1,
                "c",
                voters,
                Path.of("/tmp/x"),
                Duration.ofSeconds(4),
                Duration.ofSeconds(20),
                QuorumSettings.DEFAULT_SNAPSHOT_EVERY_ENTRIES,
                QuorumSettings.DEFAULT_LOG_SEGMENT_BYTES);

        assertThat(defaults.requestTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(slow.requestTimeout()).isEqualTo(Duration.ofSeconds(8));
    }

    @Test
    void aNodeIsAVoterExactlyWhenItsIdIsAmongTheVoters() {
        List<QuorumVoter> voters = QuorumVoter.parseAll("1@localhost:9093");

        assertThat(QuorumSettings.of(1, "c", voters, Path.of("/tmp/x")).isVoter())
                .isTrue();
        assertThat(QuorumSettings.of(2, "c", voters, Path.of("/tmp/x")).isVoter())
                .isFalse();
        assertThatThrownBy(() -> QuorumSettings.of(1, "c", List.of(), Path.of("/tmp/x")))
                .hasMessageContaining("names no voter");
    }
}
