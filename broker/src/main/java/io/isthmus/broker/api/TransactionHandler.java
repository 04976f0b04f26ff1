package io.isthmus.broker.api;

import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.Response;
import io.isthmus.broker.transaction.TransactionCoordinator;
import io.isthmus.broker.transaction.TransactionCoordinator.TransactionDescription;
import io.isthmus.broker.transaction.TransactionCoordinators;
import io.isthmus.broker.transaction.TransactionState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResultCollection;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.DescribeTransactionsRequest;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.ListTransactionsRequest;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The transaction coordinator's APIs besides InitProducerId ({@link ProducerIdHandler}) and TxnOffsetCommit ({@link
 * GroupHandler}, where Kafka serves it too): AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, and the admin views
 * DescribeTransactions and ListTransactions, translated between Kafka's messages and the {@link
 * TransactionCoordinator} of each transactional id ({@link TransactionCoordinators}; an id another broker coordinates
 * is answered NOT_COORDINATOR, as Kafka does). Requests run on the coordinators' executor.
 */
public final class TransactionHandler implements ApiHandler {
    private final TransactionCoordinators coordinators;
    private final AccessControl access;

    public TransactionHandler(final TransactionCoordinators coordinators, final AccessControl access) {
        this.coordinators = coordinators;
        this.access = access;
    }

    @Override
    public Set<ApiKeys> apiKeys() {
        return Set.of(
                ApiKeys.ADD_PARTITIONS_TO_TXN,
                ApiKeys.ADD_OFFSETS_TO_TXN,
                ApiKeys.END_TXN,
                ApiKeys.DESCRIBE_TRANSACTIONS,
                ApiKeys.LIST_TRANSACTIONS);
    }

    @Override
    public CompletableFuture<Response> handle(final RequestContext context, final AbstractRequest request) {
        return CompletableFuture.supplyAsync(() -> Response.of(answer(context, request)), coordinators.executor());
    }

    private ApiMessage answer(final RequestContext context, final AbstractRequest request) {
        return switch (request) {
            case AddPartitionsToTxnRequest add -> addPartitions(context, add);
            case AddOffsetsToTxnRequest add -> addOffsets(context, add);
            case EndTxnRequest end ->
                new EndTxnResponseData()
                        .setErrorCode(
                                !mayWrite(context, end.data().transactionalId())
                                        ? Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code()
                                        : fencedFor(
                                                        endTransaction(
                                                                end.data().transactionalId(),
                                                                end.data().producerId(),
                                                                end.data().producerEpoch(),
                                                                end.data().committed()),
                                                        end.version(),
                                                        2)
                                                .code());
            case DescribeTransactionsRequest describe -> describe(context, describe);
            case ListTransactionsRequest list -> list(context, list);
            default -> throw new IllegalArgumentException("not a transaction request: " + request.apiKey());
        };
    }

    private Errors endTransaction(
            final String transactionalId, final long producerId, final short epoch, final boolean commit) {
        final TransactionCoordinators.Found found = coordinators.coordinatorOf(transactionalId);
        return found.error() != Errors.NONE
                ? found.error()
                : found.coordinator().endTransaction(transactionalId, producerId, epoch, commit);
    }

    /**
     * PRODUCER_FENCED exists from these versions on (KIP-588); older clients know the same condition as
     * INVALID_PRODUCER_EPOCH.
     */
    static Errors fencedFor(final Errors error, final short version, final int firstVersionWithProducerFenced) {
        return error == Errors.PRODUCER_FENCED && version < firstVersionWithProducerFenced
                ? Errors.INVALID_PRODUCER_EPOCH
                : error;
    }

    private boolean mayWrite(final RequestContext context, final String transactionalId) {
        return access.allows(context, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactionalId);
    }

    /** Kafka's rules: WRITE on the transactional id, READ on the group whose offsets join the transaction. */
    private AddOffsetsToTxnResponseData addOffsets(final RequestContext context, final AddOffsetsToTxnRequest add) {
        final Errors error;
        if (!mayWrite(context, add.data().transactionalId())) {
            error = Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
        } else if (!access.allows(
                context, AclOperation.READ, ResourceType.GROUP, add.data().groupId())) {
            error = Errors.GROUP_AUTHORIZATION_FAILED;
        } else if (coordinators.coordinatorOf(add.data().transactionalId()).error() != Errors.NONE) {
            error = coordinators.coordinatorOf(add.data().transactionalId()).error();
        } else {
            error = fencedFor(
                    coordinators
                            .coordinatorOf(add.data().transactionalId())
                            .coordinator()
                            .addOffsets(
                                    add.data().transactionalId(),
                                    add.data().producerId(),
                                    add.data().producerEpoch(),
                                    add.data().groupId()),
                    add.version(),
                    2);
        }
        return new AddOffsetsToTxnResponseData().setErrorCode(error.code());
    }

