package io.isthmus.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.group.FileOffsetStore;
import io.isthmus.broker.group.GroupCoordinator;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.producer.ProducerIdAllocator;
import io.isthmus.broker.testkit.TestPartitions;
import io.isthmus.broker.testkit.TestTransactions;
import io.isthmus.broker.transaction.TransactionCoordinator;
import io.isthmus.broker.transaction.TransactionCoordinators;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProducerIdHandlerTest {
    private static final short VERSION = ApiKeys.INIT_PRODUCER_ID.latestVersion();

    @TempDir
    Path tmp;

    private FileOffsetStore offsets;
    private GroupCoordinator groups;
    private PartitionManager partitions;
    private TransactionCoordinator transactions;

    @BeforeEach
    void setUp() throws Exception {
        offsets = FileOffsetStore.open(tmp.resolve("offsets"));
        groups = new GroupCoordinator(offsets, new GroupCoordinator.GroupSettings(0, 6_000, 300_000));
        partitions = TestPartitions.start(tmp.resolve("logs"));
        transactions = TestTransactions.start(
                tmp.resolve("logs"), ProducerIdAllocator.open(tmp.resolve("transactional-ids")), partitions, groups);
    }

    @AfterEach
    void tearDown() throws Exception {
        transactions.close();
        partitions.close();
        groups.close();
        offsets.close();
    }

    private static InitProducerIdResponseData init(
            final ProducerIdHandler handler, final long producerId, final short epoch) throws Exception {
        return Requests.body(
                handler,
                ApiKeys.INIT_PRODUCER_ID,
                VERSION,
                new InitProducerIdRequestData()
                        .setTransactionalId(null)
                        .setTransactionTimeoutMs(60_000)
                        .setProducerId(producerId)
                        .setProducerEpoch(epoch));
    }

    @Test
    void shouldHandOutFreshIdsAtEpochZeroUniqueAcrossRestarts() throws Exception {
        final Set<Long> ids = new HashSet<>();
        for (int restart = 0; restart < 3; restart++) {
            final ProducerIdHandler handler = new ProducerIdHandler(
                    ProducerIdAllocator.open(tmp),
                    TransactionCoordinators.sole(transactions),
                    AccessControl.allowAll());
            for (int i = 0; i < 4; i++) {
                final InitProducerIdResponseData response = init(handler, -1, (short) -1);
                assertThat(response.errorCode()).isEqualTo(Errors.NONE.code());
                assertThat(response.producerEpoch()).isZero();
                assertThat(ids.add(response.producerId())).isTrue();
            }
        }
        assertThat(ids).hasSize(12);
    }

    @Test
    void shouldBumpTheEpochOfAProducerThatNamesItsIdAndEpoch() throws Exception {
        final ProducerIdHandler handler = new ProducerIdHandler(
                ProducerIdAllocator.open(tmp), TransactionCoordinators.sole(transactions), AccessControl.allowAll());
        final long id = init(handler, -1, (short) -1).producerId();

        final InitProducerIdResponseData bumped = init(handler, id, (short) 4);

        assertThat(bumped.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(bumped.producerId()).isEqualTo(id);
        assertThat(bumped.producerEpoch()).isEqualTo((short) 5);
    }

    @Test
    void shouldHandOutANewIdWhenTheEpochIsExhausted() throws Exception {
        final ProducerIdHandler handler = new ProducerIdHandler(
                ProducerIdAllocator.open(tmp), TransactionCoordinators.sole(transactions), AccessControl.allowAll());
        final long id = init(handler, -1, (short) -1).producerId();

        final InitProducerIdResponseData renewed = init(handler, id, (short) (Short.MAX_VALUE - 1));

        assertThat(renewed.producerId()).isNotEqualTo(id);
        assertThat(renewed.producerEpoch()).isZero();
    }

    private static InitProducerIdResponseData initTransactional(
            final ProducerIdHandler handler, final String transactionalId, final int timeoutMs) throws Exception {
        return Requests.body(
                handler,
                ApiKeys.INIT_PRODUCER_ID,
                VERSION,
                new InitProducerIdRequestData()
                        .setTransactionalId(transactionalId)
                        .setTransactionTimeoutMs(timeoutMs)
                        .setProducerId(-1)
                        .setProducerEpoch((short) -1));
    }

    @Test
    void shouldBindATransactionalIdToOneProducerIdAndBumpItsEpochOnEveryInit() throws Exception {
        final ProducerIdHandler handler = new ProducerIdHandler(
                ProducerIdAllocator.open(tmp), TransactionCoordinators.sole(transactions), AccessControl.allowAll());

        final InitProducerIdResponseData first = initTransactional(handler, "tx", 60_000);
        final InitProducerIdResponseData second = initTransactional(handler, "tx", 60_000);
        final InitProducerIdResponseData other = initTransactional(handler, "other", 60_000);

        assertThat(first.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(first.producerEpoch()).isZero();
        assertThat(second.producerId()).isEqualTo(first.producerId());
        assertThat(second.producerEpoch()).isEqualTo((short) 1);
        assertThat(other.producerId()).isNotEqualTo(first.producerId());
    }

    @Test
    void shouldRefuseATransactionTimeoutAboveTheBrokerMaximum() throws Exception {
        final ProducerIdHandler handler = new ProducerIdHandler(
                ProducerIdAllocator.open(tmp), TransactionCoordinators.sole(transactions), AccessControl.allowAll());

        final InitProducerIdResponseData response =
                initTransactional(handler, "tx", TestTransactions.DEFAULTS.maxTimeoutMs() + 1);

        assertThat(response.errorCode()).isEqualTo(Errors.INVALID_TRANSACTION_TIMEOUT.code());
        assertThat(response.producerId()).isEqualTo(-1);
    }
}
