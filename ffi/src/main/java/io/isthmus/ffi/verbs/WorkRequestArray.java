package io.isthmus.ffi.verbs;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;

/**
 * {@code capacity} work-request structs of one kind ({@code ibv_send_wr} or {@code ibv_recv_wr}) in one
 * off-heap array, linked through their {@code next} pointers into a chain of the first {@code count} on
 * demand. A post hands the provider the array's head; relinking happens only when {@code count} changes,
 * so reposting the same chain writes nothing.
 */
final class WorkRequestArray {
    private final MemorySegment structs;
    private final int capacity;
    private final long stride;
    private final long nextOffset;
    private int linked = -1;

    /**
     * @param stride the struct's size
     * @param nextOffset where the struct keeps its {@code next} pointer
     */
    WorkRequestArray(final MemorySegment structs, final int capacity, final long stride, final long nextOffset) {
        this.structs = structs;
        this.capacity = capacity;
        this.stride = stride;
        this.nextOffset = nextOffset;
    }

    int capacity() {
        return capacity;
    }

    /** The byte offset of struct {@code index}. */
    long offset(final int index) {
        if (index < 0 || index >= capacity) {
            throw new IndexOutOfBoundsException("index=" + index + ", capacity=" + capacity);
        }
        return index * stride;
    }

    /** Links the first {@code count} structs (the last one's {@code next} is NULL) and returns the head. */
    MemorySegment chain(final int count) {
        if (count != linked) {
            if (count < 1 || count > capacity) {
                throw new IndexOutOfBoundsException("count=" + count + ", capacity=" + capacity);
            }
            for (int i = 0; i < count - 1; i++) {
                structs.set(JAVA_LONG, offset(i) + nextOffset, structs.address() + offset(i + 1));
            }
            structs.set(JAVA_LONG, offset(count - 1) + nextOffset, 0L);
            linked = count;
        }
        return structs;
    }

    /** The index of the struct at native address {@code address}, or -1 if it is not one of ours. */
    int indexOf(final long address) {
        final long delta = address - structs.address();
        return delta >= 0 && delta < capacity * stride ? (int) (delta / stride) : -1;
    }
}
