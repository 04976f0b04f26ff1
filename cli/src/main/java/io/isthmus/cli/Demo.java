package io.isthmus.cli;

import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.cluster.BrokerConnections;
import io.isthmus.client.config.Transport;
import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerRecordHandler;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.client.network.KafkaConnection;
import io.isthmus.client.network.ReceiveBufferPool;
import io.isthmus.client.producer.DeliveryListener;
import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.client.producer.ProducerConfig;
import io.isthmus.client.producer.ValueClaim;
import io.isthmus.client.security.SecuritySettings;
import io.isthmus.client.shm.ShmAttachable;
import io.isthmus.client.shm.ShmProducerTransport;
import io.isthmus.ffi.Rdma;
import io.isthmus.ffi.RdmaAvailability;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code isthmus demo}: creates a topic, produces N records with the isthmus producer (values written in place with
 * the claim API) while the zero-copy consumer reads them back, verifies every record exactly once, and reports
 * throughput both ways, produce and end-to-end latency percentiles, the transport, and the heap bytes the consuming
 * thread allocated per record. It ends with one machine-readable {@code demo:} line.
 *
 * <p>Each value carries its sequence number (bytes 0-7), the producer's {@code System.nanoTime()} at send (8-15, when
 * the size allows) and then the sequence's low byte repeated: the consumer checks all of it in place.
 *
 * <p>Programmatic use: {@link #run(DemoOptions, PrintStream, PrintStream)} (an embedded-broker launcher calls it with
 * the broker's address).
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description =
                "Produce, consume and verify records through an isthmus (or any Kafka) broker, and report numbers.")
public final class Demo implements Callable<Integer> {
    private static final long NO_PROGRESS_TIMEOUT_NANOS = Duration.ofSeconds(60).toNanos();

    @Option(names = "--bootstrap", required = true, description = "Broker address, host:port (bootstrap.servers).")
    String bootstrap;

    @Option(
            names = "--records",
            defaultValue = "1000000",
            description = "Records to produce (default ${DEFAULT-VALUE}).")
    long records;

    @Option(
            names = "--size",
            defaultValue = "100",
            description = "Value size in bytes, >= 8 (default ${DEFAULT-VALUE}).")
    int size;

    @Option(
            names = "--partitions",
            defaultValue = "1",
            description = "Partitions of the demo topic (default ${DEFAULT-VALUE}).")
    int partitions;

    @Option(
            names = "--transport",
            defaultValue = "auto",
            description = "tcp, rdma, shm or auto (default ${DEFAULT-VALUE}; auto produces and consumes over shared"
                    + " memory where the broker is on this host, else RDMA where available, else TCP).")
    String transport;

    @Option(names = "--topic", description = "Topic to use (default: a fresh isthmus-demo-<time> topic).")
    String topic;

    public static void main(final String[] args) {
        System.exit(new CommandLine(new Demo()).execute(args));
    }

    @Override
    public Integer call() {
        final DemoOptions options;
        try {
            options = new DemoOptions(bootstrap, records, size, partitions, Transport.forName(transport), topic);
        } catch (final IllegalArgumentException e) {
            System.err.println("demo: " + e.getMessage());
            return 2;
        }
        try {
            final DemoResult result = run(options, System.out, System.err);
            return result.success() ? 0 : 1;
        } catch (final UnsupportedOperationException e) {
            System.err.println("demo: " + e.getMessage());
            return 2;
        } catch (final RuntimeException e) {
            System.err.println("demo: failed: " + e);
            return 1;
        }
    }

    /** Runs the demo, summary to {@code out}, progress to stderr. */
    public static DemoResult run(final DemoOptions options, final PrintStream out) {
        return run(options, out, System.err);
    }

    /**
     * Runs the demo: summary and the final {@code demo:} line to {@code out}, progress to {@code progress} (a bar if
     * this process has a console, otherwise periodic lines).
     *
     * @throws UnsupportedOperationException when the transport asked for is not available (rdma, shm)
     */
    public static DemoResult run(final DemoOptions options, final PrintStream out, final PrintStream progress) {
        final Transport used = resolveTransport(options);
        final String topicName =
                options.topic() != null ? options.topic() : "isthmus-demo-" + System.currentTimeMillis();
        try (IsthmusAdmin admin = new IsthmusAdmin(options.bootstrapServers())) {
            if (!admin.listTopics().contains(topicName)) {
                admin.createTopic(topicName, options.partitions(), (short) 1);
            }
        }
        out.printf(
                Locale.ROOT,
                "isthmus demo: %,d records of %d B into topic %s (%d partition%s), producing over %s, consuming with"
                        + " transport=%s, broker %s%n",
                options.records(),
                options.recordSize(),
                topicName,
                options.partitions(),
                options.partitions() == 1 ? "" : "s",
                used.configName(),
                options.transport().configName(),
                options.bootstrapServers());
        return new Run(options, topicName, used, out, progress).execute();
    }

