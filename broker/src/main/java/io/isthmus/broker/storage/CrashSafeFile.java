package io.isthmus.broker.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * Replaces a small file so that a crash (of the process or the machine) leaves either its old or its new contents:
 * the new contents go to a temporary file beside it, which is forced to disk, renamed over the file atomically, and
 * then the directory is forced so that the rename itself is durable. Without the first force a file system that
 * delays allocation can persist the rename before the data (an empty file after a power loss); without the second
 * the rename can be lost.
 */
public final class CrashSafeFile {
    private static final String TEMPORARY_SUFFIX = ".tmp";

    private CrashSafeFile() {}

    /** Replaces {@code file}'s contents with {@code text} in UTF-8, durably. */
    public static void replace(final Path file, final CharSequence text) throws IOException {
        final Path temporary = file.resolveSibling(file.getFileName() + TEMPORARY_SUFFIX);
        final ByteBuffer bytes = StandardCharsets.UTF_8.encode(text.toString());
        try (FileChannel channel = FileChannel.open(
                temporary, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
            channel.force(true);
        }
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel directory = FileChannel.open(file.toAbsolutePath().getParent(), StandardOpenOption.READ)) {
            directory.force(true);
        }
    }

    /**
     * Gets {@code file} ready to be read at startup: creates its directory, removes the temporary a crash left beside
     * it (a replacement that never reached its rename), and tells whether the file exists.
     */
    public static boolean prepareToRead(final Path file) throws IOException {
        final Path directory = file.toAbsolutePath().getParent();
        Files.createDirectories(directory);
        removeLeftovers(directory, file.getFileName().toString());
        return Files.exists(file);
    }

    /**
     * Removes the temporary files a crash left in {@code directory} for files matching {@code glob} (replacements that
     * never reached their rename: the files they were for still hold their old contents).
     */
    public static void removeLeftovers(final Path directory, final String glob) throws IOException {
        try (DirectoryStream<Path> leftovers = Files.newDirectoryStream(directory, glob + TEMPORARY_SUFFIX)) {
            for (final Path leftover : leftovers) {
                // A crash leaves regular files only; anything else by that name was put there by someone, not us.
                if (Files.isRegularFile(leftover, LinkOption.NOFOLLOW_LINKS)) {
                    Files.deleteIfExists(leftover);
                }
            }
        }
    }

    /**
     * Moves a file that cannot be read aside as {@code <name>.corrupt-<time>}, keeping it for inspection, and returns
     * where it went.
     */
    public static Path setAside(final Path file) throws IOException {
        final Path aside = file.resolveSibling(
                file.getFileName() + ".corrupt-" + Instant.now().toString().replace(':', '-'));
        Files.move(file, aside, StandardCopyOption.ATOMIC_MOVE);
        return aside;
    }
}
