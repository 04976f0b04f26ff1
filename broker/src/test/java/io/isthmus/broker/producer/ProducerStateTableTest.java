package io.isthmus.broker.producer;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.producer.ProducerStateTable.Verdict;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ProducerStateTableTest {
    private static final long PID = 42;
    private static final short EPOCH = 3;

    private final ProducerStateTable table = new ProducerStateTable();

    /** Appends {@code count} batches of 10 records each, sequences from 0, at offsets 100 apart. */
    private void appendBatches(final int count) {
        for (int b = 0; b < count; b++) {
            table.appended(PID, EPOCH, b * 10, b * 10 + 9, b * 100L, b * 100L + 9);
        }
    }

    @Test
    void shouldAcceptAnyFirstBatchOfAnUnknownProducer() {
        assertThat(table.check(PID, EPOCH, 17, 20)).isInstanceOf(Verdict.Append.class);
        assertThat(table.producerCount()).isZero();
    }

    @Test
    void shouldAcceptTheNextSequence() {
        appendBatches(1);

        assertThat(table.check(PID, EPOCH, 10, 19)).isInstanceOf(Verdict.Append.class);
        assertThat(table.producerCount()).isEqualTo(1);
    }

    @Test
    void shouldRecogniseEachOfTheLastFiveBatchesAsDuplicate() {
        appendBatches(7);

        for (int b = 2; b < 7; b++) {
            assertThat(table.check(PID, EPOCH, b * 10, b * 10 + 9))
                    .as("batch %d", b)
                    .isEqualTo(new Verdict.Duplicate(b * 100L, b * 100L + 9));
        }
    }

    @Test
    void shouldNotRecogniseABatchOlderThanTheCachedOnesAsDuplicate() {
        appendBatches(ProducerStateTable.CACHED_BATCHES + 1);

        final Verdict verdict = table.check(PID, EPOCH, 0, 9);

        assertThat(verdict).isInstanceOf(Verdict.Reject.class);
        assertThat(((Verdict.Reject) verdict).error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
    }

    @Test
    void shouldRejectASequenceGap() {
        appendBatches(2);

        final Verdict verdict = table.check(PID, EPOCH, 21, 29);

        assertThat(verdict).isInstanceOf(Verdict.Reject.class);
        final Verdict.Reject reject = (Verdict.Reject) verdict;
        assertThat(reject.error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
        assertThat(reject.reason()).contains("expected=20").contains("got=21");
    }

    @Test
    void shouldRejectABatchOverlappingAnAppendedOneWithDifferentBounds() {
        appendBatches(2);

        final Verdict verdict = table.check(PID, EPOCH, 10, 14);

        assertThat(verdict).isInstanceOf(Verdict.Reject.class);
        assertThat(((Verdict.Reject) verdict).error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
    }

    @Test
    void shouldRejectAStaleEpoch() {
        appendBatches(1);

        final Verdict verdict = table.check(PID, (short) (EPOCH - 1), 10, 19);

        assertThat(verdict).isInstanceOf(Verdict.Reject.class);
        assertThat(((Verdict.Reject) verdict).error()).isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
    }

    @Test
    void shouldRequireANewEpochToStartAtSequenceZero() {
        appendBatches(3);
        final short next = (short) (EPOCH + 1);

        final Verdict late = table.check(PID, next, 30, 39);

        assertThat(late).isInstanceOf(Verdict.Reject.class);
        assertThat(((Verdict.Reject) late).error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
        assertThat(table.check(PID, next, 0, 4)).isInstanceOf(Verdict.Append.class);
    }

    @Test
    void shouldForgetTheOldEpochsBatchesOnceTheNewEpochAppends() {
        appendBatches(2);
        final short next = (short) (EPOCH + 1);
        table.appended(PID, next, 0, 9, 500, 509);

        assertThat(table.check(PID, next, 0, 9)).isEqualTo(new Verdict.Duplicate(500, 509));
        assertThat(table.check(PID, EPOCH, 10, 19)).isInstanceOf(Verdict.Reject.class);
    }

    @Test
    void shouldWrapTheSequenceAfterIntegerMaxValue() {
        table.appended(PID, EPOCH, Integer.MAX_VALUE - 9, Integer.MAX_VALUE, 0, 9);

        assertThat(table.check(PID, EPOCH, 0, 9)).isInstanceOf(Verdict.Append.class);
        assertThat(table.check(PID, EPOCH, Integer.MAX_VALUE, 8)).isInstanceOf(Verdict.Reject.class);
    }

    @Test
    void shouldRecogniseADuplicateBatchThatWrapsTheSequence() {
        table.appended(PID, EPOCH, Integer.MAX_VALUE - 4, 4, 10, 19);

        assertThat(table.check(PID, EPOCH, Integer.MAX_VALUE - 4, 4)).isEqualTo(new Verdict.Duplicate(10, 19));
        assertThat(table.check(PID, EPOCH, 5, 9)).isInstanceOf(Verdict.Append.class);
    }

    @Test
    void shouldRecogniseEveryBatchAFullRdmaCreditWindowLeftUnacknowledged() {
        // A broken RDMA connection can leave rdma.produce.credits (at most CACHED_BATCHES) writes committed but
        // unacknowledged: the oldest of them must still be answered as a duplicate with its offsets when retried.
        appendBatches(ProducerStateTable.CACHED_BATCHES + 1);

        assertThat(table.check(PID, EPOCH, 10, 19)).isEqualTo(new Verdict.Duplicate(100, 109));
    }

    @Test
    void shouldKeepProducersApart() {
        appendBatches(1);
        table.appended(7, (short) 0, 0, 0, 10, 10);

        assertThat(table.check(7, (short) 0, 0, 0)).isEqualTo(new Verdict.Duplicate(10, 10));
        assertThat(table.check(PID, EPOCH, 10, 19)).isInstanceOf(Verdict.Append.class);
        assertThat(table.producerCount()).isEqualTo(2);
    }

    @Test
    void shouldCheckAPipelinedBatchAgainstOnePendingAndLearnItsOffsetsOnCommit() {
        table.appended(PID, EPOCH, 0, 9, ProducerStateTable.PENDING, ProducerStateTable.PENDING);

        assertThat(table.check(PID, EPOCH, 10, 19))
                .as("the next batch follows the pending one")
                .isInstanceOf(Verdict.Append.class);
        assertThat(table.check(PID, EPOCH, 0, 9))
                .isEqualTo(new Verdict.Duplicate(ProducerStateTable.PENDING, ProducerStateTable.PENDING));

        table.resolve(PID, EPOCH, 0, 40, 49);

        assertThat(table.check(PID, EPOCH, 0, 9)).isEqualTo(new Verdict.Duplicate(40, 49));
    }

    @Test
    void shouldForgetAPendingBatchThatFailedAndEverythingAfterIt() {
        table.appended(PID, EPOCH, 0, 9, 0, 9);
        table.appended(PID, EPOCH, 10, 19, ProducerStateTable.PENDING, ProducerStateTable.PENDING);
        table.appended(PID, EPOCH, 20, 29, ProducerStateTable.PENDING, ProducerStateTable.PENDING);

        table.forgetFrom(PID, EPOCH, 10);

        assertThat(table.check(PID, EPOCH, 10, 19))
                .as("the retry is accepted again")
                .isInstanceOf(Verdict.Append.class);
        assertThat(table.check(PID, EPOCH, 0, 9)).isEqualTo(new Verdict.Duplicate(0, 9));
        assertThat(table.check(PID, EPOCH, 20, 29)).isInstanceOf(Verdict.Reject.class);
    }
}
