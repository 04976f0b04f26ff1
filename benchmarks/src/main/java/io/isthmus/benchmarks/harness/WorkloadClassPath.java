package io.isthmus.benchmarks.harness;

import io.isthmus.benchmarks.harness.client.ClientRunnerMain;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The class path of a workload's client JVM: this module's, except for the Spark workload, which runs on the
 * benchmarks-spark module's ({@code benchmarks/spark/}), because Spark and Flink (this module's Flink workload) clash on
 * Kryo and slf4j. That module is built with this one; its class path is the one Maven wrote beside its classes.
 */
final class WorkloadClassPath {
    private WorkloadClassPath() {}

    static String of(final String workload) throws IOException {
        if (!workload.equals(ClientRunnerMain.SPARK_QUERY)) {
            return System.getProperty("java.class.path");
        }
        final Path module = benchmarksModule().resolve("spark");
        final Path classes = module.resolve("target/classes");
        final Path dependencies = module.resolve("target/runtime.classpath");
        if (!Files.isDirectory(classes) || !Files.isRegularFile(dependencies)) {
            throw new IOException("the Spark workload needs the benchmarks-spark module built: no " + classes + " or "
                    + dependencies + " (./isthmus bench builds every module first)");
        }
        return classes
                + java.io.File.pathSeparator
                + Files.readString(dependencies, StandardCharsets.UTF_8).trim();
    }

    /** {@code benchmarks/}: the harness runs from its {@code target/classes}. */
    private static Path benchmarksModule() throws IOException {
        try {
            final Path classes = Path.of(WorkloadClassPath.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
            return classes.getParent().getParent();
        } catch (final URISyntaxException e) {
            throw new IOException("where the harness's classes are", e);
        }
    }
}
