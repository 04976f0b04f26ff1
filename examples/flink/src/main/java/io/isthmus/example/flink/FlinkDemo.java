package io.isthmus.example.flink;

import io.isthmus.broker.Broker;
import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerBatch;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.client.producer.IsthmusProducer;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.common.TopicPartition;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./isthmus flink-demo}: starts an isthmus broker in a temporary directory, writes clicks (a user and an amount
 * per record, one millisecond of event time apart), runs {@link ClickJob} on a local Flink (isthmus source, keyed
 * tumbling event-time window count, isthmus sink), then reads the counts back and checks that every click was
 * counted exactly once. Ends with one {@code flink-demo: ...} line; exit 0 only if the check passes.
 */
@Command(
        name = "isthmus flink-demo",
        mixinStandardHelpOptions = true,
        description = "An embedded broker and a local Flink job: isthmus source, keyed window count, isthmus sink.")
public final class FlinkDemo implements Callable<Integer> {
    /** A multiple of every window size offered, so windows line up with the data. */
    private static final long T0 = 1_700_000_000_000L;

    private static final String CLICKS = "clicks";
    private static final String COUNTS = "click-counts";

    @Option(names = "--records", description = "Clicks to write and count (default ${DEFAULT-VALUE}).")
    private int records = 1_000_000;

    @Option(names = "--users", description = "Distinct users, the job's keys (default ${DEFAULT-VALUE}).")
    private int users = 100;

    @Option(names = "--partitions", description = "Partitions of the clicks topic (default ${DEFAULT-VALUE}).")
    private int partitions = 4;

    @Option(names = "--parallelism", description = "The Flink job's parallelism (default ${DEFAULT-VALUE}).")
    private int parallelism = 2;

    @Option(names = "--window-ms", description = "Tumbling window size in ms of event time (default ${DEFAULT-VALUE}).")
    private long windowMs = 10_000;

    @Option(
            names = "--transport",
            description = "tcp, rdma or auto, for the job's source and sink (default ${DEFAULT-VALUE}).")
    private String transport = "auto";

    public static void main(final String[] args) {
        System.exit(new CommandLine(new FlinkDemo()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (T0 % windowMs != 0) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this), "--window-ms must divide " + T0 + ": " + windowMs);
        }
        final Path dir = Files.createTempDirectory("isthmus-flink-demo");
        try {
            return run(dir);
        } finally {
            try (Stream<Path> paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private int run(final Path dir) throws Exception {
        final Broker broker = Broker.startEmbedded(dir, Map.of("num.network.threads", "2"));
        try (IsthmusAdmin admin = new IsthmusAdmin(broker.bootstrapServers())) {
            admin.createTopic(CLICKS, partitions, (short) 1);
            admin.createTopic(COUNTS, partitions, (short) 1);
            System.out.printf(
                    "flink-demo: broker %s, topic %s with %d partitions%n",
                    broker.bootstrapServers(), CLICKS, partitions);

            final long produceStart = System.nanoTime();
            writeClicks(broker.bootstrapServers());
            final double produceSeconds = (System.nanoTime() - produceStart) / 1e9;
            System.out.printf(
                    Locale.ROOT,
                    "flink-demo: wrote %,d clicks of %d users in %.2f s%n",
                    records,
                    users,
                    produceSeconds);

            final StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism);
            ClickJob.build(env, broker.bootstrapServers(), transport, CLICKS, COUNTS, Duration.ofMillis(windowMs));
            final JobExecutionResult result = env.execute("isthmus flink-demo");
            final double jobSeconds = result.getNetRuntime() / 1e3;
            System.out.printf(
                    Locale.ROOT,
                    "flink-demo: job (source -> keyBy(user) -> %d ms tumbling window count -> sink) ran %.2f s,"
                            + " %,.0f clicks/s%n",
                    windowMs,
                    jobSeconds,
                    records / jobSeconds);

            final long[] totals = readCounts(broker.bootstrapServers());
            final long windows = totals[0];
            final long counted = totals[1];
            final long amount = totals[2];
            final long expectedAmount = (long) records * (records - 1) / 2;
            final boolean ok = counted == records && amount == expectedAmount;
            System.out.printf(
                    "flink-demo: %,d window counts read back; clicks counted %,d of %,d, amount %d of %d: %s%n",
                    windows, counted, records, amount, expectedAmount, ok ? "every click exactly once" : "MISMATCH");
            System.out.printf(
                    Locale.ROOT,
                    "flink-demo: records=%d windows=%d counted=%d transport=%s parallelism=%d job_s=%.2f rec_s=%.0f%n",
                    records,
                    windows,
                    counted,
                    transport,
                    parallelism,
                    jobSeconds,
                    records / jobSeconds);
            return ok ? 0 : 1;
        } finally {
            broker.close();
        }
    }

    /** Click i: user i mod users, amount i, timestamp T0 + i; a user's clicks go to one partition, in order. */
    private void writeClicks(final String bootstrapServers) {
        try (IsthmusProducer producer = new IsthmusProducer(Map.of(
                "bootstrap.servers",
                bootstrapServers,
                "transport",
                transport,
                "linger.ms",
                "2",
                "batch.size",
                Integer.toString(256 * 1024)))) {
            final ByteBuffer key = ByteBuffer.allocate(4);
            final ByteBuffer value = ByteBuffer.allocate(8);
            for (int i = 0; i < records; i++) {
                final int user = i % users;
                key.putInt(0, user);
                value.putLong(0, i);
                producer.send(CLICKS, user % partitions, T0 + i, key.array(), value.array(), null, null);
            }
            producer.flush();
        }
    }

    /** Reads every window count back: {windows, clicks, amount}. */
    private long[] readCounts(final String bootstrapServers) {
        final List<TopicPartition> assignment = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            assignment.add(new TopicPartition(COUNTS, p));
        }
        final long[] totals = new long[3];
        try (IsthmusConsumer consumer =
                new IsthmusConsumer(Map.of("bootstrap.servers", bootstrapServers, "transport", transport))) {
            consumer.assign(assignment);
            consumer.seekToBeginning(assignment);
            final Map<TopicPartition, Long> ends = consumer.endOffsets(assignment);
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!caughtUp(consumer, ends) && System.nanoTime() - deadline < 0) {
                try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(200))) {
                    for (final ConsumedRecord record : batch) {
                        final String[] fields = record.valueAsString().split(",");
                        totals[0]++;
                        totals[1] += Long.parseLong(fields[2]);
                        totals[2] += Long.parseLong(fields[3]);
                    }
                }
            }
        }
        return totals;
    }

    private static boolean caughtUp(final IsthmusConsumer consumer, final Map<TopicPartition, Long> ends) {
        for (final Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            if (consumer.position(end.getKey()) < end.getValue()) {
                return false;
            }
        }
        return true;
    }
}
