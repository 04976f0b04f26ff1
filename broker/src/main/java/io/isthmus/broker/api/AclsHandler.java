package io.isthmus.broker.api;

import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.Response;
import io.isthmus.broker.security.AclAuthorizer;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.DeleteAclsRequestData;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.CreateAclsRequest;
import org.apache.kafka.common.requests.DeleteAclsRequest;
import org.apache.kafka.common.requests.DeleteAclsResponse;
import org.apache.kafka.common.requests.DescribeAclsRequest;
import org.apache.kafka.common.requests.DescribeAclsResponse;

/**
 * CreateAcls, DescribeAcls and DeleteAcls, as Kafka serves them: ALTER on the cluster to change ACLs, DESCRIBE to list
 * them, and SECURITY_DISABLED from a broker without an authorizer (where ACLs would mean nothing).
 */
public final class AclsHandler implements ApiHandler {
    private static final String NO_AUTHORIZER = "no authorizer is configured on the broker (authorizer.class.name)";

    private final Optional<AclAuthorizer> authorizer;
    private final AccessControl access;

    /** @param authorizer the ACL authorizer, or empty when {@code authorizer.class.name} is not set */
    public AclsHandler(final Optional<AclAuthorizer> authorizer, final AccessControl access) {
        this.authorizer = authorizer;
        this.access = access;
    }

    @Override
    public Set<ApiKeys> apiKeys() {
        return Set.of(ApiKeys.CREATE_ACLS, ApiKeys.DESCRIBE_ACLS, ApiKeys.DELETE_ACLS);
    }

    @Override
    public CompletableFuture<Response> handle(final RequestContext context, final AbstractRequest request) {
        return CompletableFuture.completedFuture(Response.of(
                switch (request) {
                    case CreateAclsRequest create -> create(context, create);
                    case DescribeAclsRequest describe -> describe(context, describe);
                    case DeleteAclsRequest delete -> delete(context, delete);
                    default -> throw new IllegalArgumentException("not an ACL request: " + request.apiKey());
                }));
    }

    /** Why the request may not go ahead at all, or null. */
    private ApiError refusal(final RequestContext context, final AclOperation needed) {
        if (authorizer.isEmpty()) {
            return new ApiError(Errors.SECURITY_DISABLED, NO_AUTHORIZER);
        }
        if (!access.allowsOnCluster(context, needed)) {
            return new ApiError(Errors.CLUSTER_AUTHORIZATION_FAILED, "not authorized to " + needed + " the cluster");
        }
        return null;
    }

    private CreateAclsResponseData create(final RequestContext context, final CreateAclsRequest request) {
        final List<CreateAclsRequestData.AclCreation> creations = request.data().creations();
        final CreateAclsResponseData response = new CreateAclsResponseData();
        final ApiError refused = refusal(context, AclOperation.ALTER);
        final List<ApiError> results = new ArrayList<>(creations.size());
        final List<AclBinding> bindings = new ArrayList<>();
        final List<Integer> bindingAt = new ArrayList<>();
        for (final CreateAclsRequestData.AclCreation creation : creations) {
            if (refused != null) {
                results.add(refused);
                continue;
            }
            try {
                bindings.add(CreateAclsRequest.aclBinding(creation));
                bindingAt.add(results.size());
                results.add(ApiError.NONE);
            } catch (final RuntimeException e) {
                // Codes out of range or patterns a binding cannot have (MATCH, ANY) fail to convert.
                results.add(new ApiError(Errors.INVALID_REQUEST, "invalid ACL creation: " + e.getMessage()));
            }
        }
        if (!bindings.isEmpty()) {
            final List<ApiError> created = authorizer.orElseThrow().create(bindings);
            for (int i = 0; i < created.size(); i++) {
                results.set(bindingAt.get(i), created.get(i));
            }
        }
        for (final ApiError result : results) {
            response.results()
                    .add(new CreateAclsResponseData.AclCreationResult()
                            .setErrorCode(result.error().code())
                            .setErrorMessage(result.message()));
        }
        return response;
    }

    private DescribeAclsResponseData describe(final RequestContext context, final DescribeAclsRequest request) {
        final ApiError refused = refusal(context, AclOperation.DESCRIBE);
        if (refused != null) {
            return new DescribeAclsResponseData()
                    .setErrorCode(refused.error().code())
                    .setErrorMessage(refused.message());
        }
        final AclBindingFilter filter;
        try {
            filter = request.filter();
        } catch (final RuntimeException e) {
            return new DescribeAclsResponseData()
                    .setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage("invalid ACL filter: " + e.getMessage());
        }
        return new DescribeAclsResponseData()
                .setErrorCode(Errors.NONE.code())
                .setResources(DescribeAclsResponse.aclsResources(
                        authorizer.orElseThrow().describe(filter)));
    }

    private DeleteAclsResponseData delete(final RequestContext context, final DeleteAclsRequest request) {
        final List<DeleteAclsRequestData.DeleteAclsFilter> filters =
                request.data().filters();
        final DeleteAclsResponseData response = new DeleteAclsResponseData();
        ApiError refused = refusal(context, AclOperation.ALTER);
        List<AclBindingFilter> parsed = List.of();
        if (refused == null) {
            try {
                parsed = request.filters();
            } catch (final RuntimeException e) {
                refused = new ApiError(Errors.INVALID_REQUEST, "invalid ACL filter: " + e.getMessage());
            }
        }
        List<List<AclBinding>> deleted = List.of();
        if (refused == null) {
            try {
                deleted = authorizer.orElseThrow().delete(parsed);
            } catch (final UncheckedIOException e) {
                refused = ApiError.fromThrowable(e);
            }
        }
        for (int i = 0; i < filters.size(); i++) {
            final DeleteAclsResponseData.DeleteAclsFilterResult result =
                    new DeleteAclsResponseData.DeleteAclsFilterResult();
            if (refused != null) {
                result.setErrorCode(refused.error().code()).setErrorMessage(refused.message());
            } else {
                for (final AclBinding binding : deleted.get(i)) {
                    result.matchingAcls().add(DeleteAclsResponse.matchingAcl(binding, ApiError.NONE));
                }
            }
            response.filterResults().add(result);
        }
        return response;
    }
}
