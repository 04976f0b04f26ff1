package io.isthmus.e2e.shm;

import io.isthmus.client.consumer.IsthmusConsumer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * A shared-memory consumer in a child JVM, so a test can kill it with {@code kill -9} while it holds access: it reads
 * its partition from offset 0, prints {@code reading} once it has records, and goes on polling until killed.
 */
public final class ShmConsumerProcess {
    private ShmConsumerProcess() {}

    public static void main(final String[] args) {
        final TopicPartition partition = new TopicPartition(args[1], 0);
        try (IsthmusConsumer consumer = new IsthmusConsumer(Map.of("bootstrap.servers", args[0], "transport", "shm"))) {
            consumer.assign(List.of(partition));
            consumer.seek(partition, 0);
            long records = 0;
            boolean announced = false;
            while (true) {
                records += consumer.poll(record -> {}, 1000, Duration.ofMillis(100));
                if (records > 0 && !announced) {
                    System.out.println("reading transport=" + consumer.transport());
                    System.out.flush();
                    announced = true;
                }
            }
        }
    }
}
