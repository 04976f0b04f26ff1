package io.isthmus.benchmarks.harness;

import java.util.ArrayList;
import java.util.List;

/**
 * The settings both brokers run with, so that differences come from the brokers and not their configuration. Listed in
 * the report verbatim.
 *
 * <ul>
 *   <li>One broker on 127.0.0.1, replication factor 1 everywhere (Kafka's internal topics included).
 *   <li>Log directory of the same type for both: tmpfs ({@code /dev/shm}) when present, otherwise a temporary
 *       directory on the same file system.
 *   <li>Flush: neither broker forces writes ({@code flush.messages}/{@code flush.ms} unset for isthmus, {@code
 *       log.flush.interval.*} unset for Kafka): both rely on the page cache, which survives a broker process crash.
 *   <li>Segments: 1 GiB for both (each broker's default). Threads: each broker's default (isthmus: one Netty event loop
 *       per core; Kafka: 3 network and 8 I/O threads plus KRaft's controller threads in the same process).
 *   <li>The same JVM and the same options for both: {@link #brokerJvmOptions()}.
 * </ul>
 */
public final class BrokerSettings {
    /** Heap and GC as Kafka's own start script sets them; isthmus gets the same. */
    private static final List<String> BROKER_JVM_OPTIONS = List.of(
            "-Xms1g",
            "-Xmx1g",
            "-XX:+UseG1GC",
            "-XX:MaxGCPauseMillis=20",
            "-Djava.awt.headless=true",
            "--enable-native-access=ALL-UNNAMED",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");

    /** Clients (kafka-clients in the client runner). */
    private static final List<String> CLIENT_JVM_OPTIONS = List.of(
            "-Xms512m",
            "-Xmx1g",
            "-XX:+UseG1GC",
            "--enable-native-access=ALL-UNNAMED",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");

    private BrokerSettings() {}

    /**
     * Extra options for broker JVMs, from {@value #BROKER_EXTRA_ENV}, for profiling a run without changing it, e.g.
     * {@code -XX:StartFlightRecording=filename=/tmp/broker-%p.jfr,settings=profile}. Options are separated by spaces.
     */
    public static final String BROKER_EXTRA_ENV = "ISTHMUS_BENCH_BROKER_JVM_OPTS";

    /** Extra options for client JVMs, from {@value #CLIENT_EXTRA_ENV}; as {@link #BROKER_EXTRA_ENV}. */
    public static final String CLIENT_EXTRA_ENV = "ISTHMUS_BENCH_CLIENT_JVM_OPTS";

    public static List<String> brokerJvmOptions() {
        return withExtra(withUnsafeAllowed(BROKER_JVM_OPTIONS), BROKER_EXTRA_ENV);
    }

    public static List<String> clientJvmOptions() {
        return withExtra(withUnsafeAllowed(CLIENT_JVM_OPTIONS), CLIENT_EXTRA_ENV);
    }

    private static List<String> withExtra(final List<String> options, final String variable) {
        final String extra = System.getenv(variable);
        if (extra == null || extra.isBlank()) {
            return options;
        }
        final List<String> all = new ArrayList<>(options);
        all.addAll(List.of(extra.trim().split("\\s+")));
        return List.copyOf(all);
    }

    /** Netty, Kafka and Scala use sun.misc.Unsafe: silence the JDK 24+ warnings (a JDK 22 JVM rejects the flag). */
    private static List<String> withUnsafeAllowed(final List<String> options) {
        if (Runtime.version().feature() < 23) {
            return options;
        }
        final List<String> all = new ArrayList<>(options);
        all.add("--sun-misc-unsafe-memory-access=allow");
        return List.copyOf(all);
    }
}
