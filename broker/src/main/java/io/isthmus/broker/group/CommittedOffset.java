package io.isthmus.broker.group;

/**
 * A committed position of a group in one partition.
 *
 * @param leaderEpoch the leader epoch the consumer saw, or -1
 */
public record CommittedOffset(long offset, int leaderEpoch, String metadata, long commitTimestampMs) {}
