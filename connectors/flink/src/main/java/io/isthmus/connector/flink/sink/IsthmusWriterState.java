package io.isthmus.connector.flink.sink;

/**
 * What an exactly-once writer keeps in a checkpoint (Kafka's {@code KafkaWriterState}): the transactional id prefix and
 * the subtask whose transactional ids it used, so that after a restore, at any parallelism, the transactions those ids
 * left open are found and aborted.
 *
 * @param transactionalIdPrefix the sink's {@code transactionalIdPrefix}
 * @param subtaskId the subtask that wrote under {@code prefix-subtaskId-checkpointId}
 */
public record IsthmusWriterState(String transactionalIdPrefix, int subtaskId) {}
