package io.isthmus.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.producer.ProducerIdAllocator;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProducerIdHandlerTest {
    private static final short VERSION = ApiKeys.INIT_PRODUCER_ID.latestVersion();

    @TempDir
    Path tmp;

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
            final ProducerIdHandler handler = new ProducerIdHandler(ProducerIdAllocator.open(tmp));
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
        final ProducerIdHandler handler = new ProducerIdHandler(ProducerIdAllocator.open(tmp));
        final long id = init(handler, -1, (short) -1).producerId();

        final InitProducerIdResponseData bumped = init(handler, id, (short) 4);

        assertThat(bumped.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(bumped.producerId()).isEqualTo(id);
        assertThat(bumped.producerEpoch()).isEqualTo((short) 5);
    }

    @Test
    void shouldHandOutANewIdWhenTheEpochIsExhausted() throws Exception {
        final ProducerIdHandler handler = new ProducerIdHandler(ProducerIdAllocator.open(tmp));
        final long id = init(handler, -1, (short) -1).producerId();

        final InitProducerIdResponseData renewed = init(handler, id, (short) (Short.MAX_VALUE - 1));

        assertThat(renewed.producerId()).isNotEqualTo(id);
        assertThat(renewed.producerEpoch()).isZero();
    }

    @Test
    void shouldRefuseTransactionalProducers() throws Exception {
        final ProducerIdHandler handler = new ProducerIdHandler(ProducerIdAllocator.open(tmp));

        final InitProducerIdResponseData response = Requests.body(
                handler,
                ApiKeys.INIT_PRODUCER_ID,
                VERSION,
                new InitProducerIdRequestData()
                        .setTransactionalId("tx")
                        .setTransactionTimeoutMs(60_000)
                        .setProducerId(-1)
                        .setProducerEpoch((short) -1));

        assertThat(response.errorCode()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE.code());
        assertThat(response.producerId()).isEqualTo(-1);
    }
}
