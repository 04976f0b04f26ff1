package io.isthmus.e2e.shm;

import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.client.producer.IsthmusProducer;
import java.util.Map;

/**
 * Run as another OS user than the broker's: asks for {@code transport=shm} as a producer and as a consumer (both must
 * be refused with the reason, printed as {@code producer refused: ...} and {@code consumer refused: ...}), then lets
 * {@code auto} choose for each ({@code auto producer=T}, {@code auto consumer=T}) and sends one record with the
 * producer {@code auto} gave it ({@code sent}).
 */
public final class ShmForeignUserProcess {
    private ShmForeignUserProcess() {}

    public static void main(final String[] args) {
        final String bootstrap = args[0];
        final String topic = args[1];
        try (IsthmusProducer producer =
                new IsthmusProducer(Map.of("bootstrap.servers", bootstrap, "transport", "shm"))) {
            System.out.println("producer attached transport=" + producer.transport());
        } catch (final UnsupportedOperationException e) {
            System.out.println("producer refused: " + e.getMessage());
        }
        try (IsthmusConsumer consumer =
                new IsthmusConsumer(Map.of("bootstrap.servers", bootstrap, "transport", "shm"))) {
            System.out.println("consumer attached transport=" + consumer.transport());
        } catch (final UnsupportedOperationException e) {
            System.out.println("consumer refused: " + e.getMessage());
        }
        try (IsthmusConsumer consumer = new IsthmusConsumer(Map.of("bootstrap.servers", bootstrap))) {
            System.out.println("auto consumer=" + consumer.transport());
        }
        try (IsthmusProducer producer = new IsthmusProducer(Map.of("bootstrap.servers", bootstrap))) {
            System.out.println("auto producer=" + producer.transport());
            producer.sendAsync(topic, 0, IsthmusProducer.NOW, (byte[]) null, new byte[] {42}, null)
                    .join();
            System.out.println("sent");
        }
        System.out.flush();
    }
}
