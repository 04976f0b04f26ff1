package io.isthmus.e2e.shm;

import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.client.producer.ProducerConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A shared-memory producer in a child JVM, so a test can kill it with {@code kill -9} mid-stream: it sends records to
 * partition 0 of its topic, each value {@code [producer tag][sequence]} in 100 bytes, and prints {@code acked N
 * transport=T} as acknowledgements arrive (N: how many of its records, from sequence 0, are acknowledged), until it has
 * sent {@code count} records (then it flushes, prints {@code done} and exits) or is killed.
 */
public final class ShmProducerProcess {
    private ShmProducerProcess() {}

    public static void main(final String[] args) throws Exception {
        final String bootstrap = args[0];
        final String topic = args[1];
        final long tag = Long.parseLong(args[2]);
        final long count = Long.parseLong(args[3]);
        final AtomicLong acked = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        try (IsthmusProducer producer = new IsthmusProducer(
                        new ProducerConfig(Map.of(
                                "bootstrap.servers", bootstrap, "transport", "shm", "acks", "all", "linger.ms", "1")),
                        (t, partition, baseOffset, recordCount, error) -> {
                            if (error == null) {
                                acked.addAndGet(recordCount);
                            } else {
                                failed.incrementAndGet();
                            }
                        });
                Arena arena = Arena.ofConfined()) {
            final MemorySegment value = arena.allocate(100);
            value.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, tag);
            long reported = 0;
            for (long sequence = 0; sequence < count; sequence++) {
                value.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, sequence);
                producer.send(topic, 0, IsthmusProducer.NOW, null, value, null, null);
                if (acked.get() - reported >= 5_000) {
                    reported = acked.get();
                    System.out.println("acked " + reported + " transport=" + producer.transport());
                    System.out.flush();
                }
            }
            producer.flush();
            System.out.println(
                    "done acked=" + acked.get() + " failed=" + failed.get() + " transport=" + producer.transport()
                            + " doorbells=" + producer.shmTransport().writes());
            System.out.flush();
        }
    }
}
