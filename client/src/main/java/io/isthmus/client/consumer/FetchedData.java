package io.isthmus.client.consumer;

import io.isthmus.client.network.ReceiveBuffer;
import io.isthmus.client.rdma.RdmaReadBuffer;
import io.isthmus.protocol.record.BatchDecompressor;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;

/**
 * One fetch response still in its receive buffer: for each partition with records, where its batches lie in the
 * buffer. Records are read in place from here; the buffer goes back to the pool when the data is released. Pooled
 * with its slices and decompressors.
 */
final class FetchedData {
    /** Where one partition's record batches lie in the receive buffer. */
    static final class Slice {
        PartitionState state;
        long start;
        long end;
        /** The offset the partition was fetched from; records below it are skipped. */
        long fetchOffset;
        /** The state's generation when fetched: data from before a seek is dropped. */
        int generation;
        /** The offset after the last complete batch. */
        long nextOffset;
    }

    private final ArrayList<Slice> slices = new ArrayList<>();
    private final ArrayList<BatchDecompressor> decompressors = new ArrayList<>();
    private int sliceCount;
    private int decompressorsUsed;
    ReceiveBuffer buffer;
    /** Set instead of {@link #buffer} for data an RDMA READ brought. */
    RdmaReadBuffer rdmaBuffer;

    void reset(final ReceiveBuffer buffer) {
        this.buffer = buffer;
        this.rdmaBuffer = null;
        this.sliceCount = 0;
        this.decompressorsUsed = 0;
    }

    void reset(final RdmaReadBuffer buffer) {
        this.buffer = null;
        this.rdmaBuffer = buffer;
        this.sliceCount = 0;
        this.decompressorsUsed = 0;
    }

    /** The memory the slices lie in: the receive buffer or the RDMA READ target. */
    MemorySegment segment() {
        return buffer != null ? buffer.segment() : rdmaBuffer.segment();
    }

    Slice addSlice(final PartitionState state, final long start, final long end, final long fetchOffset) {
        if (sliceCount == slices.size()) {
            slices.add(new Slice());
        }
        final Slice slice = slices.get(sliceCount++);
        slice.state = state;
        slice.start = start;
        slice.end = end;
        slice.fetchOffset = fetchOffset;
        slice.generation = state.generation;
        return slice;
    }

    int sliceCount() {
        return sliceCount;
    }

    Slice slice(final int index) {
        return slices.get(index);
    }

    /** A decompressor of its own for the next compressed batch: its output must live as long as this data. */
    BatchDecompressor nextDecompressor() {
        if (decompressorsUsed == decompressors.size()) {
            decompressors.add(new BatchDecompressor());
        }
        return decompressors.get(decompressorsUsed++);
    }

    /** Gives the receive buffer back; the decompressors stay for reuse. */
    void release() {
        if (buffer != null) {
            buffer.release();
            buffer = null;
        }
        if (rdmaBuffer != null) {
            rdmaBuffer.release();
            rdmaBuffer = null;
        }
        for (int i = 0; i < sliceCount; i++) {
            slices.get(i).state = null;
        }
        sliceCount = 0;
        decompressorsUsed = 0;
    }

    void close() {
        release();
        for (final BatchDecompressor decompressor : decompressors) {
            decompressor.close();
        }
        decompressors.clear();
    }
}
