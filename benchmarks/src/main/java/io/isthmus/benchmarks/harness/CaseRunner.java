package io.isthmus.benchmarks.harness;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isthmus.benchmarks.harness.client.ClientLibrary;
import io.isthmus.benchmarks.harness.client.ClientRunnerMain;
import io.isthmus.benchmarks.harness.client.WorkloadContext;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * Runs one case against one broker with each of its client libraries: creates a fresh topic, preloads it if the case
 * asks, starts the client runner in its own JVM, samples the broker's and the client's CPU time on the client's phase markers, parses the result line,
 * and deletes the topic again so that tmpfs holds one case's data at a time.
 */
final class CaseRunner implements AutoCloseable {
    private static final TypeReference<Map<String, Object>> JSON_MAP = new TypeReference<>() {};
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(60);

    private final BrokerUnderTest broker;
    private final Path logs;
    private final Admin admin;
    private final ObjectMapper json = new ObjectMapper();
    private int runs;

    CaseRunner(final BrokerUnderTest broker, final Path logs) {
        this.broker = broker;
        this.logs = logs;
        final Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        props.put(
                AdminClientConfig.CLIENT_ID_CONFIG,
                "bench-admin-" + broker.kind().label());
        this.admin = Admin.create(props);
    }

    /**
     * Warms the broker up before the first case: kafka-clients produces {@code records} records of 100 bytes to a
     * topic of its own and reads them back, and the figures are thrown away. Why: a freshly started broker runs its
     * produce and fetch paths interpreted at first, and without this the first repetition of the first case measured
     * that (the isthmus producer at 142 MB/s there, 373-401 MB/s in the repetitions after it). Returns the error of a
     * run that failed, or null.
     */
    String warmUp(final long records) throws IOException, InterruptedException {
        final String topic = topicName("broker-warmup");
        createTopic(topic, 1);
        try {
            final List<String> args = List.of("--records", Long.toString(records), "--record-bytes", "100");
            final Duration timeout = Duration.ofMinutes(5);
            final Map<String, Object> produced =
                    runClient("broker-warmup", "produce", ClientLibrary.KAFKA_CLIENTS, topic, args, timeout);
            if (produced.containsKey("error")) {
                return produced.get("error").toString();
            }
            final List<String> readArgs =
                    List.of("--records", produced.get("records_total").toString(), "--record-bytes", "100");
            final Map<String, Object> consumed =
                    runClient("broker-warmup", "consume", ClientLibrary.KAFKA_CLIENTS, topic, readArgs, timeout);
            return consumed.containsKey("error") ? consumed.get("error").toString() : null;
        } finally {
            deleteTopic(topic);
        }
    }

    /** Hears each client's run of a case as it starts and ends. */
    interface RunListener {
        void begin(ClientLibrary client);

        void end(ClientLibrary client, Map<String, Object> result);
    }

    /**
     * The case's figures on this broker for each of {@code clients}, the client's and the broker's phase CPU included.
     * A preloaded case preloads one topic with kafka-clients (the neutral producer) and lets every client read it; any
     * other case gives each client a fresh topic.
     */
    Map<ClientLibrary, Map<String, Object>> run(
            final BenchCase benchCase, final List<ClientLibrary> clients, final RunListener listener)
            throws IOException, InterruptedException {
        final Map<ClientLibrary, Map<String, Object>> results = new EnumMap<>(ClientLibrary.class);
        if (benchCase.preloadRecords() > 0) {
            final String topic = topicName(benchCase.id());
            createTopic(topic, benchCase.partitions());
            try {
                final List<String> preloadArgs = new ArrayList<>(benchCase.clientArgs());
                // No timed warmup: the topic must hold the same records on every broker.
                final String records = Long.toString(benchCase.preloadRecords());
                preloadArgs.addAll(List.of("--records", records, "--warmup-ms", "0"));
                final Map<String, Object> preload = runClient(
                        benchCase.id() + "-preload",
                        "produce",
                        ClientLibrary.KAFKA_CLIENTS,
                        topic,
                        preloadArgs,
                        benchCase.timeout());
                // Offsets the preload took in all: its records, plus a commit marker per partition and transaction
                // when it wrote in transactions.
                final long endOffsets = preload.containsKey("error") ? -1 : endOffsets(topic, benchCase.partitions());
                for (final ClientLibrary client : clients) {
                    listener.begin(client);
                    final Map<String, Object> result;
                    if (preload.containsKey("error")) {
                        result = new LinkedHashMap<>(preload);
                    } else {
                        final List<String> args = new ArrayList<>(benchCase.clientArgs());
                        args.addAll(List.of(
                                "--records", preload.get("records_total").toString()));
                        result = runClient(
                                benchCase.id(), benchCase.workload(), client, topic, args, benchCase.timeout());
                        result.put("preload_records", preload.get("records_total"));
                        result.put("preload_end_offsets", endOffsets);
                    }
                    results.put(client, result);
                    listener.end(client, result);
                }
            } finally {
                deleteTopic(topic);
            }
            return results;
        }
        for (final ClientLibrary client : clients) {
            listener.begin(client);
            final String topic = topicName(benchCase.id() + "-" + client.label());
            createTopic(topic, benchCase.partitions());
            final Map<String, Object> result;
            try {
                result = runClient(
                        benchCase.id(),
                        benchCase.workload(),
                        client,
                        topic,
                        benchCase.clientArgs(),
                        benchCase.timeout());
            } finally {
                deleteTopic(topic);
            }
            results.put(client, result);
            listener.end(client, result);
        }
        return results;
    }

