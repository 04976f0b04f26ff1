package io.isthmus.client.cluster;

/** An offset found by ListOffsets, with the timestamp of its record (-1 for earliest/latest queries). */
public record OffsetAndTime(long offset, long timestamp) {}
