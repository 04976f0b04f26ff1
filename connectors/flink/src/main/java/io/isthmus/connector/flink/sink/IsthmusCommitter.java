package io.isthmus.connector.flink.sink;

import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.client.producer.TransactionHandle;
import java.util.Collection;
import java.util.Map;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits the transactions of completed checkpoints (Kafka's {@code KafkaCommitter}): a producer of the transaction's
 * id resumes it by its {@link TransactionHandle} and commits. A commit retried after a restore finds the transaction
 * committed already, which the coordinator answers as a success. A transaction the coordinator aborted meanwhile (its
 * {@code transaction.timeout.ms} passed before the checkpoint completed) cannot be committed: that fails the job with
 * the reason, as data would otherwise be lost silently.
 */
final class IsthmusCommitter implements Committer<TransactionHandle> {
    private static final Logger LOG = LoggerFactory.getLogger(IsthmusCommitter.class);

    private final Map<String, Object> producerSettings;

    IsthmusCommitter(final Map<String, Object> producerSettings) {
        this.producerSettings = producerSettings;
    }

    @Override
    public void commit(final Collection<CommitRequest<TransactionHandle>> requests) {
        for (final CommitRequest<TransactionHandle> request : requests) {
            final TransactionHandle handle = request.getCommittable();
            try (IsthmusProducer producer = new IsthmusProducer(
                    ExactlyOnceIsthmusWriter.withTransactionalId(producerSettings, handle.transactionalId()))) {
                producer.resumeTransaction(handle);
                producer.commitTransaction();
            } catch (final RetriableException e) {
                LOG.info("commit of {} will be retried: {}", handle, e.toString());
                request.retryLater();
            } catch (final ProducerFencedException | InvalidTxnStateException e) {
                request.signalFailedWithKnownReason(new IllegalStateException(
                        "the transaction of a completed checkpoint was aborted before it could be committed, so its"
                                + " records are lost: " + handle + ". Its transaction.timeout.ms passed, or another"
                                + " producer took its transactional id (is the transactionalIdPrefix shared by two"
                                + " jobs?). Raise transaction.timeout.ms above the longest checkpoint interval plus"
                                + " restart time.",
                        e));
            } catch (final RuntimeException e) {
                request.signalFailedWithUnknownReason(e);
            }
        }
    }

    @Override
    public void close() {}
}
