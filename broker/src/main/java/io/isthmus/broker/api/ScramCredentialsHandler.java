package io.isthmus.broker.api;

import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.Response;
import io.isthmus.broker.security.ScramCredentialStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AlterUserScramCredentialsRequest;
import org.apache.kafka.common.requests.DescribeUserScramCredentialsRequest;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * AlterUserScramCredentials and DescribeUserScramCredentials over the broker's {@link ScramCredentialStore}, with
 * Kafka's checks and error codes: an empty user name is UNACCEPTABLE_CREDENTIAL, an unknown mechanism
 * UNSUPPORTED_SASL_MECHANISM, an iteration count outside the mechanism's range (4096 to 16384) UNACCEPTABLE_CREDENTIAL,
 * a user named twice in one request DUPLICATE_RESOURCE (for all its entries), deleting what is not there
 * RESOURCE_NOT_FOUND. Each user's entries are applied on their own.
 */
public final class ScramCredentialsHandler implements ApiHandler {
    private final ScramCredentialStore credentials;
    private final AccessControl access;

    public ScramCredentialsHandler(final ScramCredentialStore credentials, final AccessControl access) {
        this.credentials = credentials;
        this.access = access;
    }

    @Override
    public Set<ApiKeys> apiKeys() {
        return Set.of(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS);
    }