    /**
     * What {@code --transport} means for the producer, decided before anything is produced: TCP as asked; otherwise
     * shared memory where the broker advertises shared-memory produce and this process can attach to it ({@code shm},
     * {@code auto}), then RDMA where this host's devices ({@link Rdma#availability()}) and the broker's ApiVersions
     * allow ({@code rdma}, {@code auto}), else TCP. The consumer takes {@code --transport} as given and reports what it
     * resolved to.
     *
     * @throws UnsupportedOperationException for shm or rdma where it cannot work, with the reason
     */
    static Transport resolveTransport(final DemoOptions options) {
        final Transport asked = options.transport();
        if (asked == Transport.TCP) {
            return Transport.TCP;
        }
        try (ReceiveBufferPool pool = new ReceiveBufferPool(64 * 1024);
                BrokerConnections connections = new BrokerConnections(
                        BrokerConnections.parseBootstrap(options.bootstrapServers()),
                        "isthmus-demo",
                        pool,
                        Duration.ofSeconds(30),
                        SecuritySettings.PLAINTEXT)) {
            final KafkaConnection broker = connections.any();
            if (asked == Transport.SHM || asked == Transport.AUTO) {
                if (canProduceOverShm(broker, asked == Transport.SHM)) {
                    return Transport.SHM;
                }
            }
            final RdmaAvailability local = Rdma.availability();
            return asked.resolve(local, local.usable() && broker.advertisesRdma());
        }
    }

    /** Whether a producer here can attach to the broker's shared memory; for {@code required}, the reason if not. */
    private static boolean canProduceOverShm(final KafkaConnection broker, final boolean required) {
        if (!broker.advertisesShmProduce()) {
            if (required) {
                throw new UnsupportedOperationException(Transport.SHM_UNAVAILABLE
                        + "the broker does not advertise shared-memory produce (shm.enabled=false?)");
            }
            return false;
        }
        final ShmProducerTransport probe = ShmAttachable.attachOrPassBy(
                new ShmProducerTransport("isthmus-demo", 30_000, SecuritySettings.PLAINTEXT, 1, (short) -1),
                broker.address(),
                required);
        if (probe == null) {
            return false;
        }
        probe.close();
        return true;
    }

    /** One demo run: the producer on the calling thread, the consumer on its own. */
    private static final class Run {
        private final DemoOptions options;
        private final String topic;
        private final Transport transport;
        private final PrintStream out;
        private final PrintStream progressOut;
        private final AtomicLong produced = new AtomicLong();
        private final AtomicLong consumed = new AtomicLong();
        /** Records whose send failed for good (the producer's retries and delivery timeout spent). */
        private final AtomicLong failed = new AtomicLong();

        private final AtomicReference<RuntimeException> firstError = new AtomicReference<>();
        private final Histogram produceLatency = new Histogram(60_000_000L, 3);
        private final Histogram endToEndLatency = new Histogram(60_000_000L, 3);
        private final long[][] sendNanos;
        private final int[] ackIndex;
        private final int[] sendIndex;

        Run(
                final DemoOptions options,
                final String topic,
                final Transport transport,
                final PrintStream out,
                final PrintStream progressOut) {
            this.options = options;
            this.topic = topic;
            this.transport = transport;
            this.out = out;
            this.progressOut = progressOut;
            final int p = options.partitions();
            this.sendNanos = new long[p][(int) ((options.records() + p - 1) / p)];
            this.ackIndex = new int[p];
            this.sendIndex = new int[p];
        }

