package io.isthmus.connector.flink.sink;

import io.isthmus.client.producer.DeliveryListener;
import java.io.IOException;
import org.apache.flink.metrics.Counter;
import org.apache.kafka.common.errors.TransactionAbortedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The failed deliveries of a writer's producers, learned per producer batch on a sender thread and reported on the
 * task thread at the next write, flush or checkpoint: nothing that failed is ever treated as written.
 */
final class DeliveryFailures implements DeliveryListener {
    private static final Logger LOG = LoggerFactory.getLogger(DeliveryFailures.class);
    private final Counter sendErrors;
    private volatile RuntimeException first;

    DeliveryFailures(final Counter sendErrors) {
        this.sendErrors = sendErrors;
    }

    @Override
    public void onDelivery(
            final String topic,
            final int partition,
            final long baseOffset,
            final int recordCount,
            final RuntimeException error) {
        // A batch of a transaction the writer itself aborted (records no checkpoint covers) failed as it should.
        if (error != null && !(error instanceof TransactionAbortedException)) {
            sendErrors.inc(recordCount);
            if (first == null) {
                first = new IllegalStateException(
                        "delivery failed: topic=" + topic + ", partition=" + partition + ", records=" + recordCount,
                        error);
            }
        }
    }

    /** Logs the first failure so far, if any (on close, where throwing is not allowed). */
    void logPending() {
        final RuntimeException failure = first;
        if (failure != null) {
            LOG.warn("the isthmus sink closes with an undelivered batch", failure);
        }
    }

    /** Throws the first failure so far, naming its topic and partition. */
    void check() throws IOException {
        final RuntimeException failure = first;
        if (failure != null) {
            throw new IOException("the isthmus sink failed to deliver records", failure);
        }
    }
}
