package io.isthmus.broker.testkit;

import io.isthmus.broker.group.GroupCoordinator;
import io.isthmus.broker.log.SegmentIdAllocator;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.producer.ProducerIdAllocator;
import io.isthmus.broker.transaction.TransactionCoordinator;
import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;

/** A transaction coordinator over a test's directory, with Kafka's default limits, wired as the broker wires it. */
public final class TestTransactions {
    public static final TransactionCoordinator.Settings DEFAULTS =
            new TransactionCoordinator.Settings(900_000, 604_800_000, 10_000, 3_600_000);

    private TestTransactions() {}

    public static TransactionCoordinator start(
            final Path metadataDir,
            final ProducerIdAllocator producerIds,
            final PartitionManager partitions,
            final GroupCoordinator groups)
            throws IOException {
        return TransactionCoordinator.start(
                metadataDir,
                1 << 20,
                new SegmentIdAllocator(),
                producerIds,
                partitions,
                groups,
                DEFAULTS,
                InstantSource.system());
    }
}
