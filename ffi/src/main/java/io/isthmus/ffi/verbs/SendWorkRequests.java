package io.isthmus.ffi.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.isthmus.ffi.layout.IbvSendWr;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A reusable, preallocated array of {@code struct ibv_send_wr}, each with its own array of
 * {@code struct ibv_sge}: the off-heap "stateful verb call" of DiSNI. Build requests once, patch
 * the fields that change (length, remote address, immediate) and post again; nothing here or in
 * {@link QueuePair#postSend} allocates on the Java heap.
 *
 * <pre>
 *  requests: [ibv_send_wr 0][ibv_send_wr 1] ... [ibv_send_wr n-1]     (128 bytes each)
 *                 | sg_list       | sg_list
 *  sges:     [sge 0.0 .. 0.m-1][sge 1.0 .. 1.m-1] ...                  (16 bytes each)
 * </pre>
 *
 * <p>Posting the first {@code count} requests links them through {@code next}; the chain is
 * relinked only when {@code count} changes. Not thread-safe: one poster per instance.
 */
public final class SendWorkRequests {
    private static final ValueLayout.OfInt IMM_BIG_ENDIAN = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);

    private final WorkRequestArray array;
    private final MemorySegment requests;

    private SendWorkRequests(final WorkRequestArray array) {
        this.array = array;
        this.requests = array.structs();
    }

    /**
     * Allocates {@code capacity} zeroed work requests with room for {@code maxSge} SGEs each. The
     * arena owns the memory; keep it open while requests may still be posted.
     */
    public static SendWorkRequests allocate(Arena arena, int capacity, int maxSge) {
        return new SendWorkRequests(WorkRequestArray.allocate(arena, capacity, maxSge, WorkRequestArray.SEND));
    }

    /** How many requests the array holds. */
    public int capacity() {
        return array.capacity();
    }

    /** The SGE slots of each request. */
    public int maxSge() {
        return array.maxSge();
    }

    /** The native array (the first request). */
    public MemorySegment segment() {
        return requests;
    }

    /**
     * Sets the common fields of request {@code index} and clears its SGE count.
     *
     * @param sendFlags {@link SendFlags} bits
     */
    public SendWorkRequests set(int index, long wrId, Opcode opcode, int sendFlags) {
        long wr = offset(index);
        requests.set(JAVA_LONG, wr + IbvSendWr.WR_ID, wrId);
        requests.set(JAVA_INT, wr + IbvSendWr.OPCODE, opcode.value());
        requests.set(JAVA_INT, wr + IbvSendWr.SEND_FLAGS, sendFlags);
        requests.set(JAVA_INT, wr + IbvSendWr.NUM_SGE, 0);
        return this;
    }

    /** Replaces the {@link SendFlags} of request {@code index} (e.g. to signal one in N). */
    public SendWorkRequests flags(int index, int sendFlags) {
        requests.set(JAVA_INT, offset(index) + IbvSendWr.SEND_FLAGS, sendFlags);
        return this;
    }

    /** Replaces the {@code wr_id} of request {@code index}. */
    public SendWorkRequests wrId(int index, long wrId) {
        requests.set(JAVA_LONG, offset(index) + IbvSendWr.WR_ID, wrId);
        return this;
    }

    /**
     * Sets SGE {@code sge} of request {@code index} and raises its SGE count to {@code sge + 1} if
     * lower.
     */
    public SendWorkRequests sge(int index, int sge, long address, int length, int lkey) {
        array.sge(index, sge, address, length, lkey);
        return this;
    }

    /** Sets SGE {@code sge} of request {@code index} to {@code length} bytes at {@code offset} of {@code region}. */
    public SendWorkRequests sge(int index, int sge, MemoryRegion region, long offset, int length) {
        return sge(index, sge, region.address() + offset, length, region.lkey());
    }

    /** Sets the SGE count of request {@code index} (0 sends no payload). */
    public SendWorkRequests sgeCount(int index, int count) {
        array.sgeCount(index, count);
        return this;
    }

    /** Patches only the length of an SGE (the common per-post change). */
    public SendWorkRequests sgeLength(int index, int sge, int length) {
        array.sgeLength(index, sge, length);
        return this;
    }

    /**
     * The 32-bit immediate of a {@code *_WITH_IMM} request, stored in network byte order: the
     * receiver's {@link WorkCompletions#immediate(int)} returns the same int.
     */
    public SendWorkRequests immediate(int index, int immediate) {
        requests.set(IMM_BIG_ENDIAN, offset(index) + IbvSendWr.IMM_DATA, immediate);
        return this;
    }

    /** The target of an RDMA WRITE/READ ({@code wr.rdma}). */
    public SendWorkRequests rdma(int index, long remoteAddress, int rkey) {
        long wr = offset(index);
        requests.set(JAVA_LONG, wr + IbvSendWr.WR_RDMA_REMOTE_ADDR, remoteAddress);
        requests.set(JAVA_INT, wr + IbvSendWr.WR_RDMA_RKEY, rkey);
        return this;
    }

    /**
     * The operands of an atomic ({@code wr.atomic}): the 8-byte aligned remote word, the value to
     * add (FETCH_AND_ADD) or compare with (CMP_AND_SWP), and the swap value.
     */
    public SendWorkRequests atomic(int index, long remoteAddress, int rkey, long compareAdd, long swap) {
        long wr = offset(index);
        requests.set(JAVA_LONG, wr + IbvSendWr.WR_ATOMIC_REMOTE_ADDR, remoteAddress);
        requests.set(JAVA_INT, wr + IbvSendWr.WR_ATOMIC_RKEY, rkey);
        requests.set(JAVA_LONG, wr + IbvSendWr.WR_ATOMIC_COMPARE_ADD, compareAdd);
        requests.set(JAVA_LONG, wr + IbvSendWr.WR_ATOMIC_SWAP, swap);
        return this;
    }

    public long wrId(int index) {
        return requests.get(JAVA_LONG, offset(index) + IbvSendWr.WR_ID);
    }

    public Opcode opcode(int index) {
        return Opcode.of(requests.get(JAVA_INT, offset(index) + IbvSendWr.OPCODE));
    }

    public int flags(int index) {
        return requests.get(JAVA_INT, offset(index) + IbvSendWr.SEND_FLAGS);
    }

    public int sgeCount(int index) {
        return array.sgeCount(index);
    }

    /**
     * Links the first {@code count} requests through {@code next} (the last one's is NULL) and
     * returns the head; relinks only when {@code count} changed since the previous call.
     */
    MemorySegment chain(int count) {
        return array.chain(count);
    }

    /** The index of the request at native address {@code address}, or -1. */
    int indexOf(long address) {
        return array.indexOf(address);
    }

    private long offset(int index) {
        return array.offset(index);
    }
}