        DemoResult execute() {
            final ConsumerLoop consumer = new ConsumerLoop();
            final Thread consumerThread =
                    Thread.ofPlatform().name("isthmus-demo-consumer").start(consumer);
            consumer.awaitReady();
            final ProgressReporter reporter =
                    new ProgressReporter(progressOut, System.console() != null, options.records(), produced, consumed);
            reporter.start();
            final long produceStart = System.nanoTime();
            final long produceEnd;
            try {
                produceEnd = produce();
            } finally {
                try {
                    consumerThread.join();
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                reporter.stop();
            }
            if (consumer.failure.get() != null) {
                throw new IllegalStateException("consumer failed: " + consumer.failure.get(), consumer.failure.get());
            }
            final long n = options.records();
            final double produceSeconds = (produceEnd - produceStart) / 1e9;
            final double consumeSeconds = Math.max(1, consumer.lastNanos - consumer.firstNanos) / 1e9;
            final double produceRate = n / produceSeconds;
            final double consumeRate = consumer.verified / consumeSeconds;
            final double bytes = options.recordSize();
            final RuntimeException error = firstError.get();
            final DemoResult result = new DemoResult(
                    n,
                    consumer.verified,
                    failed.get(),
                    error == null ? null : error.toString(),
                    consumer.transport.configName(),
                    transport.configName(),
                    produceRate,
                    consumeRate,
                    produceRate * bytes / 1e6,
                    consumeRate * bytes / 1e6,
                    consumer.heapBytes / (double) Math.max(1, consumer.verified));
            printSummary(result, consumer);
            out.println(result.summaryLine());
            out.flush();
            return result;
        }

        private long produce() {
            final int p = options.partitions();
            final DeliveryListener listener = (t, partition, baseOffset, count, error) -> {
                if (error != null) {
                    // Counted and reported: the consumer stops waiting for these, the summary names the first error.
                    firstError.compareAndSet(null, error);
                    failed.addAndGet(count);
                    ackIndex[partition] += count;
                    return;
                }
                final long now = System.nanoTime();
                final long[] times = sendNanos[partition];
                int index = ackIndex[partition];
                for (int i = 0; i < count; i++) {
                    produceLatency.recordValue(Math.min(60_000_000L, Math.max(0, (now - times[index++]) / 1000)));
                }
                ackIndex[partition] = index;
            };
            final Map<String, Object> settings = Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS, options.bootstrapServers(),
                    ProducerConfig.LINGER_MS, "2",
                    ProducerConfig.BATCH_SIZE, Integer.toString(256 * 1024),
                    ProducerConfig.BUFFER_MEMORY, Long.toString(64L * 1024 * 1024),
                    ProducerConfig.TRANSPORT, transport.configName());
            final long end;
            try (IsthmusProducer producer = new IsthmusProducer(new ProducerConfig(settings), listener)) {
                final ValueClaim claim = new ValueClaim();
                final int size = options.recordSize();
                final long n = options.records();
                for (long seq = 0; seq < n; seq++) {
                    final int partition = (int) (seq % p);
                    final long now = System.nanoTime();
                    sendNanos[partition][sendIndex[partition]++] = now;
                    producer.claim(topic, partition, IsthmusProducer.NOW, null, size, null, claim);
                    writeValue(claim.buffer(), claim.offset(), size, seq, now);
                    claim.commit();
                    produced.lazySet(seq + 1);
                }
                producer.flush();
                end = System.nanoTime();
            }
            return end;
        }

