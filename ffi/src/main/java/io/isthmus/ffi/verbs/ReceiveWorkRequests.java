package io.isthmus.ffi.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.isthmus.ffi.layout.IbvRecvWr;
import io.isthmus.ffi.layout.IbvSge;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A reusable, preallocated array of {@code struct ibv_recv_wr} with their SGEs; the receive-side
 * twin of {@link SendWorkRequests}. Posting allocates nothing. Not thread-safe.
 */
public final class ReceiveWorkRequests {
    private final MemorySegment requests;
    private final MemorySegment sges;
    private final int capacity;
    private final int maxSge;
    private final WorkRequestArray array;

    private ReceiveWorkRequests(MemorySegment requests, MemorySegment sges, int capacity, int maxSge) {
        this.requests = requests;
        this.array = new WorkRequestArray(requests, capacity, IbvRecvWr.SIZE, IbvRecvWr.NEXT);
        this.sges = sges;
        this.capacity = capacity;
        this.maxSge = maxSge;
        for (int i = 0; i < capacity; i++) {
            requests.set(
                    ADDRESS,
                    i * IbvRecvWr.SIZE + IbvRecvWr.SG_LIST,
                    sges.asSlice(i * maxSge * IbvSge.SIZE, maxSge * IbvSge.SIZE));
        }
    }

    /** Allocates {@code capacity} zeroed receive requests with {@code maxSge} SGE slots each. */
    public static ReceiveWorkRequests allocate(Arena arena, int capacity, int maxSge) {
        if (capacity < 1 || maxSge < 1) {
            throw new IllegalArgumentException(
                    "capacity and maxSge must be >= 1: capacity=" + capacity + ", maxSge=" + maxSge);
        }
        MemorySegment requests =
                arena.allocate(IbvRecvWr.LAYOUT.byteSize() * capacity, IbvRecvWr.LAYOUT.byteAlignment());
        MemorySegment sges =
                arena.allocate(IbvSge.LAYOUT.byteSize() * capacity * maxSge, IbvSge.LAYOUT.byteAlignment());
        return new ReceiveWorkRequests(requests, sges, capacity, maxSge);
    }

    public int capacity() {
        return capacity;
    }

    public MemorySegment segment() {
        return requests;
    }

    /** Sets {@code wr_id} of request {@code index} and clears its SGE count. */
    public ReceiveWorkRequests set(int index, long wrId) {
        long wr = offset(index);
        requests.set(JAVA_LONG, wr + IbvRecvWr.WR_ID, wrId);
        requests.set(JAVA_INT, wr + IbvRecvWr.NUM_SGE, 0);
        return this;
    }

    /** Sets SGE {@code sge} of request {@code index}, raising its SGE count if needed. */
    public ReceiveWorkRequests sge(int index, int sge, long address, int length, int lkey) {
        long wr = offset(index);
        if (sge < 0 || sge >= maxSge) {
            throw new IndexOutOfBoundsException("sge=" + sge + ", maxSge=" + maxSge);
        }
        long s = ((long) index * maxSge + sge) * IbvSge.SIZE;
        sges.set(JAVA_LONG, s + IbvSge.ADDR, address);
        sges.set(JAVA_INT, s + IbvSge.LENGTH, length);
        sges.set(JAVA_INT, s + IbvSge.LKEY, lkey);
        if (requests.get(JAVA_INT, wr + IbvRecvWr.NUM_SGE) <= sge) {
            requests.set(JAVA_INT, wr + IbvRecvWr.NUM_SGE, sge + 1);
        }
        return this;
    }

    /** Sets SGE {@code sge} of request {@code index} to {@code length} bytes at {@code offset} of {@code region}. */
    public ReceiveWorkRequests sge(int index, int sge, MemoryRegion region, long offset, int length) {
        return sge(index, sge, region.address() + offset, length, region.lkey());
    }

    public long wrId(int index) {
        return requests.get(JAVA_LONG, offset(index) + IbvRecvWr.WR_ID);
    }

    public int sgeCount(int index) {
        return requests.get(JAVA_INT, offset(index) + IbvRecvWr.NUM_SGE);
    }

    MemorySegment chain(int count) {
        return array.chain(count);
    }

    int indexOf(long address) {
        return array.indexOf(address);
    }

    private long offset(int index) {
        return array.offset(index);
    }
}
