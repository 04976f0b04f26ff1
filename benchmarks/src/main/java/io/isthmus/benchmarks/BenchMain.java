package io.isthmus.benchmarks;

import io.isthmus.benchmarks.harness.BenchCase;
import io.isthmus.benchmarks.harness.BenchPlan;
import io.isthmus.benchmarks.harness.BenchRun;
import io.isthmus.benchmarks.harness.ResultsDirectory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./isthmus bench [--quick] [--only NAME] [--repetitions N] [--out DIR]}: the side-by-side harness. Starts an
 * Apache Kafka 4.4.0 KRaft broker and an isthmus broker, each in its own JVM, runs every workload against both with
 * kafka-clients and the isthmus client in their own JVMs (every pairing {@code N} times: 3 in a full run, 1 with
 * {@code --quick}), measures this machine's memcpy and loopback TCP limits and the isthmus log's append rate, and
 * writes {@code results.json}, {@code report.md} and PNG plots. Progress goes to stderr; stdout ends with exactly one
 * {@code bench: ...} line of medians.
 */
@Command(
        name = "isthmus bench",
        mixinStandardHelpOptions = true,
        description = "Compares isthmus with Apache Kafka 4.4.0 side by side and writes a report with plots.")
public final class BenchMain implements Callable<Integer> {
    @Option(names = "--quick", description = "Smoke run: fewer records and configurations, under three minutes.")
    private boolean quick;

    @Option(
            names = "--only",
            paramLabel = "NAME",
            split = ",",
            description =
                    "Only these groups: produce, consume, produce-latency, e2e-latency, idle-fetch, fan-out, flink,"
                            + " spark, transactions, limits.")
    private List<String> only = new ArrayList<>();

    @Option(
            names = "--repetitions",
            paramLabel = "N",
            description = "Runs of every pairing (default 3, 1 with --quick); the report gives medians and ranges.")
    private Integer repetitions;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description =
                    "Output directory (default benchmarks/results/<timestamp>, or quick-<timestamp> with --quick).")
    private Path out;

    public static void main(final String[] args) {
        System.exit(new CommandLine(new BenchMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        final BenchPlan plan = repetitions == null ? BenchPlan.of(quick, only) : BenchPlan.of(quick, only, repetitions);
        final Path dir = out != null ? out.toAbsolutePath() : ResultsDirectory.fresh(quick ? "quick-" : "");
        final BenchRun run = new BenchRun(plan, dir);
        final BenchRun.Outcome outcome = run.execute();
        System.out.println(outcome.markdown());
        final List<BenchCase> failedCases = outcome.failedCases();
        if (!failedCases.isEmpty()) {
            System.err.println(
                    "bench: " + failedCases.size() + " case(s) failed on at least one broker, see report.md");
        }
        System.out.println(outcome.summaryLine());
        return failedCases.isEmpty() ? 0 : 1;
    }
}
