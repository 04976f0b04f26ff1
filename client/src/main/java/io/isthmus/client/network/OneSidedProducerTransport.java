package io.isthmus.client.network;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * A datapath that hands the producer's sealed batches to the broker without Produce requests: RDMA (WRITE WITH IMM into
 * the broker's staging slots) or shared memory (a copy into a staging file and a doorbell). The producer's sender
 * writes each partition's batches in order through its {@link Stream}, within the transport's credits, and takes their
 * outcomes, in order per partition, from {@link #poll}.
 *
 * <p>Confined to the sender thread, but for {@link #wakeup()}.
 */
public interface OneSidedProducerTransport extends AutoCloseable {
    /** Gets the outcome of each write. */
    @FunctionalInterface
    interface AckHandler {
        /** {@code token} was written and committed at {@code baseOffset}, or failed with {@code error}. */
        void onAck(Object token, long baseOffset, RuntimeException error);
    }

    /** One partition's produce access through this transport. */
    interface Stream {
        /** The partition's leader moved: access is asked for again there. */
        void leader(InetSocketAddress leader);
    }

    /** A stream for a partition led by {@code leader}; access is asked for at its first write. */
    Stream stream(String topic, int partition, InetSocketAddress leader);

    /**
     * Writes {@code length} bytes of {@code batch} (a whole sealed RecordBatch) to the stream's partition, unless it
     * must wait for outcomes first (no credit, a roll, access lost with writes still in flight).
     *
     * @return true if written (its outcome comes to {@link #poll}), false to try again after outcomes arrive
     * @throws RuntimeException a {@link org.apache.kafka.common.errors.RetriableException} where the write may go again
     *     after a backoff (access refused for now, connection lost), any other to fail the batch
     */
    boolean tryWrite(Stream stream, MemorySegment batch, int length, Object token);

    /** Hands the outcomes that arrived to {@code handler}; returns how many. */
    int poll(AckHandler handler);

    /**
     * Waits, with writes in flight and nothing else to do, for outcomes to arrive, at most about {@code maxNanos} or
     * until {@link #wakeup()}: {@code idleRounds} counts the rounds the sender has found nothing to do so far, for
     * transports that spin before they block.
     */
    void awaitOutcomes(int idleRounds, long maxNanos);

    /** Ends an {@link #awaitOutcomes} in progress, or the next one, early: new batches to write. Any thread. */
    void wakeup();

    /** Fails every write in flight with {@code reason} (the producer is closing). */
    void failAll(AckHandler handler, String reason);

    /** Writes whose outcome has not arrived. */
    int inFlight();

    @Override
    void close();
}
