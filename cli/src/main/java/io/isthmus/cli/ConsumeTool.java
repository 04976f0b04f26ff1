package io.isthmus.cli;

import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerBatch;
import io.isthmus.client.consumer.ConsumerConfig;
import io.isthmus.client.consumer.IsthmusConsumer;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code isthmus consume}: prints records of a topic, one per line (like kafka-console-consumer). */
@Command(name = "consume", mixinStandardHelpOptions = true, description = "Print the records of a topic.")
public final class ConsumeTool implements Callable<Integer> {
    @Option(names = "--bootstrap", required = true, description = "Broker address, host:port.")
    String bootstrap;

    @Option(names = "--topic", required = true, description = "Topic to read.")
    String topic;

    @Option(names = "--from-beginning", description = "Start at the earliest offset (default: only new records).")
    boolean fromBeginning;

    @Option(names = "--max-messages", defaultValue = "-1", description = "Stop after this many records.")
    long maxMessages;

    @Option(names = "--group", description = "Consumer group (commits offsets); without it all partitions are read.")
    String group;

    @Option(names = "--print-key", description = "Print key<TAB>value.")
    boolean printKey;

    @Option(names = "--timeout-ms", defaultValue = "-1", description = "Stop after this long without a record.")
    long timeoutMs;

    public static void main(final String[] args) {
        System.exit(new CommandLine(new ConsumeTool()).execute(args));
    }

    @Override
    public Integer call() {
        final Map<String, Object> settings = new HashMap<>();
        settings.put(ConsumerConfig.BOOTSTRAP_SERVERS, bootstrap);
        settings.put(ConsumerConfig.AUTO_OFFSET_RESET, fromBeginning ? "earliest" : "latest");
        if (group != null) {
            settings.put(ConsumerConfig.GROUP_ID, group);
        }
        final PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        long printed = 0;
        try (IsthmusConsumer consumer = new IsthmusConsumer(settings)) {
            if (group != null) {
                consumer.subscribe(List.of(topic));
            } else {
                try (IsthmusAdmin admin = new IsthmusAdmin(bootstrap)) {
                    consumer.assign(admin.partitionsOf(topic));
                }
            }
            Runtime.getRuntime().addShutdownHook(new Thread(consumer::wakeup));
            long lastRecord = System.nanoTime();
            while (maxMessages < 0 || printed < maxMessages) {
                try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(200))) {
                    for (final ConsumedRecord record : batch) {
                        if (printKey) {
                            out.print(record.keyAsString());
                            out.print('\t');
                        }
                        out.println(record.valueAsString());
                        printed++;
                        lastRecord = System.nanoTime();
                        if (maxMessages >= 0 && printed >= maxMessages) {
                            break;
                        }
                    }
                }
                out.flush();
                if (timeoutMs >= 0 && System.nanoTime() - lastRecord > timeoutMs * 1_000_000L) {
                    break;
                }
            }
            if (group != null) {
                consumer.commitSync();
            }
        } catch (final org.apache.kafka.common.errors.WakeupException e) {
            // Ctrl-C: stop quietly, like kafka-console-consumer.
        }
        out.flush();
        System.err.println("consume: " + printed + " records");
        return 0;
    }
}