    private AddPartitionsToTxnResponseData addPartitions(
            final RequestContext context, final AddPartitionsToTxnRequest request) {
        final AddPartitionsToTxnRequestData data = request.data();
        final AddPartitionsToTxnResponseData response = new AddPartitionsToTxnResponseData();
        if (request.version() <= 3) {
            // A producer's request: one transaction, results by topic.
            response.setResultsByTopicV3AndBelow(results(
                    context,
                    data.v3AndBelowTransactionalId(),
                    data.v3AndBelowProducerId(),
                    data.v3AndBelowProducerEpoch(),
                    data.v3AndBelowTopics(),
                    false,
                    request.version()));
            return response;
        }
        // A broker's batched request (KIP-890), possibly only verifying: brokers need CLUSTER_ACTION, as in Kafka.
        if (!access.allowsOnCluster(context, AclOperation.CLUSTER_ACTION)) {
            return response.setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
        }
        for (final AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction transaction : data.transactions()) {
            response.resultsByTransaction()
                    .add(new AddPartitionsToTxnResult()
                            .setTransactionalId(transaction.transactionalId())
                            .setTopicResults(results(
                                    context,
                                    transaction.transactionalId(),
                                    transaction.producerId(),
                                    transaction.producerEpoch(),
                                    transaction.topics(),
                                    transaction.verifyOnly(),
                                    request.version())));
        }
        return response;
    }

    private AddPartitionsToTxnTopicResultCollection results(
            final RequestContext context,
            final String transactionalId,
            final long producerId,
            final short epoch,
            final AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection topics,
            final boolean verifyOnly,
            final short version) {
        final List<TopicPartition> requested = new ArrayList<>();
        for (final AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic topic : topics) {
            for (final int partition : topic.partitions()) {
                requested.add(new TopicPartition(topic.name(), partition));
            }
        }
        final Map<TopicPartition, Errors> refused = refusals(context, transactionalId, requested);
        final TransactionCoordinators.Found found = coordinators.coordinatorOf(transactionalId);
        final Map<TopicPartition, Errors> verdicts;
        if (refused != null) {
            verdicts = refused;
        } else if (found.error() != Errors.NONE) {
            verdicts = new HashMap<>();
            requested.forEach(partition -> verdicts.put(partition, found.error()));
        } else {
            verdicts = found.coordinator().addPartitions(transactionalId, producerId, epoch, requested, verifyOnly);
        }
        final Map<String, AddPartitionsToTxnTopicResult> byTopic = new LinkedHashMap<>();
        for (final TopicPartition partition : requested) {
            byTopic.computeIfAbsent(partition.topic(), name -> new AddPartitionsToTxnTopicResult().setName(name))
                    .resultsByPartition()
                    .add(new AddPartitionsToTxnPartitionResult()
                            .setPartitionIndex(partition.partition())
                            .setPartitionErrorCode(fencedFor(verdicts.get(partition), version, 2)
                                    .code()));
        }
        final AddPartitionsToTxnTopicResultCollection results = new AddPartitionsToTxnTopicResultCollection();
        byTopic.values().forEach(results::add);
        return results;
    }

    /**
     * Kafka's verdicts when the request may not go ahead: every partition TRANSACTIONAL_ID_AUTHORIZATION_FAILED without
     * WRITE on the transactional id, else those of topics without WRITE TOPIC_AUTHORIZATION_FAILED and the rest
     * OPERATION_NOT_ATTEMPTED; null when it may.
     */
    private Map<TopicPartition, Errors> refusals(
            final RequestContext context, final String transactionalId, final List<TopicPartition> requested) {
        final Map<TopicPartition, Errors> verdicts = new HashMap<>();
        if (!mayWrite(context, transactionalId)) {
            requested.forEach(partition -> verdicts.put(partition, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED));
            return verdicts;
        }
        boolean refused = false;
        for (final TopicPartition partition : requested) {
            final boolean allowed = access.allows(context, AclOperation.WRITE, ResourceType.TOPIC, partition.topic());
            refused |= !allowed;
            verdicts.put(partition, allowed ? Errors.OPERATION_NOT_ATTEMPTED : Errors.TOPIC_AUTHORIZATION_FAILED);
        }
        return refused ? verdicts : null;
    }

