package io.isthmus.connector.flink.testframe;

import io.isthmus.connector.flink.testing.EmbeddedIsthmusBroker;
import org.apache.flink.connector.testframe.TestResource;

/** The external system of Flink's connector test suites: an isthmus broker in the test JVM. */
public final class IsthmusBrokerResource implements TestResource {
    private EmbeddedIsthmusBroker broker;

    @Override
    public void startUp() throws Exception {
        broker = EmbeddedIsthmusBroker.start();
    }

    @Override
    public void tearDown() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    @Override
    public String toString() {
        return "isthmus broker";
    }
}
