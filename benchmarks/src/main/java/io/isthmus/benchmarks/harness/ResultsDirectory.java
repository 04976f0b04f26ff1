package io.isthmus.benchmarks.harness;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * Where runs write: {@code benchmarks/results/<prefix><timestamp>/} from the repository root, or {@code
 * results/<prefix><timestamp>/} from inside the module. Quick runs use a {@code quick-} prefix, which .gitignore keeps
 * out of the repository; full runs are meant to be committed.
 */
public final class ResultsDirectory {
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

    private ResultsDirectory() {}

    public static Path fresh(final String prefix) {
        final Path base =
                Files.isDirectory(Path.of("benchmarks")) ? Path.of("benchmarks", "results") : Path.of("results");
        return base.resolve(prefix + LocalDateTime.now().format(STAMP)).toAbsolutePath();
    }
}