    private DescribeTransactionsResponseData describe(
            final RequestContext context, final DescribeTransactionsRequest request) {
        final DescribeTransactionsResponseData response = new DescribeTransactionsResponseData();
        for (final String transactionalId : request.data().transactionalIds()) {
            final DescribeTransactionsResponseData.TransactionState state =
                    new DescribeTransactionsResponseData.TransactionState().setTransactionalId(transactionalId);
            if (!access.allows(context, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, transactionalId)) {
                response.transactionStates()
                        .add(state.setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code())
                                .setTransactionState("")
                                .setProducerId(-1)
                                .setProducerEpoch((short) -1)
                                .setTransactionStartTimeMs(-1));
                continue;
            }
            final TransactionCoordinators.Found coordinator = coordinators.coordinatorOf(transactionalId);
            if (coordinator.error() != Errors.NONE) {
                response.transactionStates()
                        .add(state.setErrorCode(coordinator.error().code())
                                .setTransactionState("")
                                .setProducerId(-1)
                                .setProducerEpoch((short) -1)
                                .setTransactionStartTimeMs(-1));
                continue;
            }
            final Optional<TransactionDescription> found =
                    coordinator.coordinator().describe(transactionalId);
            if (found.isEmpty()) {
                state.setErrorCode(Errors.TRANSACTIONAL_ID_NOT_FOUND.code())
                        .setTransactionState("")
                        .setProducerId(-1)
                        .setProducerEpoch((short) -1)
                        .setTransactionStartTimeMs(-1);
            } else {
                final TransactionDescription description = found.get();
                state.setTransactionState(description.state().kafkaName())
                        .setTransactionTimeoutMs(description.timeoutMs())
                        .setTransactionStartTimeMs(description.startTimestampMs())
                        .setProducerId(description.producerId())
                        .setProducerEpoch(description.producerEpoch());
                final Map<String, DescribeTransactionsResponseData.TopicData> byTopic = new LinkedHashMap<>();
                for (final TopicPartition partition : description.partitions()) {
                    if (!access.allows(context, AclOperation.DESCRIBE, ResourceType.TOPIC, partition.topic())) {
                        continue; // as Kafka: the topics the principal may not describe are left out
                    }
                    byTopic.computeIfAbsent(partition.topic(), name -> new DescribeTransactionsResponseData.TopicData()
                                    .setTopic(name))
                            .partitions()
                            .add(partition.partition());
                }
                byTopic.values().forEach(state.topics()::add);
            }
            response.transactionStates().add(state);
        }
        return response;
    }

    private ListTransactionsResponseData list(final RequestContext context, final ListTransactionsRequest request) {
        final ListTransactionsRequestData data = request.data();
        final ListTransactionsResponseData response = new ListTransactionsResponseData();
        final Set<TransactionState> states = new HashSet<>();
        for (final String name : data.stateFilters()) {
            final TransactionState state = TransactionState.ofKafkaName(name);
            if (state == null) {
                response.unknownStateFilters().add(name);
            } else {
                states.add(state);
            }
        }
        final Set<Long> producerIds = new HashSet<>(data.producerIdFilters());
        final Pattern idPattern;
        try {
            idPattern = data.transactionalIdPattern() == null
                            || data.transactionalIdPattern().isEmpty()
                    ? null
                    : Pattern.compile(data.transactionalIdPattern());
        } catch (final PatternSyntaxException e) {
            return response.setErrorCode(Errors.INVALID_REGULAR_EXPRESSION.code());
        }
        final long now = System.currentTimeMillis();
        final Predicate<TransactionDescription> filter = description -> (data.stateFilters()
                                .isEmpty()
                        || states.contains(description.state()))
                && (producerIds.isEmpty() || producerIds.contains(description.producerId()))
                && (data.durationFilter() < 0
                        || (description.startTimestampMs() >= 0
                                && now - description.startTimestampMs() > data.durationFilter()))
                && (idPattern == null
                        || idPattern.matcher(description.transactionalId()).matches())
                && access.allows(
                        context, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, description.transactionalId());
        for (final TransactionCoordinator coordinator : coordinators.all()) {
            for (final TransactionDescription description : coordinator.list(filter)) {
                response.transactionStates()
                        .add(new ListTransactionsResponseData.TransactionState()
                                .setTransactionalId(description.transactionalId())
                                .setProducerId(description.producerId())
                                .setTransactionState(description.state().kafkaName()));
            }
        }
        return response;
    }
}
