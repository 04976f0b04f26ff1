package io.isthmus.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.isthmus.benchmarks.harness.MachineInfo;
import io.isthmus.benchmarks.harness.ResultsDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./isthmus bench --jmh}: runs the JMH microbenchmarks of {@code io.isthmus.benchmarks.jmh} (or those matching
 * {@code --only}), prints a Markdown table with bytes per second where a score is per batch, and the log append's
 * fraction of this machine's memcpy bandwidth measured in the same run; writes {@code jmh.md} and {@code jmh.json}.
 * The consumer benchmark's isthmus consumer is reported against kafka-clients' KafkaConsumer of the same run. Ends with
 * one line {@code jmh: append_1k_vs_memcpy=X append_64k_vs_memcpy=Y consumer_100b_vs_kafka_consumer=Z
 * consumer_1k_vs_kafka_consumer=W results=PATH}.
 */
@Command(
        name = "isthmus bench --jmh",
        mixinStandardHelpOptions = true,
        description = "Runs the JMH microbenchmarks and writes a Markdown table.")
public final class JmhMain implements Callable<Integer> {
    private static final String PACKAGE = "io.isthmus.benchmarks.jmh.";
    private static final String APPEND = "LogAppendBenchmark.append";
    private static final String MEMCPY = "MemcpyBenchmark.copy";
    private static final String ISTHMUS_CONSUMER = "ConsumerBenchmark.isthmus";
    private static final String KAFKA_CONSUMER = "ConsumerBenchmark.kafkaConsumer";

    /**
     * Benchmarks whose score is only reported as a ratio to another's measured in the same run: numerator, then
     * denominator. Whenever a run selects the numerator, it runs the denominator too.
     */
    private static final List<List<String>> PAIRS =
            List.of(List.of(APPEND, MEMCPY), List.of(ISTHMUS_CONSUMER, KAFKA_CONSUMER));

    @Option(names = "--only", paramLabel = "REGEX", description = "Only benchmarks whose name matches (JMH regex).")
    private String only;

    @Option(names = "--quick", description = "One warmup and two measurement iterations of 0.5 s: a smoke run.")
    private boolean quick;

