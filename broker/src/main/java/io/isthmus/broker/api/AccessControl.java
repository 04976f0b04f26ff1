package io.isthmus.broker.api;

import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.security.Authorizer;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The API handlers' view of the broker's {@link Authorizer}: asks it about the principal and host of a request, and
 * computes the authorized-operations bit fields Metadata, DescribeCluster and DescribeGroups answer with.
 */
public final class AccessControl {
    /** The one cluster resource's name, as Kafka names it in ACLs. */
    public static final String CLUSTER = Authorizer.CLUSTER_NAME;
    /** What {@code *AuthorizedOperations} fields hold when the client did not ask for them (Kafka's value). */
    static final int NOT_REQUESTED = Integer.MIN_VALUE;

    /** The operations that mean something per resource type: those an authorized-operations answer reports. */
    private static final Map<ResourceType, Set<AclOperation>> SUPPORTED = new EnumMap<>(Map.of(
            ResourceType.TOPIC,
            EnumSet.of(
                    AclOperation.READ,
                    AclOperation.WRITE,
                    AclOperation.CREATE,
                    AclOperation.DESCRIBE,
                    AclOperation.DELETE,
                    AclOperation.ALTER,
                    AclOperation.DESCRIBE_CONFIGS,
                    AclOperation.ALTER_CONFIGS),
            ResourceType.GROUP,
            EnumSet.of(AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE),
            ResourceType.CLUSTER,
            EnumSet.of(
                    AclOperation.CREATE,
                    AclOperation.CLUSTER_ACTION,
                    AclOperation.DESCRIBE_CONFIGS,
                    AclOperation.ALTER_CONFIGS,
                    AclOperation.IDEMPOTENT_WRITE,
                    AclOperation.ALTER,
                    AclOperation.DESCRIBE),
            ResourceType.TRANSACTIONAL_ID,
            EnumSet.of(AclOperation.DESCRIBE, AclOperation.WRITE)));

    private final Authorizer authorizer;

    public AccessControl(final Authorizer authorizer) {
        this.authorizer = authorizer;
    }

    /** Everyone may do everything: the broker without an authorizer, and handlers' tests. */
    public static AccessControl allowAll() {
        return new AccessControl(Authorizer.ALLOW_ALL);
    }

    /** Whether the request's principal may perform {@code operation} on the named resource. */
    public boolean allows(
            final RequestContext context, final AclOperation operation, final ResourceType type, final String name) {
        return authorizer.authorize(context.principal(), context.clientHost(), operation, type, name);
    }

    /** Whether the request's principal may perform {@code operation} on the cluster. */
    public boolean allowsOnCluster(final RequestContext context, final AclOperation operation) {
        return allows(context, operation, ResourceType.CLUSTER, CLUSTER);
    }

    /** Whether the request's principal may perform {@code operation} on some resource of {@code type}. */
    public boolean allowsAny(final RequestContext context, final AclOperation operation, final ResourceType type) {
        return authorizer.authorizeAny(context.principal(), context.clientHost(), operation, type);
    }

    /** Kafka's bit field of the operations the request's principal may perform on the named resource. */
    public int authorizedOperations(final RequestContext context, final ResourceType type, final String name) {
        int bits = 0;
        for (final AclOperation operation : SUPPORTED.getOrDefault(type, Set.of())) {
            if (allows(context, operation, type, name)) {
                bits |= 1 << operation.code();
            }
        }
        return bits;
    }
}
