package io.isthmus.client.producer;

/** Where an acknowledged record landed (offset -1 for acks=0 or a duplicate the broker had already). */
public record RecordMetadata(String topic, int partition, long offset, long timestamp) {}
