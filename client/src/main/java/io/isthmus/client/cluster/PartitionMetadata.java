package io.isthmus.client.cluster;

import java.util.List;

/** One partition of a topic: its leader (-1 if none) and replicas. */
public record PartitionMetadata(
        String topic, int partition, int leader, int leaderEpoch, List<Integer> replicas, List<Integer> isr) {}
