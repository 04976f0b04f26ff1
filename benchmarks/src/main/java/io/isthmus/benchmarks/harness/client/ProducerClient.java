package io.isthmus.benchmarks.harness.client;

/**
 * What a workload needs from a producer, so that a workload runs unchanged over kafka-clients and, once it exists in
 * {@code client/}, the isthmus producer ({@link ClientLibrary} picks one).
 */
public interface ProducerClient extends AutoCloseable {
    /** Sends one record with no key to any partition; {@code listener} runs when the broker acknowledged it. */
    void send(byte[] value, Acknowledgement listener);

    /** Sends one record and waits for its acknowledgement; throws if the broker rejected it. */
    void sendAndWait(byte[] value) throws Exception;

    /** Waits until every record sent so far is acknowledged. */
    void flush();

    @Override
    void close();

    /** Completion of one send: {@code error} is null on success. */
    @FunctionalInterface
    interface Acknowledgement {
        void onCompletion(Exception error);
    }
}