    private static String topicName(final String stem) {
        return ("bench-" + stem).replaceAll("[^a-zA-Z0-9._-]", "_");
    }

    private Map<String, Object> runClient(
            final String name,
            final String workload,
            final ClientLibrary client,
            final String topic,
            final List<String> caseArgs,
            final Duration timeout)
            throws IOException, InterruptedException {
        final List<String> args = new ArrayList<>(List.of(
                "--workload", workload,
                "--client", client.label(),
                "--bootstrap", broker.bootstrap(),
                "--topic", topic,
                "--timeout-s", Long.toString(timeout.toSeconds())));
        args.addAll(caseArgs);
        final PhaseCpu phase = new PhaseCpu(broker);
        final Path log = logs.resolve(
                String.format("%03d-%s-%s-%s.log", ++runs, broker.kind().label(), client.label(), name));
        final Map<String, Object> result;
        try (ChildJvm jvm = ChildJvm.start(
                name,
                WorkloadClassPath.of(workload),
                BrokerSettings.clientJvmOptions(),
                ClientRunnerMain.class.getName(),
                args,
                log,
                phase::onLine)) {
            final CompletableFuture<String> line = jvm.expectLine(ClientRunnerMain.RESULT_PREFIX);
            final String resultLine = jvm.awaitLine(line, timeout.plusSeconds(60));
            jvm.waitForExit(Duration.ofSeconds(60));
            result = new LinkedHashMap<>(
                    json.readValue(resultLine.substring(ClientRunnerMain.RESULT_PREFIX.length()), JSON_MAP));
        } catch (final IOException e) {
            final Map<String, Object> failure = new LinkedHashMap<>();
            failure.put("workload", workload);
            failure.put("error", e.getMessage());
            return failure;
        }
        result.put("client_log", logs.getParent().relativize(log).toString());
        phase.putInto(result);
        return result;
    }

    private void createTopic(final String topic, final int partitions) throws IOException, InterruptedException {
        try {
            // A replica on every broker: replication factor 1 alone, and the cluster's size on a cluster.
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) broker.brokers())))
                    .all()
                    .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (final ExecutionException | TimeoutException e) {
            throw new IOException(
                    "create topic " + topic + " on " + broker.kind().label() + ": " + e, e);
        }
    }

    /** The sum of the topic's log end offsets. */
    private long endOffsets(final String topic, final int partitions) throws IOException, InterruptedException {
        final Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
        for (int p = 0; p < partitions; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        try {
            long sum = 0;
            for (final ListOffsetsResult.ListOffsetsResultInfo info : admin.listOffsets(latest)
                    .all()
                    .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .values()) {
                sum += info.offset();
            }
            return sum;
        } catch (final ExecutionException | TimeoutException e) {
            throw new IOException(
                    "end offsets of " + topic + " on " + broker.kind().label() + ": " + e, e);
        }
    }

    private void deleteTopic(final String topic) throws IOException, InterruptedException {
        try {
            admin.deleteTopics(List.of(topic)).all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (final ExecutionException | TimeoutException e) {
            throw new IOException(
                    "delete topic " + topic + " on " + broker.kind().label() + ": " + e, e);
        }
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(10));
    }

    /**
     * Broker and client CPU time between the client's {@link WorkloadContext#PHASE_BEGIN} and {@link
     * WorkloadContext#PHASE_END} lines (sampled on the harness's reader thread as the lines arrive).
     */
    private static final class PhaseCpu {
        private final BrokerUnderTest broker;
        private volatile Duration brokerBegin;
        private volatile Duration brokerEnd;
        private volatile Duration clientBegin;
        private volatile Duration clientEnd;
        private volatile long wallBegin;
        private volatile long wallEnd;

        PhaseCpu(final BrokerUnderTest broker) {
            this.broker = broker;
        }

        void onLine(final String line, final long clientPid) {
            if (line.equals(WorkloadContext.PHASE_BEGIN)) {
                brokerBegin = broker.cpuTime();
                clientBegin = ProcessCpu.of(clientPid);
                wallBegin = System.nanoTime();
            } else if (line.equals(WorkloadContext.PHASE_END)) {
                brokerEnd = broker.cpuTime();
                clientEnd = ProcessCpu.of(clientPid);
                wallEnd = System.nanoTime();
            }
        }

        void putInto(final Map<String, Object> result) {
            if (brokerBegin == null || brokerEnd == null) {
                return;
            }
            final double wall = (wallEnd - wallBegin) / 1e9;
            final double brokerCpu = (brokerEnd.toMillis() - brokerBegin.toMillis()) / 1000.0;
            final double clientCpu = (clientEnd.toMillis() - clientBegin.toMillis()) / 1000.0;
            result.put("phase_wall_s", wall);
            result.put("broker_cpu_s", brokerCpu);
            result.put("broker_cpu_cores", brokerCpu / wall);
            result.put("client_cpu_s", clientCpu);
            result.put("client_cpu_cores", clientCpu / wall);
        }
    }
}
