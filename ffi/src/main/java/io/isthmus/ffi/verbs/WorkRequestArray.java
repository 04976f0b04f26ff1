package io.isthmus.ffi.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.isthmus.ffi.layout.IbvRecvWr;
import io.isthmus.ffi.layout.IbvSendWr;
import io.isthmus.ffi.layout.IbvSge;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code capacity} work-request structs of one kind ({@code ibv_send_wr} or {@code ibv_recv_wr}) in one
 * off-heap array, each with its own {@code maxSge} SGEs in a second array that its {@code sg_list} points
 * into, linked through their {@code next} pointers into a chain of the first {@code count} on demand. A
 * post hands the provider the array's head; relinking happens only when {@code count} changes, so
 * reposting the same chain writes nothing.
 *
 * <pre>
 *   requests: [wr 0][wr 1] ... [wr n-1]              wr.sg_list ──► its row of sges
 *   sges:     [sge 0.0 .. sge 0.m-1][sge 1.0 ..] ...
 * </pre>
 */
final class WorkRequestArray {
    /** Where one kind of work request keeps the fields this array manages. */
    record Shape(StructLayout layout, long nextOffset, long sgListOffset, long numSgeOffset) {}

    static final Shape SEND = new Shape(IbvSendWr.LAYOUT, IbvSendWr.NEXT, IbvSendWr.SG_LIST, IbvSendWr.NUM_SGE);
    static final Shape RECEIVE = new Shape(IbvRecvWr.LAYOUT, IbvRecvWr.NEXT, IbvRecvWr.SG_LIST, IbvRecvWr.NUM_SGE);

    private final MemorySegment structs;
    private final MemorySegment sges;
    private final int capacity;
    private final int maxSge;
    private final long stride;
    private final Shape shape;
    private int linked = -1;

    WorkRequestArray(
            final MemorySegment structs,
            final MemorySegment sges,
            final int capacity,
            final int maxSge,
            final Shape shape) {
        this.structs = structs;
        this.sges = sges;
        this.capacity = capacity;
        this.maxSge = maxSge;
        this.stride = shape.layout().byteSize();
        this.shape = shape;
        for (int i = 0; i < capacity; i++) {
            final long wr = i * stride;
            structs.set(
                    ADDRESS, wr + shape.sgListOffset(), sges.asSlice(i * maxSge * IbvSge.SIZE, maxSge * IbvSge.SIZE));
            structs.set(JAVA_INT, wr + shape.numSgeOffset(), 0);
        }
    }

    /** Allocates {@code capacity} zeroed requests with room for {@code maxSge} SGEs each, owned by {@code arena}. */
    static WorkRequestArray allocate(final Arena arena, final int capacity, final int maxSge, final Shape shape) {
        if (capacity < 1 || maxSge < 1) {
            throw new IllegalArgumentException(
                    "capacity and maxSge must be >= 1: capacity=" + capacity + ", maxSge=" + maxSge);
        }
        final MemorySegment structs = arena.allocate(
                shape.layout().byteSize() * capacity, shape.layout().byteAlignment());
        final MemorySegment sges =
                arena.allocate(IbvSge.LAYOUT.byteSize() * capacity * maxSge, IbvSge.LAYOUT.byteAlignment());
        return new WorkRequestArray(structs, sges, capacity, maxSge, shape);
    }

    MemorySegment structs() {
        return structs;
    }

    int capacity() {
        return capacity;
    }

    int maxSge() {
        return maxSge;
    }

    /** The byte offset of struct {@code index}. */
    long offset(final int index) {
        if (index < 0 || index >= capacity) {
            throw new IndexOutOfBoundsException("index=" + index + ", capacity=" + capacity);
        }
        return index * stride;
    }

    /** Sets SGE {@code sge} of request {@code index} and raises its SGE count to {@code sge + 1} if lower. */
    void sge(final int index, final int sge, final long address, final int length, final int lkey) {
        final long wr = offset(index);
        final long s = sgeOffset(index, sge);
        sges.set(JAVA_LONG, s + IbvSge.ADDR, address);
        sges.set(JAVA_INT, s + IbvSge.LENGTH, length);
        sges.set(JAVA_INT, s + IbvSge.LKEY, lkey);
        if (structs.get(JAVA_INT, wr + shape.numSgeOffset()) <= sge) {
            structs.set(JAVA_INT, wr + shape.numSgeOffset(), sge + 1);
        }
    }

    /** Patches only the length of an SGE (the common per-post change). */
    void sgeLength(final int index, final int sge, final int length) {
        offset(index);
        sges.set(JAVA_INT, sgeOffset(index, sge) + IbvSge.LENGTH, length);
    }

    int sgeCount(final int index) {
        return structs.get(JAVA_INT, offset(index) + shape.numSgeOffset());
    }

    void sgeCount(final int index, final int count) {
        if (count < 0 || count > maxSge) {
            throw new IndexOutOfBoundsException("count=" + count + ", maxSge=" + maxSge);
        }
        structs.set(JAVA_INT, offset(index) + shape.numSgeOffset(), count);
    }

    private long sgeOffset(final int index, final int sge) {
        if (sge < 0 || sge >= maxSge) {
            throw new IndexOutOfBoundsException("sge=" + sge + ", maxSge=" + maxSge);
        }
        return ((long) index * maxSge + sge) * IbvSge.SIZE;
    }

    /** Links the first {@code count} structs (the last one's {@code next} is NULL) and returns the head. */
    MemorySegment chain(final int count) {
        if (count != linked) {
            if (count < 1 || count > capacity) {
                throw new IndexOutOfBoundsException("count=" + count + ", capacity=" + capacity);
            }
            for (int i = 0; i < count - 1; i++) {
                structs.set(JAVA_LONG, offset(i) + shape.nextOffset(), structs.address() + offset(i + 1));
            }
            structs.set(JAVA_LONG, offset(count - 1) + shape.nextOffset(), 0L);
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