    @Option(names = "--prof-gc", description = "Adds JMH's GC profiler: bytes allocated per operation.")
    private boolean profileGc;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "Output directory (default benchmarks/results/jmh-<timestamp>).")
    private Path out;

    public static void main(final String[] args) {
        System.exit(new CommandLine(new JmhMain()).execute(args));
    }

    @Override
    public Integer call() throws RunnerException, IOException {
        final Path dir = out != null ? out : ResultsDirectory.fresh(quick ? "jmh-quick-" : "jmh-");
        Files.createDirectories(dir);
        final String include = PACKAGE + (only == null ? ".*" : ".*(" + only + ").*");
        final ChainedOptionsBuilder options =
                new OptionsBuilder().include(include).shouldFailOnError(true);
        // JMH selects a benchmark when the include pattern is found in its full name: test the numerators the same
        // way, so that no --only (a package prefix, a method name, an anchored pattern) runs one half of a pair.
        final java.util.regex.Pattern selected = java.util.regex.Pattern.compile(include);
        for (final List<String> pair : PAIRS) {
            if (selected.matcher(PACKAGE + pair.get(0)).find()
                    && !selected.matcher(PACKAGE + pair.get(1)).find()) {
                options.include("^" + java.util.regex.Pattern.quote(PACKAGE + pair.get(1)) + "$");
            }
        }
        final io.isthmus.ffi.RdmaAvailability rdma = io.isthmus.ffi.Rdma.availability();
        if (!rdma.usable()) {
            // The verbs benchmark needs a device; elsewhere it is left out, and the run says so.
            options.exclude("VerbsPostPollBenchmark");
            if (selected.matcher(PACKAGE + "VerbsPostPollBenchmark.postAndPoll").find()) {
                System.err.println("jmh: VerbsPostPollBenchmark left out: " + rdma.reason()
                        + " (run it in the Soft-RoCE guest: ./isthmus softroce -- ./isthmus bench --jmh"
                        + " --only VerbsPostPoll --prof-gc)");
            }
        }
        if (quick) {
            options.warmupIterations(1)
                    .warmupTime(TimeValue.milliseconds(500))
                    .measurementIterations(2)
                    .measurementTime(TimeValue.milliseconds(500));
        }
        if (profileGc) {
            options.addProfiler(GCProfiler.class);
        }
        final Collection<RunResult> results;
        try {
            results = new Runner(options.build()).run();
        } catch (final org.openjdk.jmh.runner.NoBenchmarksException nothing) {
            System.err.println("jmh: no benchmark to run for --only " + only);
            return 2;
        }
        final List<Row> rows = rows(results);
        final Double append1k = ratio(rows, APPEND, MEMCPY, "1024");
        final Double append64k = ratio(rows, APPEND, MEMCPY, "65536");
        final Double consumer100 = ratio(rows, ISTHMUS_CONSUMER, KAFKA_CONSUMER, "100");
        final Double consumer1k = ratio(rows, ISTHMUS_CONSUMER, KAFKA_CONSUMER, "1024");
        final String table = markdown(rows, append1k, append64k) + consumerMarkdown(rows, consumer100, consumer1k);
        System.out.println();
        System.out.println(table);
        Files.writeString(
                dir.resolve("jmh.md"),
                "# JMH microbenchmarks\n\n" + MachineInfo.collect().markdown() + "\n" + table);
        final Map<String, Object> json = new LinkedHashMap<>();
        json.put("machine", MachineInfo.collect().asMap());
        json.put("quick", quick);
        json.put("benchmarks", rows.stream().map(Row::asMap).toList());
        json.put("append_1k_vs_memcpy", append1k);
        json.put("append_64k_vs_memcpy", append64k);
        json.put("isthmus_consumer_100b_vs_kafka_consumer", consumer100);
        json.put("isthmus_consumer_1k_vs_kafka_consumer", consumer1k);
        new ObjectMapper()
                .enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(dir.resolve("jmh.json").toFile(), json);
        System.out.println("jmh: append_1k_vs_memcpy=" + format(append1k) + " append_64k_vs_memcpy=" + format(append64k)
                + " consumer_100b_vs_kafka_consumer=" + format(consumer100) + " consumer_1k_vs_kafka_consumer="
                + format(consumer1k) + " results=" + dir);
        return 0;
    }

    private static List<Row> rows(final Collection<RunResult> results) {
        final List<Row> rows = new ArrayList<>();
        for (final RunResult result : results) {
            final var params = result.getParams();
            final String name = params.getBenchmark().substring(PACKAGE.length());
            final StringBuilder paramText = new StringBuilder();
            Integer sizeBytes = null;
            for (final String key : params.getParamsKeys()) {
                final String value = params.getParam(key);
                if (!paramText.isEmpty()) {
                    paramText.append(' ');
                }
                paramText.append(key).append('=').append(value);
                if (key.equals("batchBytes") || key.equals("bytes") || key.equals("recordBytes")) {
                    sizeBytes = Integer.valueOf(value);
                }
            }
            final Result<?> primary = result.getPrimaryResult();
            final Map<String, Double> secondary = new LinkedHashMap<>();
            result.getSecondaryResults().forEach((label, value) -> {
                if (label.endsWith("gc.alloc.rate.norm")) {
                    secondary.put("alloc_bytes_per_op", value.getScore());
                }
            });
            rows.add(new Row(
                    name,
                    paramText.toString(),
                    primary.getScore(),
                    primary.getScoreError(),
                    primary.getScoreUnit(),
                    sizeBytes,
                    secondary));
        }
        return rows;
    }

    private static Double ratio(
            final List<Row> rows, final String numerator, final String denominator, final String size) {
        final Row top = find(rows, numerator, size);
        final Row bottom = find(rows, denominator, size);
        if (top == null || bottom == null || top.bytesPerSecond() == null || bottom.bytesPerSecond() == null) {
            return null;
        }
        return top.bytesPerSecond() / bottom.bytesPerSecond();
    }

    private static Row find(final List<Row> rows, final String name, final String size) {
        for (final Row row : rows) {
            if (row.name().equals(name)
                    && row.sizeBytes() != null
                    && row.sizeBytes().toString().equals(size)) {
                return row;
            }
        }
        return null;
    }

    private static String markdown(final List<Row> rows, final Double append1k, final Double append64k) {
        final StringBuilder md = new StringBuilder();
        md.append("| benchmark | params | score | ± (99.9%) | unit | GB/s | alloc B/op |\n");
        md.append("| --- | --- | ---: | ---: | --- | ---: | ---: |\n");
        for (final Row row : rows) {
            md.append("| ")
                    .append(row.name())
                    .append(" | ")
                    .append(row.params())
                    .append(" | ")
                    .append(String.format(Locale.ROOT, "%,.0f", row.score()))
                    .append(" | ")
                    .append(String.format(Locale.ROOT, "%,.0f", row.error()))
                    .append(" | ")
                    .append(row.unit())
                    .append(" | ")
                    .append(
                            row.bytesPerSecond() == null
                                    ? ""
                                    : String.format(Locale.ROOT, "%.2f", row.bytesPerSecond() / 1e9))
                    .append(" | ")
                    .append(
                            row.secondary().containsKey("alloc_bytes_per_op")
                                    ? String.format(
                                            Locale.ROOT, "%.1f", row.secondary().get("alloc_bytes_per_op"))
                                    : "")
                    .append(" |\n");
        }
        if (find(rows, APPEND, "1024") == null && find(rows, APPEND, "65536") == null) {
            return md.toString();
        }
        md.append('\n')
                .append("Log append as a fraction of memcpy bandwidth (same sizes, same run): 1 KiB batches ")
                .append(format(append1k))
                .append(", 64 KiB batches ")
                .append(format(append64k))
                .append(
                        ".\nThe append validates the batch (CRC-32C over the whole batch, record structure), copies it into"
                                + " the mapped tail of a tmpfs segment (first-touch page faults included), assigns offsets and"
                                + " publishes; memcpy is MemorySegment.copy into a pre-touched 256 MiB off-heap ring.\n");
        return md.toString();
    }

    /** The consumer benchmark's pairs: records/s and MB/s of each consumer and the isthmus/KafkaConsumer ratio. */
    private static String consumerMarkdown(final List<Row> rows, final Double ratio100, final Double ratio1k) {
        if (find(rows, ISTHMUS_CONSUMER, "100") == null && find(rows, ISTHMUS_CONSUMER, "1024") == null) {
            return "";
        }
        final StringBuilder md = new StringBuilder("\n## Consumers against the same embedded isthmus broker\n\n");
        md.append("| record bytes | isthmus records/s | isthmus MB/s | KafkaConsumer records/s | KafkaConsumer MB/s"
                + " | isthmus/KafkaConsumer |\n| ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (final String size : List.of("100", "1024")) {
            final Row isthmus = find(rows, ISTHMUS_CONSUMER, size);
            final Row kafka = find(rows, KAFKA_CONSUMER, size);
            if (isthmus == null && kafka == null) {
                continue;
            }
            md.append("| ")
                    .append(size)
                    .append(" | ")
                    .append(records(isthmus))
                    .append(" | ")
                    .append(megabytes(isthmus))
                    .append(" | ")
                    .append(records(kafka))
                    .append(" | ")
                    .append(megabytes(kafka))
                    .append(" | ")
                    .append(format(size.equals("100") ? ratio100 : ratio1k))
                    .append(" |\n");
        }
        md.append("\nOne operation is one record; MB/s counts value bytes (10^6). Both consumers read the same"
                + " preloaded one-partition topic of an isthmus broker embedded in the benchmark JVM, CRC checks on:"
                + " the isthmus consumer through its allocation-free poll(handler, limit, timeout), KafkaConsumer"
                + " through poll(Duration) with byte[] values.\n");
        return md.toString();
    }

    private static String records(final Row row) {
        return row == null ? "n/a" : String.format(Locale.ROOT, "%,.0f", row.score());
    }

    private static String megabytes(final Row row) {
        return row == null || row.bytesPerSecond() == null
                ? "n/a"
                : String.format(Locale.ROOT, "%,.1f", row.bytesPerSecond() / 1e6);
    }

    private static String format(final Double value) {
        return value == null ? "n/a" : String.format(Locale.ROOT, "%.3f", value);
    }

    /** One benchmark and parameter combination. {@code sizeBytes} is the batch size of per-batch scores. */
    private record Row(
            String name,
            String params,
            double score,
            double error,
            String unit,
            Integer sizeBytes,
            Map<String, Double> secondary) {
        Double bytesPerSecond() {
            return sizeBytes == null || !unit.equals("ops/s") ? null : score * sizeBytes;
        }

        Map<String, Object> asMap() {
            final Map<String, Object> map = new LinkedHashMap<>();
            map.put("benchmark", name);
            map.put("params", params);
            map.put("score", score);
            map.put("error", error);
            map.put("unit", unit);
            map.put("bytes_per_second", bytesPerSecond());
            map.putAll(secondary);
            return map;
        }
    }
}
