package io.isthmus.client.shm;

import io.isthmus.client.network.OneSidedReader;
import io.isthmus.client.record.AbortedTransactionList;
import io.isthmus.protocol.control.ShmConsumeAccessResponse;
import java.net.InetSocketAddress;

/**
 * What a shared-memory consumer knows about one partition it reads: its mapping of the granted segment file, its
 * metadata slot in the session's range of the slot file, the readable position and sealed flag last loaded from it, and
 * how far it has read. Owned by the consumer's polling thread; {@link ShmConsumerTransport} updates it.
 */
public final class ShmPartitionReader implements OneSidedReader {
    final String topic;
    final int partition;
    InetSocketAddress broker;
    ShmConnection connection;

    /** Access must be (re-)requested at {@link #nextOffset} before the next read. */
    boolean needsAccess = true;
    /** The broker said the offset is not in the log (retention deleted it, or a bad seek). */
    boolean outOfRange;
    /** The broker said it does not lead the partition, or was out of reach: nothing is asked until the next seek. */
    boolean leaderLost;

    int segmentId = -1;
    /** The segment file as mapped (this reader holds one reference), null before the first grant. */
    ShmSegmentMapping mapping;

    long slotOffset = -1;
    /** The next byte of the segment to hand out: the start of the first batch not yet handed out. */
    long readPosition;
    /** The broker's readable position (exclusive) from the last slot load or access answer. */
    long readable;

    boolean sealed;
    /** The partition's high watermark from the last slot load, -1 before. */
    long highWatermark = -1;
    /** The offset the next records handed out start from (records below it in a batch are skipped). */
    long nextOffset = -1;

    /** read_committed: the partition's last stable offset from the last slot load, -1 before the first. */
    long lastStableOffset = -1;
    /** read_committed: the mapping of the partition's aborted-transaction array file, null before the first grant. */
    ShmAbortedArray abortedArray;
    /** Entries of the aborted-transaction array copied so far, counted from the partition's first. */
    long abortedKnown;
    /** The aborted transactions that may still matter (marker at or after an offset not yet handed out). */
    final AbortedTransactionList aborted = new AbortedTransactionList();

    private Object attachment;

    ShmPartitionReader(final String topic, final int partition) {
        this.topic = topic;
        this.partition = partition;
    }

    public String topic() {
        return topic;
    }

    public int partition() {
        return partition;
    }

    /** The consumer's own state for this partition, so a {@link ShmConsumerTransport.BatchSink} finds it at once. */
    public void attach(final Object attachment) {
        this.attachment = attachment;
    }

    public Object attachment() {
        return attachment;
    }

    /** The offset after the data handed out so far. */
    public long nextOffset() {
        return nextOffset;
    }

    /** The partition's high watermark as the last slot load saw it; -1 before the first. */
    public long highWatermark() {
        return highWatermark;
    }

    /** Whether the last access request found the offset outside the log; cleared by {@link #seek}. */
    public boolean outOfRange() {
        return outOfRange;
    }

    @Override
    public boolean leaderLost() {
        return leaderLost;
    }

    @Override
    public InetSocketAddress broker() {
        return broker;
    }

    /** Reads from {@code offset} on, from the partition leader at {@code leader}: access is asked for again. */
    public void seek(final long offset, final InetSocketAddress leader) {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0: " + this + " offset=" + offset);
        }
        nextOffset = offset;
        if (broker != null && !broker.equals(leader)) {
            // Another broker numbers its segments and aborted-transaction arrays in its own way: map what it grants.
            unmap();
            connection = null;
        }
        broker = leader;
        needsAccess = true;
        outOfRange = false;
        leaderLost = false;
        // Entries dropped as passed may matter again after a seek back: copy the array afresh.
        forgetAborted();
    }

    @Override
    public AbortedTransactionList abortedTransactions() {
        return aborted;
    }

    /** Forgets the copied aborted transactions and the last stable offset (a seek, another broker life). */
    void forgetAborted() {
        aborted.clear();
        abortedKnown = 0;
        lastStableOffset = -1;
    }

    /** Sets access from an SHM_CONSUME_ACCESS answer, over {@code mapped} (the granted segment's mapping). */
    void granted(final ShmConsumeAccessResponse access, final ShmSegmentMapping mapped, final long slot) {
        if (mapping != null && mapping != mapped) {
            mapping.release();
        }
        mapping = mapped;
        segmentId = access.segmentId();
        slotOffset = slot;
        readPosition = access.startPosition();
        readable = access.readablePosition();
        sealed = access.sealed();
        needsAccess = false;
        outOfRange = false;
    }

    /** Lets go of the mappings (the partition is no longer read, the session is gone, or the consumer closes). */
    void unmap() {
        if (mapping != null) {
            mapping.release();
            mapping = null;
            segmentId = -1;
        }
        if (abortedArray != null) {
            abortedArray.close();
            abortedArray = null;
        }
    }

    /** Whether the whole sealed segment has been handed out: time for the next one. */
    boolean finishedSealedSegment() {
        return sealed && readPosition >= readable;
    }

    @Override
    public String toString() {
        return "ShmPartitionReader{" + topic + "-" + partition + ", segmentId=" + segmentId + ", readPosition="
                + readPosition + ", readable=" + readable + ", sealed=" + sealed + ", nextOffset=" + nextOffset
                + ", needsAccess=" + needsAccess + ", broker=" + broker + '}';
    }
}
