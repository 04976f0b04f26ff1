package io.isthmus.client.consumer;

import io.isthmus.protocol.record.BatchDecompressor;
import io.isthmus.protocol.record.CompressionType;
import io.isthmus.protocol.record.Record;
import io.isthmus.protocol.record.RecordBatch;
import io.isthmus.protocol.record.RecordBatchValidator;
import io.isthmus.protocol.record.RecordCursor;
import java.lang.foreign.MemorySegment;
import org.apache.kafka.common.errors.CorruptRecordException;

/**
 * Walks the records of a {@link FetchedData} in place: slice by slice, batch by batch, record by record, with reused
 * flyweights. It skips records below the offset a partition was fetched from, control batches, and partitions seeked
 * since the fetch; checks batch CRCs ({@code check.crcs}); and decompresses compressed batches off-heap.
 */
final class RecordIterator {
    private final RecordBatch batch = new RecordBatch();
    private final RecordCursor cursor = new RecordCursor();
    private final boolean checkCrcs;
    /** Decompressor shared by all batches (callback mode), or null: one per batch from the data (lease mode). */
    private final BatchDecompressor sharedDecompressor;

    private FetchedData data;
    private int sliceIndex;
    private FetchedData.Slice slice;
    private long batchPosition;
    private long readableEnd;
    private boolean inBatch;
    private MemorySegment recordSegment;
    private long batchNextOffset;

    RecordIterator(final boolean checkCrcs, final BatchDecompressor sharedDecompressor) {
        this.checkCrcs = checkCrcs;
        this.sharedDecompressor = sharedDecompressor;
    }

    void reset(final FetchedData data) {
        this.data = data;
        this.sliceIndex = -1;
        this.slice = null;
        this.inBatch = false;
        this.recordSegment = null;
    }

    FetchedData data() {
        return data;
    }

    /** Advances to the next record to deliver; false when the data is exhausted. */
    boolean next() {
        if (data == null) {
            return false;
        }
        while (true) {
            if (inBatch) {
                if (slice.generation != slice.state.generation) {
                    inBatch = false;
                    slice = null;
                    continue;
                }
                while (cursor.next()) {
                    if (cursor.record().offset() >= slice.fetchOffset) {
                        return true;
                    }
                }
                inBatch = false;
                advancePosition(batchNextOffset);
            }
            if (slice == null || batchPosition >= readableEnd) {
                if (!nextSlice()) {
                    return false;
                }
                continue;
            }
            openBatch();
        }
    }

    private boolean nextSlice() {
        while (++sliceIndex < data.sliceCount()) {
            final FetchedData.Slice candidate = data.slice(sliceIndex);
            if (candidate.generation != candidate.state.generation) {
                continue;
            }
            slice = candidate;
            batchPosition = candidate.start;
            readableEnd = RecordBatchValidator.readableBatchEnd(data.segment(), candidate.start, candidate.end);
            return true;
        }
        slice = null;
        return false;
    }

    private void openBatch() {
        final MemorySegment segment = data.segment();
        batch.wrap(segment, batchPosition);
        batchPosition = batch.nextBatchOffset();
        final long nextOffset = batch.nextOffset();
        if (nextOffset <= slice.fetchOffset) {
            return;
        }
        if (checkCrcs && !batch.isCrcValid()) {
            throw new CorruptRecordException("record batch CRC mismatch: topic=" + slice.state.topic + ", partition="
                    + slice.state.partition + ", baseOffset=" + batch.baseOffset() + ", storedCrc=0x"
                    + Long.toHexString(batch.crc()) + ", computedCrc=0x" + Long.toHexString(batch.computeCrc()));
        }
        if (batch.isControl()) {
            advancePosition(nextOffset);
            return;
        }
        if (batch.compressionId() == CompressionType.NONE.id()) {
            cursor.reset(batch, null);
            recordSegment = segment;
        } else {
            final BatchDecompressor decompressor =
                    sharedDecompressor != null ? sharedDecompressor : data.nextDecompressor();
            cursor.reset(batch, decompressor);
            recordSegment = decompressor.buffer();
        }
        batchNextOffset = nextOffset;
        inBatch = true;
    }

    private void advancePosition(final long offset) {
        final PartitionState state = slice.state;
        if (slice.generation == state.generation && offset > state.position) {
            state.position = offset;
        }
    }

    Record record() {
        return cursor.record();
    }

    FetchedData.Slice slice() {
        return slice;
    }

    /** The segment the current record lies in: the receive buffer, or a decompression buffer. */
    MemorySegment recordSegment() {
        return recordSegment;
    }
}
