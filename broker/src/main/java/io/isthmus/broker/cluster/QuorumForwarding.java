package io.isthmus.broker.cluster;

import java.util.concurrent.CompletionException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;

/**
 * How a broker answers for a request it forwarded to the metadata quorum: within the request's own timeout, with the
 * quorum's Kafka error where it gave one.
 */
final class QuorumForwarding {
    /** Kafka's admin default, for a request that gives no timeout. */
    private static final int DEFAULT_TIMEOUT_MS = 30_000;

    private QuorumForwarding() {}

    /** The request's own timeout for the quorum's answer; Kafka's admin default where it gives none. */
    static long timeoutOf(final int timeoutMs) {
        return timeoutMs > 0 ? timeoutMs : DEFAULT_TIMEOUT_MS;
    }

    /**
     * A Kafka error the quorum's answer carried as it is; anything else (no answer in time, the quorum's client giving
     * up through an election) REQUEST_TIMED_OUT, which admin clients retry.
     */
    static Errors errorOf(final Throwable failure) {
        final Throwable cause =
                failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return cause instanceof ApiException ? Errors.forException(cause) : Errors.REQUEST_TIMED_OUT;
    }

    /** The message that goes with {@link #errorOf}. */
    static String reason(final Throwable failure) {
        return "the metadata quorum did not decide: " + (failure == null ? "no answer" : failure.getMessage());
    }
}
