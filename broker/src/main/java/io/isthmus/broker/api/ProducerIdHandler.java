package io.isthmus.broker.api;

import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.Response;
import io.isthmus.broker.producer.ProducerIds;
import io.isthmus.broker.transaction.TransactionCoordinator;
import io.isthmus.broker.transaction.TransactionCoordinator.InitResult;
import io.isthmus.broker.transaction.TransactionCoordinators;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.resource.ResourceType;

/**
 * InitProducerId. For idempotent producers (kafka-clients' default): a fresh producer id at epoch 0, or, for a
 * producer that names its current id and epoch (KIP-360), the same id at the next epoch. For transactional producers:
 * the {@link TransactionCoordinator} binds the {@code transactional.id} to a producer id and a new epoch.
 */
public final class ProducerIdHandler implements ApiHandler {
    /** The first InitProducerId version that knows PRODUCER_FENCED (KIP-588). */
    private static final int FIRST_VERSION_WITH_PRODUCER_FENCED = 4;

    private final ProducerIds ids;
    private final TransactionCoordinators transactions;
    private final AccessControl access;

    /**
     * @param transactions the coordinators of transactional ids here: an id another broker coordinates is answered
     *     NOT_COORDINATOR, and the client asks FindCoordinator again
     */
    public ProducerIdHandler(
            final ProducerIds ids, final TransactionCoordinators transactions, final AccessControl access) {
        this.ids = ids;
        this.transactions = transactions;
        this.access = access;
    }

    @Override
    public Set<ApiKeys> apiKeys() {
        return Set.of(ApiKeys.INIT_PRODUCER_ID);
    }

    @Override
    public CompletableFuture<Response> handle(final RequestContext context, final AbstractRequest request) {
        final InitProducerIdRequestData data = ((InitProducerIdRequest) request).data();
        final Errors refused = refusal(context, data);
        if (refused != null) {
            return CompletableFuture.completedFuture(Response.of(failed(refused)));
        }
        if (data.transactionalId() == null) {
            final InitProducerIdResponseData response = new InitProducerIdResponseData();
            if (data.producerId() >= 0 && data.producerEpoch() >= 0 && data.producerEpoch() < Short.MAX_VALUE - 1) {
                response.setProducerId(data.producerId()).setProducerEpoch((short) (data.producerEpoch() + 1));
            } else {
                response.setProducerId(ids.nextId()).setProducerEpoch((short) 0);
            }
            return CompletableFuture.completedFuture(Response.of(response));
        }
        if (data.enable2Pc() || data.keepPreparedTxn()) {
            // KIP-939's two-phase commit with an external coordinator is not served.
            return CompletableFuture.completedFuture(Response.of(failed(Errors.UNSUPPORTED_VERSION)));
        }
        return CompletableFuture.supplyAsync(
                () -> Response.of(initTransactional(context, data)), transactions.executor());
    }

    private InitProducerIdResponseData initTransactional(
            final RequestContext context, final InitProducerIdRequestData data) {
        final TransactionCoordinators.Found coordinator = transactions.coordinatorOf(data.transactionalId());
        if (coordinator.error() != Errors.NONE) {
            return failed(coordinator.error());
        }
        final InitResult result = coordinator
                .coordinator()
                .initProducerId(
                        data.transactionalId(), data.transactionTimeoutMs(), data.producerId(), data.producerEpoch());
        return new InitProducerIdResponseData()
                .setErrorCode(TransactionHandler.fencedFor(
                                result.error(), context.apiVersion(), FIRST_VERSION_WITH_PRODUCER_FENCED)
                        .code())
                .setProducerId(result.producerId())
                .setProducerEpoch(result.producerEpoch());
    }

    private static InitProducerIdResponseData failed(final Errors error) {
        return new InitProducerIdResponseData()
                .setErrorCode(error.code())
                .setProducerId(-1)
                .setProducerEpoch((short) -1);
    }

    /**
     * Kafka's rules: a transactional producer needs WRITE on its transactional id; an idempotent one IDEMPOTENT_WRITE
     * on the cluster or WRITE on some topic.
     */
    private Errors refusal(final RequestContext context, final InitProducerIdRequestData data) {
        if (data.transactionalId() != null) {
            return access.allows(context, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, data.transactionalId())
                    ? null
                    : Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
        }
        return access.allowsOnCluster(context, AclOperation.IDEMPOTENT_WRITE)
                        || access.allowsAny(context, AclOperation.WRITE, ResourceType.TOPIC)
                ? null
                : Errors.CLUSTER_AUTHORIZATION_FAILED;
    }
}