        private static void writeValue(
                final MemorySegment buffer, final long at, final int size, final long seq, final long nanos) {
            buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, at, seq);
            int i = 8;
            if (size >= 16) {
                buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, nanos);
                i = 16;
            }
            final byte fill = (byte) seq;
            buffer.asSlice(at + i, size - i).fill(fill);
        }

        private void printSummary(final DemoResult r, final ConsumerLoop consumer) {
            out.printf(
                    Locale.ROOT,
                    "%nverified  %,d of %,d records exactly once (%,d bad, %,d duplicates)%n",
                    r.verified(),
                    r.records(),
                    consumer.bad,
                    consumer.duplicates);
            if (r.failed() > 0) {
                out.printf(
                        Locale.ROOT,
                        "failed    %,d records not delivered; first error: %s%n",
                        r.failed(),
                        r.firstError());
            }
            out.printf(
                    Locale.ROOT, "transport consumed over %s, produced over %s%n", r.transport(), r.produceTransport());
            out.printf(
                    Locale.ROOT,
                    "produce   %,12.0f records/s  %8.1f MB/s%n",
                    r.produceRecordsPerSecond(),
                    r.produceMegabytesPerSecond());
            out.printf(
                    Locale.ROOT,
                    "consume   %,12.0f records/s  %8.1f MB/s%n",
                    r.consumeRecordsPerSecond(),
                    r.consumeMegabytesPerSecond());
            printLatency("produce latency (send to ack)", produceLatency);
            printLatency("end-to-end latency (send to consume)", endToEndLatency);
            out.printf(
                    Locale.ROOT,
                    "consumer heap allocation: %.3f bytes/record (%,d bytes on the consuming thread)%n",
                    r.heapBytesPerRecord(),
                    consumer.heapBytes);
        }

        private void printLatency(final String title, final Histogram h) {
            if (h.getTotalCount() == 0) {
                out.printf(Locale.ROOT, "%s: no samples%n", title);
                return;
            }
            out.printf(
                    Locale.ROOT,
                    "%s, us: p50 %,d  p90 %,d  p99 %,d  p99.9 %,d  max %,d%n",
                    title,
                    h.getValueAtPercentile(50),
                    h.getValueAtPercentile(90),
                    h.getValueAtPercentile(99),
                    h.getValueAtPercentile(99.9),
                    h.getMaxValue());
        }

        /** Consumes and verifies on its own thread, through the allocation-free callback path. */
        private final class ConsumerLoop implements Runnable, ConsumerRecordHandler {
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            private final BitSet seen = new BitSet((int) Math.min(Integer.MAX_VALUE, options.records()));
            private final java.util.concurrent.CountDownLatch ready = new java.util.concurrent.CountDownLatch(1);
            long verified;
            long bad;
            long duplicates;
            long firstNanos;
            long lastNanos;
            long heapBytes;
            /** What the consumer's {@code transport} resolved to; set before {@link #ready} opens. */
            Transport transport = Transport.TCP;

            void awaitReady() {
                try {
                    ready.await();
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public void run() {
                final com.sun.management.ThreadMXBean threads =
                        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
                try (IsthmusConsumer consumer = new IsthmusConsumer(Map.of(
                        "bootstrap.servers", options.bootstrapServers(),
                        "transport", options.transport().configName(),
                        "fetch.max.wait.ms", "100",
                        "max.partition.fetch.bytes", Integer.toString(4 * 1024 * 1024)))) {
                    final List<org.apache.kafka.common.TopicPartition> tps = new java.util.ArrayList<>();
                    for (int p = 0; p < options.partitions(); p++) {
                        tps.add(new org.apache.kafka.common.TopicPartition(topic, p));
                    }
                    transport = consumer.transport();
                    consumer.assign(tps);
                    consumer.seekToBeginning(tps);
                    ready.countDown();
                    final long n = options.records();
                    final long threadId = Thread.currentThread().threadId();
                    final long heapStart = threads.getThreadAllocatedBytes(threadId);
                    long lastProgress = System.nanoTime();
                    while (verified + bad + duplicates < n - failed.get()) {
                        final int handled = consumer.poll(this, 4096, Duration.ofMillis(100));
                        final long now = System.nanoTime();
                        if (handled > 0) {
                            lastProgress = now;
                        } else if (now - lastProgress > NO_PROGRESS_TIMEOUT_NANOS) {
                            break;
                        }
                    }
                    heapBytes = threads.getThreadAllocatedBytes(threadId) - heapStart;
                } catch (final Throwable t) {
                    failure.set(t);
                } finally {
                    ready.countDown();
                }
            }

            @Override
            public void onRecord(final ConsumedRecord record) {
                final long now = System.nanoTime();
                if (firstNanos == 0) {
                    firstNanos = now;
                }
                lastNanos = now;
                final MemorySegment segment = record.segment();
                final long at = record.valueOffset();
                final int size = record.valueSize();
                if (size != options.recordSize()) {
                    bad++;
                    return;
                }
                final long seq = segment.get(ValueLayout.JAVA_LONG_UNALIGNED, at);
                if (seq < 0 || seq >= options.records()) {
                    bad++;
                    return;
                }
                int i = 8;
                if (size >= 16) {
                    final long sent = segment.get(ValueLayout.JAVA_LONG_UNALIGNED, at + 8);
                    endToEndLatency.recordValue(Math.min(60_000_000L, Math.max(0, (now - sent) / 1000)));
                    i = 16;
                }
                final byte fill = (byte) seq;
                for (; i < size; i++) {
                    if (segment.get(ValueLayout.JAVA_BYTE, at + i) != fill) {
                        bad++;
                        return;
                    }
                }
                if (seen.get((int) seq)) {
                    duplicates++;
                    return;
                }
                seen.set((int) seq);
                verified++;
                consumed.lazySet(verified);
            }
        }
    }
}
