package io.isthmus.client.consumer;

import io.isthmus.client.consumer.internals.FetchedData;
import io.isthmus.client.consumer.internals.RecordIterator;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The records of one {@link IsthmusConsumer#poll(java.time.Duration)}, read in place from the receive buffer they
 * arrived in. Iterate with {@code while (batch.next()) use(batch.record())}, a for-each loop, or {@link
 * #forEach(ConsumerRecordHandler)}; the {@link ConsumedRecord} is one reused flyweight.
 *
 * <p>Every key, value and header slice handed out is scoped to this batch's arena: after {@link #close()} touching
 * any of them throws {@link IllegalStateException}, and only then does the receive buffer go back to the consumer, so
 * a slice can never read recycled bytes.
 *
 * <p><b>Hand-off.</b> A batch is independent of its consumer once polled: the consumer's positions already moved past
 * it, and it reads nothing the consumer's thread owns. So it may be handed to another thread (a stream engine's
 * fetcher thread polls, its task thread emits), as long as one thread at a time uses it. The arena is confined to the
 * thread that first iterates the batch; that thread reads the slices and closes the batch. Closing on another thread
 * than the polling one is safe: the consumer takes the buffer back on its own thread at its next poll.
 */
public final class ConsumerBatch implements AutoCloseable, Iterable<ConsumedRecord> {
    private final FetchedData data;
    private Arena arena;
    private final RecordIterator iterator;
    private final ConsumedRecord record = new ConsumedRecord();
    private MemorySegment rawSegment;
    private MemorySegment leasedSegment;
    private boolean closed;
    private int delivered;

    /**
     * @param data the fetched data, released when the batch closes; null for an empty batch
     * @param iterator walks {@code data}; null for an empty batch
     */
    ConsumerBatch(final FetchedData data, final RecordIterator iterator) {
        this.data = data;
        this.iterator = iterator;
        if (iterator != null) {
            iterator.reset(data);
        }
    }

    /** The arena of the slices, made on first use so that it is confined to the thread that reads the batch. */
    private Arena arena() {
        if (arena == null) {
            arena = Arena.ofConfined();
        }
        return arena;
    }

    /** Advances to the next record; false at the end. */
    public boolean next() {
        if (closed) {
            throw new IllegalStateException("consumer batch is closed");
        }
        if (iterator == null || !iterator.next()) {
            return false;
        }
        final MemorySegment raw = iterator.recordSegment();
        if (raw != rawSegment) {
            rawSegment = raw;
            leasedSegment = raw.reinterpret(arena(), null);
        }
        record.set(iterator.record(), iterator.partition(), leasedSegment);
        delivered++;
        return true;
    }

    /** The current record (the same flyweight every time). */
    public ConsumedRecord record() {
        return record;
    }

    /** Calls {@code handler} for each remaining record; returns how many. */
    public int forEach(final ConsumerRecordHandler handler) {
        int count = 0;
        while (next()) {
            handler.onRecord(record);
            count++;
        }
        return count;
    }

    /** Iterates the remaining records; every element is the same reused flyweight. */
    @Override
    public Iterator<ConsumedRecord> iterator() {
        return new Iterator<>() {
            private boolean ready;
            private boolean done;

            @Override
            public boolean hasNext() {
                if (!ready && !done) {
                    ready = ConsumerBatch.this.next();
                    done = !ready;
                }
                return ready;
            }

            @Override
            public ConsumedRecord next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                ready = false;
                return record;
            }
        };
    }

    /** True when the poll returned no data at all. */
    public boolean isEmpty() {
        return data == null;
    }

    /** Bytes of record batches this batch's records arrived in (what a stream engine counts as bytes in). */
    public long sizeInBytes() {
        return data == null ? 0 : data.batchBytes();
    }

    /** Records handed out so far. */
    public int delivered() {
        return delivered;
    }

    /**
     * The whole receive buffer these records arrived in, scoped to this batch (to check where slices point, or to
     * forward the raw bytes). Null for an empty batch.
     */
    public MemorySegment receiveBuffer() {
        if (data == null) {
            return null;
        }
        if (closed) {
            throw new IllegalStateException("consumer batch is closed");
        }
        return data.segment().reinterpret(arena(), null);
    }

    /**
     * Ends every slice handed out, then gives the receive buffer back. Idempotent. Call it on the thread that iterated
     * the batch (the slices' arena is confined to it).
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (arena != null) {
            arena.close();
        }
        if (data != null) {
            iterator.reset(null);
            data.release();
        }
    }
}
