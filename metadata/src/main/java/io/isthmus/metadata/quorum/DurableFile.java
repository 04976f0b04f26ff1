package io.isthmus.metadata.quorum;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Replacing a small file so that a crash leaves the old contents or the new, never half of them: write a temporary
 * file beside it, force it, move it into place, and force the directory so the move itself is on disk.
 */
final class DurableFile {
    /** What goes into the file. */
    @FunctionalInterface
    interface Contents {
        void writeTo(OutputStream out) throws IOException;
    }

    private DurableFile() {}

    static void replace(Path file, Contents contents) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (OutputStream out = Files.newOutputStream(tmp)) {
            contents.writeTo(out);
        }
        try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
            channel.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel directory = FileChannel.open(file.toAbsolutePath().getParent(), StandardOpenOption.READ)) {
            directory.force(true);
        }
    }
}
