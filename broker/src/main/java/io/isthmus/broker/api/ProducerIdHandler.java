package io.isthmus.broker.api;

import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.Response;
import io.isthmus.broker.producer.ProducerIdAllocator;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.InitProducerIdRequest;

/**
 * InitProducerId for idempotent producers (kafka-clients' default): a fresh producer id at epoch 0, or, for
 * a producer that names its current id and epoch (KIP-360), the same id at the next epoch. Transactional
 * ids need a transaction coordinator, which this broker does not have yet.
 */
public final class ProducerIdHandler implements ApiHandler {
    private final ProducerIdAllocator ids;

    public ProducerIdHandler(final ProducerIdAllocator ids) {
        this.ids = ids;
    }

    @Override
    public Set<ApiKeys> apiKeys() {
        return Set.of(ApiKeys.INIT_PRODUCER_ID);
    }

    @Override
    public CompletableFuture<Response> handle(final RequestContext context, final AbstractRequest request) {
        final InitProducerIdRequestData data = ((InitProducerIdRequest) request).data();
        final InitProducerIdResponseData response = new InitProducerIdResponseData();
        if (data.transactionalId() != null) {
            response.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code())
                    .setProducerId(-1)
                    .setProducerEpoch((short) -1);
        } else if (data.producerId() >= 0 && data.producerEpoch() >= 0 && data.producerEpoch() < Short.MAX_VALUE - 1) {
            response.setProducerId(data.producerId()).setProducerEpoch((short) (data.producerEpoch() + 1));
        } else {
            response.setProducerId(ids.nextId()).setProducerEpoch((short) 0);
        }
        return CompletableFuture.completedFuture(Response.of(response));
    }
}
