package io.isthmus.connector.flink.sink;

import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.client.producer.ProducerConfig;
import io.isthmus.client.producer.TransactionHandle;
import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link DeliveryGuarantee#EXACTLY_ONCE}, as Kafka's {@code ExactlyOnceKafkaWriter} with its default incrementing
 * transaction naming: the records between two checkpoints are one Kafka transaction, under transactional id {@code
 * prefix-subtask-checkpointId}. At a checkpoint the transaction is flushed and its {@link TransactionHandle} becomes the
 * committable; the {@link IsthmusCommitter} commits it once the checkpoint completes, so a {@code read_committed}
 * consumer sees each record exactly once, whatever fails and restarts in between.
 *
 * <p>On start, transactions a failed run left open are aborted: for its own subtask and every subtask whose state it
 * restored, it initialises the ids {@code prefix-subtask-N} from the checkpoint after the restored one upwards, which
 * fences and aborts each, until an id the coordinator had never seen (epoch 0): every checkpoint's id is initialised
 * before it is used, so there is no gap to step over.
 */
final class ExactlyOnceIsthmusWriter<IN> extends IsthmusWriter<IN> {
    private static final Logger LOG = LoggerFactory.getLogger(ExactlyOnceIsthmusWriter.class);

    private final Map<String, Object> producerSettings;
    private final String prefix;
    private final int subtask;
    /** Whether the open transaction has records: an empty one is not committed. */
    private boolean hasRecords;

    private ExactlyOnceIsthmusWriter(
            final WriterInitContext context,
            final IsthmusProducer first,
            final DeliveryFailures failures,
            final IsthmusRecordSerializationSchema<IN> serializer,
            final Map<String, Object> producerSettings,
            final String prefix)
            throws IOException {
        super(context, first, failures, DeliveryGuarantee.EXACTLY_ONCE, serializer);
        this.producerSettings = producerSettings;
        this.prefix = prefix;
        this.subtask = context.getTaskInfo().getIndexOfThisSubtask();
    }

    /** Aborts what earlier runs left open, then opens the first transaction. */
    static <IN> ExactlyOnceIsthmusWriter<IN> create(
            final WriterInitContext context,
            final Map<String, Object> producerSettings,
            final String prefix,
            final IsthmusRecordSerializationSchema<IN> serializer,
            final Collection<IsthmusWriterState> restored)
            throws IOException {
        final int subtask = context.getTaskInfo().getIndexOfThisSubtask();
        final long firstCheckpoint =
                context.getRestoredCheckpointId().orElse(WriterInitContext.INITIAL_CHECKPOINT_ID - 1) + 1;
        final TreeSet<Integer> subtasks = new TreeSet<>();
        subtasks.add(subtask);
        for (final IsthmusWriterState state : restored) {
            if (state.transactionalIdPrefix().equals(prefix)) {
                subtasks.add(state.subtaskId());
            }
        }
        for (final int owner : subtasks) {
            abortLingering(producerSettings, prefix, owner, firstCheckpoint);
        }
        final DeliveryFailures failures =
                new DeliveryFailures(context.metricGroup().getNumRecordsSendErrorsCounter());
        final IsthmusProducer first =
                beginTransaction(producerSettings, transactionalId(prefix, subtask, firstCheckpoint), failures);
        try {
            return new ExactlyOnceIsthmusWriter<>(context, first, failures, serializer, producerSettings, prefix);
        } catch (final IOException | RuntimeException e) {
            first.close();
            throw e;
        }
    }

    /** Kafka's {@code TransactionalIdFactory} format. */
    static String transactionalId(final String prefix, final int subtask, final long checkpointId) {
        return prefix + "-" + subtask + "-" + checkpointId;
    }

    private static void abortLingering(
            final Map<String, Object> producerSettings, final String prefix, final int owner, final long from) {
        for (long checkpoint = from; ; checkpoint++) {
            final String id = transactionalId(prefix, owner, checkpoint);
            try (IsthmusProducer probe = new IsthmusProducer(withTransactionalId(producerSettings, id))) {
                probe.initTransactions();
                if (probe.producerEpoch() == 0) {
                    return;
                }
                LOG.info("aborted the transaction a previous run may have left open: transactionalId={}", id);
            }
        }
    }

    private static IsthmusProducer beginTransaction(
            final Map<String, Object> producerSettings, final String id, final DeliveryFailures failures) {
        final IsthmusProducer producer =
                new IsthmusProducer(new ProducerConfig(withTransactionalId(producerSettings, id)), failures);
        try {
            producer.initTransactions();
            producer.beginTransaction();
            return producer;
        } catch (final RuntimeException e) {
            producer.close();
            throw e;
        }
    }

    static Map<String, Object> withTransactionalId(final Map<String, Object> settings, final String id) {
        final Map<String, Object> transactional = new HashMap<>(settings);
        transactional.put(ProducerConfig.TRANSACTIONAL_ID, id);
        return transactional;
    }

    @Override
    void onRecordSent() {
        hasRecords = true;
    }

    @Override
    public void flush(final boolean endOfInput) throws IOException {
        // Records must be written before their transaction is handed to the committer, whatever endOfInput says.
        producer.flush();
        failures.check();
    }

    /** The checkpoint's transaction, flushed: the committable, or nothing when it has no records. */
    @Override
    public Collection<TransactionHandle> prepareCommit() throws IOException {
        producer.flush();
        failures.check();
        return hasRecords ? List.of(producer.transactionHandle()) : List.of();
    }

    /**
     * Leaves the prepared transaction to the committer (closing its producer does not end it) and opens the next
     * checkpoint's.
     */
    @Override
    public List<IsthmusWriterState> snapshotState(final long checkpointId) throws IOException {
        final IsthmusProducer prepared = producer;
        if (!hasRecords) {
            prepared.abortTransaction();
        }
        prepared.close();
        producer = beginTransaction(producerSettings, transactionalId(prefix, subtask, checkpointId + 1), failures);
        hasRecords = false;
        return List.of(new IsthmusWriterState(prefix, subtask));
    }

    /** The open transaction holds records no checkpoint covers: aborted, so no reader ever sees them. */
    @Override
    public void close() throws Exception {
        try {
            producer.abortTransaction();
        } catch (final RuntimeException e) {
            LOG.warn("could not abort the open transaction on close (its timeout will): {}", e.toString());
        }
        super.close();
    }
}
