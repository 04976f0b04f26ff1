package io.isthmus.ffi.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.isthmus.ffi.layout.IbvRecvWr;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A reusable, preallocated array of {@code struct ibv_recv_wr} with their SGEs; the receive-side
 * twin of {@link SendWorkRequests}. Posting allocates nothing. Not thread-safe.
 */
public final class ReceiveWorkRequests {
    private final WorkRequestArray array;
    private final MemorySegment requests;

    private ReceiveWorkRequests(final WorkRequestArray array) {
        this.array = array;
        this.requests = array.structs();
    }

    /** Allocates {@code capacity} zeroed receive requests with {@code maxSge} SGE slots each. */
    public static ReceiveWorkRequests allocate(Arena arena, int capacity, int maxSge) {
        return new ReceiveWorkRequests(WorkRequestArray.allocate(arena, capacity, maxSge, WorkRequestArray.RECEIVE));
    }

    public int capacity() {
        return array.capacity();
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
        array.sge(index, sge, address, length, lkey);
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
        return array.sgeCount(index);
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
