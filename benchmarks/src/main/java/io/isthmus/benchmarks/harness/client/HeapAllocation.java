package io.isthmus.benchmarks.harness.client;

import java.lang.management.ManagementFactory;

/**
 * Heap bytes allocated, from HotSpot's per-thread allocation counters: by the calling thread (the one that sends or
 * polls) and by all threads of the JVM together (a producer's I/O thread included, terminated threads counted).
 */
public final class HeapAllocation {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final long threadStart;
    private final long totalStart;

    private HeapAllocation() {
        this.threadStart = THREADS.getCurrentThreadAllocatedBytes();
        this.totalStart = THREADS.getTotalThreadAllocatedBytes();
    }

    /** Starts counting now, for the calling thread and for all threads. */
    public static HeapAllocation start() {
        return new HeapAllocation();
    }

    /** Bytes the calling thread (the one that called {@link #start}) allocated since. */
    public long threadBytes() {
        return THREADS.getCurrentThreadAllocatedBytes() - threadStart;
    }

    /** Bytes every thread allocated since. */
    public long totalBytes() {
        return THREADS.getTotalThreadAllocatedBytes() - totalStart;
    }
}
