package io.isthmus.connector.spark.source;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Where a streaming query started, kept in the source's checkpoint directory, so that a query stopped before its first
 * micro-batch committed starts from the same offsets when it comes back ("latest" must not move on). The file is the
 * one Spark's Kafka source writes: {@code <checkpoint>/sources/<n>/0}, holding {@code v1} and the offsets JSON.
 */
final class InitialOffsetLog {
    private static final String VERSION = "v1";
    private static final String FILE = "0";

    private final Path file;
    private final Configuration hadoop;

    InitialOffsetLog(final String checkpointLocation, final Configuration hadoop) {
        this.file = new Path(checkpointLocation, FILE);
        this.hadoop = hadoop;
    }

    /** The offsets written before, or {@code resolve}'s, written now. */
    IsthmusSourceOffset getOrCreate(final Supplier<IsthmusSourceOffset> resolve) {
        try {
            final FileSystem fs = file.getFileSystem(hadoop);
            if (fs.exists(file)) {
                return read(fs);
            }
            final IsthmusSourceOffset offsets = resolve.get();
            final Path temporary = new Path(file.getParent(), "." + FILE + "." + UUID.randomUUID() + ".tmp");
            try (OutputStream out = fs.create(temporary, false)) {
                out.write((VERSION + "\n" + offsets.json()).getBytes(StandardCharsets.UTF_8));
            }
            if (!fs.rename(temporary, file)) {
                fs.delete(temporary, false);
                if (fs.exists(file)) {
                    return read(fs); // another attempt of this query got there first
                }
                throw new IOException("could not rename " + temporary + " to " + file);
            }
            return offsets;
        } catch (final IOException e) {
            throw new UncheckedIOException("initial offsets of the query at " + file, e);
        }
    }

    private IsthmusSourceOffset read(final FileSystem fs) throws IOException {
        final String text;
        try (InputStream in = fs.open(file)) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        final int newline = text.indexOf('\n');
        if (newline < 0 || !text.substring(0, newline).equals(VERSION)) {
            throw new IllegalStateException("initial offsets at " + file + " are not of version " + VERSION + ": "
                    + text + " (written by a newer connector?)");
        }
        return IsthmusSourceOffset.fromJson(text.substring(newline + 1).trim());
    }
}
