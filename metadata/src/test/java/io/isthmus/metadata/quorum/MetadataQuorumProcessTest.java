package io.isthmus.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three voters in three JVMs: the leader is killed with {@code kill -9} five times while commands flow, and paused
 * with {@code SIGSTOP}; no acknowledged command is lost, none is applied twice (a second application of a topic's
 * creation would answer {@code TOPIC_ALREADY_EXISTS}), and every voter ends with the same metadata.
 */
class MetadataQuorumProcessTest {
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String CLUSTER = "process-quorum";

    /** Kept when a test fails: the voters' logs are in it. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    private final Map<Integer, Process> voters = new TreeMap<>();
    private String voterList;
    private QuorumSettings clientView;

    @AfterEach
    void killAll() {
        voters.values().forEach(Process::destroyForcibly);
    }

    private void configure() throws IOException {
        List<String> entries = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            entries.add(id + "@127.0.0.1:" + LocalQuorum.freePort());
        }
        voterList = String.join(",", entries);
        clientView = QuorumSettings.of(1, CLUSTER, QuorumVoter.parseAll(voterList), dir);
    }

    private void start(int id) throws IOException {
        List<String> command = List.of(
                ProcessHandle.current().info().command().orElseThrow(),
                "-cp",
                System.getProperty("java.class.path"),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                VoterProcess.class.getName(),
                Integer.toString(id),
                CLUSTER,
                voterList,
                dir.resolve("voter-" + id).toString(),
                status(id).toString());
        Files.deleteIfExists(status(id));
        voters.put(
                id,
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("voter-" + id + ".log").toFile())
                        .start());
    }

    private Path status(int id) {
        return dir.resolve("status-" + id);
    }

    private Optional<String> statusOf(int id) throws IOException {
        try {
            return Optional.of(Files.readString(status(id), StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /** The one running voter that says it leads, waiting for an election if there is none. */
    private int awaitLeader(List<Integer> among) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            List<Integer> leaders = new ArrayList<>();
            for (int id : among) {
                if (statusOf(id).orElse("").startsWith("leader=true")) {
                    leaders.add(id);
                }
            }
            if (leaders.size() == 1) {
                return leaders.getFirst();
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no single leader among voters " + among + " within " + WAIT);
    }

    private RaftClient client() {
        RaftProperties properties = new RaftProperties();
        RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
        return RaftClient.newBuilder()
                .setProperties(properties)
                .setRaftGroup(MetadataQuorum.groupOf(clientView))
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(
                        600, TimeDuration.valueOf(100, TimeUnit.MILLISECONDS)))
                .build();
    }

    private static ApiMessage send(RaftClient client, ApiMessage command) throws IOException {
        RaftClientReply reply =
                client.io().send(Message.valueOf(ByteString.copyFrom(MetadataCommands.encode(command))));
        if (!reply.isSuccess()) {
            throw new IOException("command failed", reply.getException());
        }
        return MetadataCommands.decodeAnswer(reply.getMessage().getContent().asReadOnlyByteBuffer());
    }

    private static CreateTopicsRequestData createTopic(String name) {
        CreateTopicsRequestData request = new CreateTopicsRequestData();
        request.topics()
                .add(new CreatableTopic().setName(name).setNumPartitions(1).setReplicationFactor((short) 1));
        return request;
    }

    private void registerOneBroker(RaftClient client) throws IOException {
        BrokerRegistrationResponseData registered = (BrokerRegistrationResponseData) send(
                client,
                new BrokerRegistrationRequestData()
                        .setBrokerId(1)
                        .setClusterId(CLUSTER)
                        .setIncarnationId(Uuid.randomUuid()));
        // Unfenced by a logged heartbeat (sent as a command: this test has no voter of its own to query).
        send(
                client,
                new BrokerHeartbeatRequestData()
                        .setBrokerId(1)
                        .setBrokerEpoch(registered.brokerEpoch())
                        .setCurrentMetadataOffset(registered.brokerEpoch()));
    }

    /** Waits until every voter reports {@code topics} topics with one digest, and returns it. */
    private String awaitAgreement(int topics) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        List<String> last = List.of();
        while (System.nanoTime() < deadline) {
            last = new ArrayList<>();
            for (int id : voters.keySet()) {
                String s = statusOf(id).orElse("");
                last.add(s.substring(s.indexOf(' ') + 1));
            }
            if (last.stream().distinct().count() == 1 && last.getFirst().startsWith("topics=" + topics + " ")) {
                return last.getFirst();
            }
            Thread.sleep(50);
        }
        throw new AssertionError("voters never agreed on " + topics + " topics: " + last);
    }

    @Test
    void noAcknowledgedCommandIsLostOrAppliedTwiceWhileTheLeaderIsKilledFiveTimes() throws Exception {
        configure();
        for (int id = 1; id <= 3; id++) {
            start(id);
        }
        List<String> acknowledged = new ArrayList<>();
        try (RaftClient client = client()) {
            registerOneBroker(client);
            for (int round = 0; round < 5; round++) {
                int leader = awaitLeader(List.copyOf(voters.keySet()));
                for (int i = 0; i < 10; i++) {
                    String name = "round-" + round + "-topic-" + i;
                    CreateTopicsResponseData answer = (CreateTopicsResponseData) send(client, createTopic(name));
                    assertThat(answer.topics().find(name).errorCode()).as(name).isZero();
                    acknowledged.add(name);
                    if (i == 4) {
                        // Mid-stream: the next five commands go to a leader that has not been elected yet.
                        voters.get(leader).destroyForcibly().waitFor();
                    }
                }
                start(leader);
            }
        }
        String agreed = awaitAgreement(acknowledged.size());
        assertThat(agreed).contains("topics=" + acknowledged.size());
        assertThat(dir.resolve("voter-1")).isDirectoryRecursivelyContaining("glob:**/snapshot.*");
    }

    @Test
    void aPausedLeaderIsReplacedAndRejoinsWithTheSameMetadataWhenResumed() throws Exception {
        configure();
        for (int id = 1; id <= 3; id++) {
            start(id);
        }
        try (RaftClient client = client()) {
            registerOneBroker(client);
            send(client, createTopic("before-pause"));
            int paused = awaitLeader(List.copyOf(voters.keySet()));
            long pid = voters.get(paused).pid();
            signal("STOP", pid);
            try {
                List<Integer> others =
                        voters.keySet().stream().filter(id -> id != paused).toList();
                int successor = awaitLeader(others);
                assertThat(successor).isNotEqualTo(paused);
                send(client, createTopic("while-paused"));
            } finally {
                signal("CONT", pid);
            }
            send(client, createTopic("after-resume"));
        }
        awaitAgreement(3);
    }

    private static void signal(String signal, long pid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                .inheritIO()
                .start();
        assertThat(kill.waitFor()).as("kill -%s %d", signal, pid).isZero();
    }
}
