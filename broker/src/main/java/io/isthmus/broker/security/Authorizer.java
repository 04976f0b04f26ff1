package io.isthmus.broker.security;

import java.net.InetAddress;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Decides whether a principal, connected from a host, may perform an operation on a resource: Kafka's authorization
 * model, asked by every API handler and by the RDMA and shared-memory control planes before it grants access to a partition's memory.
 */
public interface Authorizer {
    /** The one cluster resource's name, as Kafka's ACLs name it. */
    String CLUSTER_NAME = "kafka-cluster";
    /** No authorizer configured ({@code authorizer.class.name} empty): everyone may do everything, as in Kafka. */
    Authorizer ALLOW_ALL = new Authorizer() {
        @Override
        public boolean authorize(
                final KafkaPrincipal principal,
                final InetAddress host,
                final AclOperation operation,
                final ResourceType resourceType,
                final String resourceName) {
            return true;
        }

        @Override
        public boolean authorizeAny(
                final KafkaPrincipal principal,
                final InetAddress host,
                final AclOperation operation,
                final ResourceType resourceType) {
            return true;
        }
    };

    /** Whether {@code principal} from {@code host} may perform {@code operation} on the named resource. */
    boolean authorize(
            KafkaPrincipal principal,
            InetAddress host,
            AclOperation operation,
            ResourceType resourceType,
            String resourceName);

    /**
     * Whether {@code principal} from {@code host} may perform {@code operation} on {@code topic}; never on a topic
     * not known here ({@code null}), which the shared-memory and RDMA control planes refuse as unauthorized rather
     * than tell an unauthorized client it does not exist.
     */
    default boolean authorizeTopic(
            final KafkaPrincipal principal, final InetAddress host, final AclOperation operation, final String topic) {
        return topic != null && authorize(principal, host, operation, ResourceType.TOPIC, topic);
    }

    /** Whether {@code principal} from {@code host} may perform {@code operation} on the cluster (Kafka's one name). */
    default boolean authorizeCluster(
            final KafkaPrincipal principal, final InetAddress host, final AclOperation operation) {
        return authorize(principal, host, operation, ResourceType.CLUSTER, CLUSTER_NAME);
    }

    /**
     * Whether {@code principal} from {@code host} may perform {@code operation} on at least one resource of {@code
     * resourceType}, existing or not (Kafka's {@code authorizeByResourceType}): an idempotent producer may get a
     * producer id if it may write to some topic.
     */
    boolean authorizeAny(KafkaPrincipal principal, InetAddress host, AclOperation operation, ResourceType resourceType);
}
