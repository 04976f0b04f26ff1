package io.isthmus.connector.flink.sink;

/** What a record serializer may ask about the writer it serializes for: Kafka's {@code KafkaSinkContext}. */
public interface IsthmusSinkContext {
    /** This writer's subtask index. */
    int getParallelInstanceId();

    /** The sink's parallelism. */
    int getNumberOfParallelInstances();

    /** The partition numbers of {@code topic}, as the producer's metadata knows them. */
    int[] getPartitionsForTopic(String topic);
}