    @Override
    public CompletableFuture<Response> handle(final RequestContext context, final AbstractRequest request) {
        return CompletableFuture.completedFuture(Response.of(
                switch (request) {
                    case AlterUserScramCredentialsRequest alter ->
                        access.allowsOnCluster(context, AclOperation.ALTER)
                                ? alter(alter.data())
                                : refuseAlter(alter.data());
                    case DescribeUserScramCredentialsRequest describe ->
                        access.allowsOnCluster(context, AclOperation.DESCRIBE)
                                ? describe(describe.data())
                                : new DescribeUserScramCredentialsResponseData()
                                        .setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code())
                                        .setErrorMessage("not authorized to describe SCRAM credentials");
                    default -> throw new IllegalArgumentException("not a SCRAM request: " + request.apiKey());
                }));
    }

    /** Without ALTER on the cluster (Kafka's rule) every user named gets CLUSTER_AUTHORIZATION_FAILED. */
    private static AlterUserScramCredentialsResponseData refuseAlter(final AlterUserScramCredentialsRequestData data) {
        final Map<String, AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult> results =
                new java.util.LinkedHashMap<>();
        data.deletions().forEach(d -> fail(results, d.name(), Errors.CLUSTER_AUTHORIZATION_FAILED, "not authorized"));
        data.upsertions().forEach(u -> fail(results, u.name(), Errors.CLUSTER_AUTHORIZATION_FAILED, "not authorized"));
        return new AlterUserScramCredentialsResponseData().setResults(List.copyOf(results.values()));
    }

    private AlterUserScramCredentialsResponseData alter(final AlterUserScramCredentialsRequestData data) {
        final Map<String, Integer> mentions = new HashMap<>();
        data.deletions().forEach(d -> mentions.merge(d.name(), 1, Integer::sum));
        data.upsertions().forEach(u -> mentions.merge(u.name(), 1, Integer::sum));
        final Map<String, AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult> results =
                new java.util.LinkedHashMap<>();
        for (final var deletion : data.deletions()) {
            final String refusal = refusal(deletion.name(), deletion.mechanism(), mentions, null);
            if (refusal != null) {
                fail(results, deletion.name(), refusalError(refusal), refusal);
                continue;
            }
            if (!credentials.delete(deletion.name(), mechanism(deletion.mechanism()))) {
                fail(
                        results,
                        deletion.name(),
                        Errors.RESOURCE_NOT_FOUND,
                        "no " + mechanismName(deletion.mechanism()) + " credential for user '" + deletion.name() + "'");
                continue;
            }
            succeed(results, deletion.name());
        }
        for (final var upsertion : data.upsertions()) {
            final String refusal = refusal(upsertion.name(), upsertion.mechanism(), mentions, upsertion.iterations());
            if (refusal != null) {
                fail(results, upsertion.name(), refusalError(refusal), refusal);
                continue;
            }
            credentials.upsert(
                    upsertion.name(),
                    mechanism(upsertion.mechanism()),
                    upsertion.salt(),
                    upsertion.saltedPassword(),
                    upsertion.iterations());
            succeed(results, upsertion.name());
        }
        return new AlterUserScramCredentialsResponseData().setResults(List.copyOf(results.values()));
    }

    private static final String DUPLICATE = "DUPLICATE: ";
    private static final String MECHANISM = "MECHANISM: ";

    /** Why an entry is refused (prefixed with its error's tag), or null. */
    private static String refusal(
            final String user, final byte mechanism, final Map<String, Integer> mentions, final Integer iterations) {
        if (user == null || user.isEmpty()) {
            return "Username must not be empty";
        }
        if (mentions.getOrDefault(user, 0) > 1) {
            return DUPLICATE + "user '" + user + "' is named more than once in the request";
        }
        final ScramMechanism scram = mechanism(mechanism);
        if (scram == null) {
            return MECHANISM + "unknown SCRAM mechanism type " + mechanism;
        }
        if (iterations != null && (iterations < scram.minIterations() || iterations > scram.maxIterations())) {
            return "iterations " + iterations + " outside " + scram.minIterations() + ".." + scram.maxIterations()
                    + " for " + scram.mechanismName();
        }
        return null;
    }

    private static Errors refusalError(final String refusal) {
        if (refusal.startsWith(DUPLICATE)) {
            return Errors.DUPLICATE_RESOURCE;
        }
        if (refusal.startsWith(MECHANISM)) {
            return Errors.UNSUPPORTED_SASL_MECHANISM;
        }
        return Errors.UNACCEPTABLE_CREDENTIAL;
    }

    /** The mechanism of a wire type (1: SCRAM-SHA-256, 2: SCRAM-SHA-512, as kafka-clients' Admin numbers them), or null. */
    private static ScramMechanism mechanism(final byte type) {
        final org.apache.kafka.clients.admin.ScramMechanism wire =
                org.apache.kafka.clients.admin.ScramMechanism.fromType(type);
        return wire == org.apache.kafka.clients.admin.ScramMechanism.UNKNOWN
                ? null
                : ScramMechanism.forMechanismName(wire.mechanismName());
    }

    private static String mechanismName(final byte type) {
        final ScramMechanism mechanism = mechanism(type);
        return mechanism == null ? "type " + type : mechanism.mechanismName();
    }

    private static void succeed(
            final Map<String, AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult> results,
            final String user) {
        results.putIfAbsent(
                user,
                new AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult()
                        .setUser(user)
                        .setErrorCode(Errors.NONE.code()));
    }

    /** The user's result is its first failure; a later success does not hide it. */
    private static void fail(
            final Map<String, AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult> results,
            final String user,
            final Errors error,
            final String message) {
        final var existing = results.get(user);
        if (existing == null || existing.errorCode() == Errors.NONE.code()) {
            results.put(
                    user,
                    new AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult()
                            .setUser(user)
                            .setErrorCode(error.code())
                            .setErrorMessage(message));
        }
    }

    private DescribeUserScramCredentialsResponseData describe(final DescribeUserScramCredentialsRequestData data) {
        final DescribeUserScramCredentialsResponseData response =
                new DescribeUserScramCredentialsResponseData().setErrorCode(Errors.NONE.code());
        final List<String> users = data.users() == null || data.users().isEmpty()
                ? credentials.users()
                : data.users().stream()
                        .map(DescribeUserScramCredentialsRequestData.UserName::name)
                        .toList();
        final Map<String, Integer> mentions = new HashMap<>();
        users.forEach(user -> mentions.merge(user, 1, Integer::sum));
        for (final String user : users.stream().distinct().toList()) {
            final var result =
                    new DescribeUserScramCredentialsResponseData.DescribeUserScramCredentialsResult().setUser(user);
            response.results().add(result);
            if (mentions.get(user) > 1) {
                result.setErrorCode(Errors.DUPLICATE_RESOURCE.code())
                        .setErrorMessage("user '" + user + "' is named more than once in the request");
                continue;
            }
            final Optional<Map<ScramMechanism, Integer>> described = credentials.describe(user);
            if (described.isEmpty()) {
                result.setErrorCode(Errors.RESOURCE_NOT_FOUND.code())
                        .setErrorMessage("user '" + user + "' has no SCRAM credential");
                continue;
            }
            result.setErrorCode(Errors.NONE.code());
            described.get().forEach((mechanism, iterations) -> result.credentialInfos()
                    .add(new DescribeUserScramCredentialsResponseData.CredentialInfo()
                            .setMechanism(mechanism.type())
                            .setIterations(iterations)));
        }
        return response;
    }
}
