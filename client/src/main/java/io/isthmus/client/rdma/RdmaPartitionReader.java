package io.isthmus.client.rdma;

import io.isthmus.client.network.OneSidedReader;
import io.isthmus.client.record.AbortedTransactionList;
import io.isthmus.protocol.control.ConsumeAccessResponse;
import java.net.InetSocketAddress;

/**
 * What an RDMA consumer knows about one partition it reads: the segment it has read access to (address, rkey,
 * capacity), its metadata slot, the last readable byte and sealed flag from the last slot READ, and how far it has
 * read. Owned by the consumer's polling thread; {@link RdmaConsumerTransport} updates it.
 */
public final class RdmaPartitionReader implements OneSidedReader {
    final String topic;
    final int partition;
    InetSocketAddress broker;
    RdmaConnection connection;

    /** Access must be (re-)requested at {@link #nextOffset} before the next read. */
    boolean needsAccess = true;
    /** The broker said the offset is not in the log (retention deleted it, or a bad seek). */
    boolean outOfRange;
    /** The broker said it does not lead the partition, or was out of reach: nothing is asked until the next seek. */
    boolean leaderLost;

    int segmentId = -1;
    int rkey;
    long segmentAddress;
    long capacity;
    int slotIndex = -1;
    long slotRegionAddress;
    int slotRegionRkey;

    /** The next byte of the segment to read: the start of the first batch not yet handed out. */
    long readPosition;
    /** The broker's readable position (exclusive) from the last slot READ or access answer. */
    long readable;
    /** The partition's high watermark from the last slot READ (for lag; offsets come from the batches), -1 before. */
    long highWatermark = -1;

    boolean sealed;

    /** The offset the next records handed out start from (records below it in a batch are skipped). */
    long nextOffset = -1;

    /** read_committed: the partition's last stable offset from the last slot READ, -1 before the first. */
    long lastStableOffset = -1;
    /** The partition's aborted-transaction array, from the last access answer. */
    long abortedAddress;

    int abortedRkey;
    int abortedCapacity;
    long abortedBase;
    /** Entries of the aborted-transaction array copied so far, counted from the partition's first. */
    long abortedKnown;
    /** The aborted transactions that may still matter (marker at or after an offset not yet handed out). */
    private final AbortedTransactionList aborted = new AbortedTransactionList();

    private Object attachment;

    RdmaPartitionReader(final String topic, final int partition) {
        this.topic = topic;
        this.partition = partition;
    }

    public String topic() {
        return topic;
    }

    /** The partition's high watermark as the last slot READ saw it; -1 before the first. */
    public long highWatermark() {
        return highWatermark;
    }

    public int partition() {
        return partition;
    }

    /** The consumer's own state for this partition, so a {@link RdmaConsumerTransport.BatchSink} finds it at once. */
    public void attach(final Object attachment) {
        this.attachment = attachment;
    }

    public Object attachment() {
        return attachment;
    }

    /** The offset after the data handed out so far (where a seek-free consumer continues). */
    public long nextOffset() {
        return nextOffset;
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
        broker = leader;
        needsAccess = true;
        outOfRange = false;
        leaderLost = false;
        // Entries dropped as passed may matter again after a seek back: copy the array afresh.
        aborted.clear();
        abortedKnown = 0;
        lastStableOffset = -1;
    }

    /** The last stable offset the last slot READ saw (read_committed), -1 before the first. */
    public long lastStableOffset() {
        return lastStableOffset;
    }

    /** The aborted transactions that may still matter, in marker order. */
    @Override
    public AbortedTransactionList abortedTransactions() {
        return aborted;
    }

    /** Adds an entry copied from the broker's array (markers come in offset order). */
    void addAborted(final long producerId, final long firstOffset, final long lastOffset) {
        aborted.add(producerId, firstOffset, lastOffset);
    }

    /** Drops the aborted transactions whose markers lie below {@code offset}. */
    public void dropAbortedBefore(final long offset) {
        aborted.dropBefore(offset);
    }

    /** Sets access from a CONSUME_ACCESS answer. */
    void granted(final ConsumeAccessResponse access) {
        segmentId = access.segmentId();
        rkey = access.rkey();
        segmentAddress = access.segmentAddress();
        capacity = access.capacity();
        slotIndex = access.slotIndex();
        slotRegionAddress = access.slotRegionAddress();
        slotRegionRkey = access.slotRegionRkey();
        readPosition = access.startPosition();
        readable = access.readablePosition();
        sealed = access.sealed();
        abortedAddress = access.abortedAddress();
        abortedRkey = access.abortedRkey();
        abortedCapacity = access.abortedCapacity();
        abortedBase = access.abortedBase();
        // Entries below the array's base had markers below the log start: no readable batch belongs to them.
        abortedKnown = Math.max(abortedKnown, abortedBase);
        needsAccess = false;
        outOfRange = false;
    }

    /** Whether the whole sealed segment has been handed out: time for the next one. */
    boolean finishedSealedSegment() {
        return sealed && readPosition >= readable;
    }

    @Override
    public String toString() {
        return "RdmaPartitionReader{" + topic + "-" + partition + ", segmentId=" + segmentId + ", readPosition="
                + readPosition + ", readable=" + readable + ", sealed=" + sealed + ", nextOffset=" + nextOffset
                + ", needsAccess=" + needsAccess + ", broker=" + broker + '}';
    }
}
