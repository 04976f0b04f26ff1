package io.isthmus.broker.slots;

import io.isthmus.broker.log.AbortedTransaction;
import io.isthmus.broker.log.PartitionLog;
import io.isthmus.protocol.control.AbortedTransactionsDescriptor;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * One partition's aborted transactions in memory other processes read (RDMA-registered, or a shared-memory file) ({@link
 * AbortedTransactionsDescriptor}), kept in step with the log's aborted-transaction index, so a {@code read_committed}
 * RDMA consumer drops aborted batches without asking the broker.
 *
 * <p>Append-only: an entry is written once, before the count that covers it is published in any metadata slot, so a
 * consumer that READs entries below a count it saw in its slot never sees one half written. When the array is full, a
 * larger one is registered holding the entries retention has not made useless, and consumers find it in their next
 * access answer (they ask once a slot's count passes what their array holds). Each consumer READs an array through a
 * registration in its own protection domain ({@code ConsumeGrant#abortedRegion}); replaced arrays stay allocated until
 * the partition's last RDMA consumer leaves ({@link #close()}), since a consumer may still hold a registration of
 * one. A shared-memory consumer maps the array's file itself, so a replaced file is freed at once ({@link
 * AbortedArrayMemory#keepsReplacedArrays()}).
 *
 * <p>Guarded by the owning {@link PartitionSlots}' monitor.
 */
public final class AbortedTransactionArray implements AutoCloseable {
    static final int INITIAL_CAPACITY = 256;

    private final PartitionLog log;
    private final AbortedArrayMemory source;
    private final List<Registered> replaced = new ArrayList<>();
    private Registered current;
    /** Entries written since the partition's first: the index the next entry gets. */
    private long count;
    /** The log's aborted transactions with markers at or after this offset are not written yet. */
    private long nextMarkerOffset;

    private record Registered(AbortedArrayMemory.Block block, long base, int capacity) implements AutoCloseable {
        MemorySegment memory() {
            return block.memory();
        }

        @Override
        public void close() {
            block.close();
        }
    }

    /** An array in the broker's memory (RDMA registers it). */
    public AbortedTransactionArray(final PartitionLog log) {
        this(log, AbortedArrayMemory.OFF_HEAP);
    }

    /** An array whose memory comes from {@code source} (a shared-memory file). */
    public AbortedTransactionArray(final PartitionLog log, final AbortedArrayMemory source) {
        this.log = log;
        this.source = source;
        this.current = register(0, INITIAL_CAPACITY);
    }

    /** Writes the aborted transactions the log gained since the last call; returns the count to publish. */
    public long sync() {
        for (final AbortedTransaction aborted : log.abortedTransactions(nextMarkerOffset, Long.MAX_VALUE)) {
            if (count - current.base() == current.capacity()) {
                grow();
            }
            AbortedTransactionsDescriptor.write(
                    current.memory(),
                    count - current.base(),
                    aborted.producerId(),
                    aborted.firstOffset(),
                    aborted.lastOffset());
            count++;
            nextMarkerOffset = aborted.lastOffset() + 1;
        }
        return count;
    }

    public long count() {
        return count;
    }

    /** The current array's memory: what consumers register and READ. */
    public MemorySegment memory() {
        return current.memory();
    }

    /** What names the current array to clients (its shared-memory file's number), -1 in process memory. */
    public long id() {
        return current.block().id();
    }

    /** Index of the current array's first entry. */
    public long base() {
        return current.base();
    }

    public int capacity() {
        return current.capacity();
    }

    /** A larger array with the entries whose markers retention has not deleted (a consumer never reads below). */
    private void grow() {
        final long logStart = log.logStartOffset();
        long firstKept = current.base();
        while (firstKept < count
                && AbortedTransactionsDescriptor.lastOffset(current.memory(), firstKept - current.base()) < logStart) {
            firstKept++;
        }
        final int kept = (int) (count - firstKept);
        final Registered larger = register(firstKept, Math.max(INITIAL_CAPACITY, kept * 2));
        MemorySegment.copy(
                current.memory(),
                (firstKept - current.base()) * AbortedTransactionsDescriptor.ENTRY_LENGTH,
                larger.memory(),
                0,
                (long) kept * AbortedTransactionsDescriptor.ENTRY_LENGTH);
        if (source.keepsReplacedArrays()) {
            replaced.add(current);
        } else {
            current.close();
        }
        current = larger;
    }

    private Registered register(final long base, final int capacity) {
        return new Registered(
                source.allocate((long) capacity * AbortedTransactionsDescriptor.ENTRY_LENGTH), base, capacity);
    }

    @Override
    public void close() {
        current.close();
        replaced.forEach(Registered::close);
        replaced.clear();
    }
}
