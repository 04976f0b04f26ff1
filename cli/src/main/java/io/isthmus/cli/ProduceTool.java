package io.isthmus.cli;

import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.client.producer.ProducerConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code isthmus produce}: each line of standard input becomes a record (like kafka-console-producer). */
@Command(
        name = "produce",
        mixinStandardHelpOptions = true,
        description = "Read lines from stdin and produce each as a record.")
public final class ProduceTool implements Callable<Integer> {
    @Option(names = "--bootstrap", required = true, description = "Broker address, host:port.")
    String bootstrap;

    @Option(names = "--topic", required = true, description = "Topic to produce to.")
    String topic;

    @Option(
            names = "--key-separator",
            description = "Split each line at the first occurrence into key and value (no key without it).")
    String keySeparator;

    @Option(names = "--compression", defaultValue = "none", description = "none, gzip, snappy, lz4 or zstd.")
    String compression;

    @Option(names = "--property", description = "Producer setting key=value (repeatable).")
    Map<String, String> properties = new HashMap<>();

    public static void main(final String[] args) {
        System.exit(new CommandLine(new ProduceTool()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        final Map<String, Object> settings = new HashMap<>(properties);
        settings.put(ProducerConfig.BOOTSTRAP_SERVERS, bootstrap);
        settings.put(ProducerConfig.COMPRESSION_TYPE, compression);
        final AtomicReference<Exception> failure = new AtomicReference<>();
        long count = 0;
        try (IsthmusProducer producer = new IsthmusProducer(new ProducerConfig(settings));
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                byte[] key = null;
                String value = line;
                if (keySeparator != null) {
                    final int at = line.indexOf(keySeparator);
                    if (at >= 0) {
                        key = line.substring(0, at).getBytes(StandardCharsets.UTF_8);
                        value = line.substring(at + keySeparator.length());
                    }
                }
                producer.send(
                        topic,
                        IsthmusProducer.ANY_PARTITION,
                        IsthmusProducer.NOW,
                        key,
                        value.getBytes(StandardCharsets.UTF_8),
                        null,
                        (metadata, exception) -> {
                            if (exception != null) {
                                failure.compareAndSet(null, exception);
                            }
                        });
                count++;
            }
            producer.flush();
        }
        if (failure.get() != null) {
            System.err.println("produce: failed: " + failure.get().getMessage());
            return 1;
        }
        System.err.println("produce: " + count + " records to " + topic);
        return 0;
    }
}
