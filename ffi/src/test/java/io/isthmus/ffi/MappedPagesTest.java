package io.isthmus.ffi;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code madvise(MADV_POPULATE_WRITE)} on a fresh sparse file's mapping: the pages become resident (libc {@code
 * mincore(2)} says so; it reports the page cache, which the kernel's read-ahead fills around any fault, so only pages
 * absent before are asserted) and every byte stays as it was, including bytes written before; an unaligned range is refused
 * with EINVAL, which is also what a kernel without the advice answers.
 */
class MappedPagesTest {
    private static final long PAGE = 4096;
    private static final MethodHandle MINCORE = NativeLibrary.linker()
            .downcallHandle(
                    NativeLibrary.linker().defaultLookup().find("mincore").orElseThrow(),
                    FunctionDescriptor.of(
                            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));

    @TempDir
    Path tmp;

    @Test
    void shouldMakeTheRangeResidentAndChangeNoByte() throws Throwable {
        final long size = 1024 * PAGE;
        try (Arena arena = Arena.ofShared()) {
            final MemorySegment mapping = freshMapping(size, arena);
            final MemorySegment range = mapping.asSlice(512 * PAGE, 32 * PAGE);
            assertThat(residentPages(arena, mapping.asSlice(528 * PAGE, 8 * PAGE)))
                    .as("pages nothing wrote yet")
                    .isZero();
            // A write inside the range before populating it (which may read its neighbours into memory too).
            mapping.set(ValueLayout.JAVA_LONG, 520 * PAGE + 8, 0x1122334455667788L);
            assertThat(MappedPages.populateWrite(range)).as("errno").isZero();

            assertThat(residentPages(arena, range)).isEqualTo(32);
            assertThat(mapping.get(ValueLayout.JAVA_LONG, 520 * PAGE + 8)).isEqualTo(0x1122334455667788L);
            final byte[] zeros = new byte[(int) (4 * PAGE)];
            assertThat(mapping.asSlice(536 * PAGE, 4 * PAGE).mismatch(MemorySegment.ofArray(zeros)))
                    .isEqualTo(-1);
        }
    }

    @Test
    void shouldRefuseAnUnalignedRangeWithEinval() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            final MemorySegment mapping = freshMapping(4 * PAGE, arena);
            assertThat(MappedPages.populateWrite(mapping.asSlice(100, PAGE))).isEqualTo(Errno.EINVAL.value());
        }
    }

    /** A new sparse file of {@code size} bytes, mapped shared and writable in {@code arena} (the file is closed). */
    private MemorySegment freshMapping(final long size, final Arena arena) throws Exception {
        try (FileChannel file = FileChannel.open(
                tmp.resolve("segment"),
                StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            file.truncate(size);
            return file.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
        }
    }

    private static int residentPages(final Arena arena, final MemorySegment range) throws Throwable {
        final int pages = (int) (range.byteSize() / PAGE);
        final MemorySegment vector = arena.allocate(pages);
        assertThat((int) MINCORE.invokeExact(range, range.byteSize(), vector)).isZero();
        int resident = 0;
        for (int i = 0; i < pages; i++) {
            resident += vector.get(ValueLayout.JAVA_BYTE, i) & 1;
        }
        return resident;
    }
}
