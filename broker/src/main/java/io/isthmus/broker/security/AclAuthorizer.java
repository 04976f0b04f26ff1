package io.isthmus.broker.security;

import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Kafka's ACL authorizer: decides from the {@link AclStore}'s bindings with the rules of Kafka's {@code
 * StandardAuthorizer}, so ACLs written for a Kafka cluster mean the same here.
 *
 * <ul>
 *   <li>Super users ({@code super.users}) may do everything.
 *   <li>A binding applies to a resource if its pattern is the resource's name ({@code LITERAL}), the wildcard {@code
 *       *} ({@code LITERAL}), or a prefix of the name ({@code PREFIXED}); to a principal if it names it or {@code
 *       User:*}; to a host if it names the client's address or {@code *}.
 *   <li>A DENY of the operation (or ALL) wins over every ALLOW.
 *   <li>An ALLOW of READ, WRITE, DELETE or ALTER implies DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS.
 *   <li>A resource no binding applies to is open to everyone only with {@code allow.everyone.if.no.acl.found}.
 * </ul>
 *
 * <p>Checks read an immutable index, swapped whole on every change: network threads never lock and allocate nothing
 * on the way to an answer (a host is formatted only for bindings that name one).
 */
public final class AclAuthorizer implements Authorizer {
    /** The name that selects this authorizer in {@code authorizer.class.name}. */
    public static final String CLASS_NAME = AclAuthorizer.class.getName();
    /** Kafka's ACL authorizers' names, accepted for this one so a Kafka configuration works unchanged. */
    public static final Set<String> KAFKA_CLASS_NAMES = Set.of(
            "org.apache.kafka.metadata.authorizer.StandardAuthorizer", "kafka.security.authorizer.AclAuthorizer");

    private static final String WILDCARD = ResourcePattern.WILDCARD_RESOURCE;

    private final AclStore store;
    private final Set<KafkaPrincipal> superUsers;
    private final boolean allowEveryoneIfNoAclFound;
    private final List<Runnable> changeListeners = new CopyOnWriteArrayList<>();
    private volatile Index index;

    public AclAuthorizer(
            final AclStore store, final Set<KafkaPrincipal> superUsers, final boolean allowEveryoneIfNoAclFound) {
        this.store = store;
        this.superUsers = Set.copyOf(superUsers);
        this.allowEveryoneIfNoAclFound = allowEveryoneIfNoAclFound;
        this.index = Index.of(store.bindings());
    }

    /** Parses {@code super.users}: principals separated by semicolons, as Kafka writes them ({@code User:alice}). */
    public static Set<KafkaPrincipal> parseSuperUsers(final String value) {
        if (value == null || value.isBlank()) {
            return Set.of();
        }
        final List<KafkaPrincipal> users = new ArrayList<>();
        for (final String user : value.split(";")) {
            if (!user.isBlank()) {
                users.add(parsePrincipal(user.trim()));
            }
        }
        return Set.copyOf(users);
    }

    /**
     * Parses a principal as ACLs and {@code super.users} write it, {@code Type:name}, split at the first colon.
     *
     * @throws IllegalArgumentException if there is no colon, or nothing before or after it
     */
    public static KafkaPrincipal parsePrincipal(final String value) {
        final int colon = value == null ? -1 : value.indexOf(':');
        if (colon <= 0 || colon == value.length() - 1) {
            throw new IllegalArgumentException("expected a principal as Type:name (User:alice), got '" + value + "'");
        }
        return new KafkaPrincipal(value.substring(0, colon), value.substring(colon + 1));
    }

    @Override
    public boolean authorize(
            final KafkaPrincipal principal,
            final InetAddress host,
            final AclOperation operation,
            final ResourceType resourceType,
            final String resourceName) {
        if (isSuperUser(principal)) {
            return true;
        }
        if (resourceName == null) {
            return false;
        }
        final Index current = index;
        final Entry[] exact = current.literal(resourceType, resourceName);
        final Entry[] wildcard = current.literal(resourceType, WILDCARD);
        final List<Prefixed> prefixes = current.prefixed(resourceType);
        boolean applies = exact != null || wildcard != null;
        if (denies(exact, principal, host, operation) || denies(wildcard, principal, host, operation)) {
            return false;
        }
        for (final Prefixed prefixed : prefixes) {
            if (resourceName.startsWith(prefixed.prefix())) {
                applies = true;
                if (denies(prefixed.entries(), principal, host, operation)) {
                    return false;
                }
            }
        }
        if (allows(exact, principal, host, operation) || allows(wildcard, principal, host, operation)) {
            return true;
        }
        for (final Prefixed prefixed : prefixes) {
            if (resourceName.startsWith(prefixed.prefix()) && allows(prefixed.entries(), principal, host, operation)) {
                return true;
            }
        }
        return !applies && allowEveryoneIfNoAclFound;
    }

    @Override
    public boolean authorizeAny(
            final KafkaPrincipal principal,
            final InetAddress host,
            final AclOperation operation,
            final ResourceType resourceType) {
        if (isSuperUser(principal)) {
            return true;
        }
        final Index current = index;
        if (denies(current.literal(resourceType, WILDCARD), principal, host, operation)) {
            return false;
        }
        final Map<String, Entry[]> literals = current.literals(resourceType);
        for (final Map.Entry<String, Entry[]> literal : literals.entrySet()) {
            if (allows(literal.getValue(), principal, host, operation)
                    && !deniedByName(current, resourceType, literal.getKey(), principal, host, operation)) {
                return true;
            }
        }
        final List<Prefixed> prefixes = current.prefixed(resourceType);
        for (final Prefixed prefixed : prefixes) {
            if (allows(prefixed.entries(), principal, host, operation)
                    && !deniedByPrefix(current, resourceType, prefixed.prefix(), principal, host, operation)) {
                return true;
            }
        }
        return literals.isEmpty() && prefixes.isEmpty() && allowEveryoneIfNoAclFound;
    }

    /** Whether a DENY covers every resource named {@code name}: a literal one of the name or a prefix of it. */
    private static boolean deniedByName(
            final Index current,
            final ResourceType type,
            final String name,
            final KafkaPrincipal principal,
            final InetAddress host,
            final AclOperation operation) {
        return denies(current.literal(type, name), principal, host, operation)
                || deniedByPrefix(current, type, name, principal, host, operation);
    }

    /** Whether a prefixed DENY covers every name starting with {@code prefix}. */
    private static boolean deniedByPrefix(
            final Index current,
            final ResourceType type,
            final String prefix,
            final KafkaPrincipal principal,
            final InetAddress host,
            final AclOperation operation) {
        for (final Prefixed denying : current.prefixed(type)) {
            if (prefix.startsWith(denying.prefix()) && denies(denying.entries(), principal, host, operation)) {
                return true;
            }
        }
        return false;
    }

    private boolean isSuperUser(final KafkaPrincipal principal) {
        if (superUsers.isEmpty()) {
            return false;
        }
        for (final KafkaPrincipal superUser : superUsers) {
            if (samePrincipal(superUser, principal)) {
                return true;
            }
        }
        return false;
    }

    private static boolean denies(
            final Entry[] entries, final KafkaPrincipal principal, final InetAddress host, final AclOperation op) {
        if (entries == null) {
            return false;
        }
        for (final Entry entry : entries) {
            if (entry.permission() == AclPermissionType.DENY
                    && (entry.operation() == AclOperation.ALL || entry.operation() == op)
                    && entry.appliesTo(principal, host)) {
                return true;
            }
        }
        return false;
    }

    private static boolean allows(
            final Entry[] entries, final KafkaPrincipal principal, final InetAddress host, final AclOperation op) {
        if (entries == null) {
            return false;
        }
        for (final Entry entry : entries) {
            if (entry.permission() == AclPermissionType.ALLOW
                    && implies(entry.operation(), op)
                    && entry.appliesTo(principal, host)) {
                return true;
            }
        }
        return false;
    }

    /** Kafka's implied operations: what an ALLOW of {@code granted} also allows. */
    private static boolean implies(final AclOperation granted, final AclOperation requested) {
        if (granted == AclOperation.ALL || granted == requested) {
            return true;
        }
        return switch (requested) {
            case DESCRIBE ->
                granted == AclOperation.READ
                        || granted == AclOperation.WRITE
                        || granted == AclOperation.DELETE
                        || granted == AclOperation.ALTER;
            case DESCRIBE_CONFIGS -> granted == AclOperation.ALTER_CONFIGS;
            default -> false;
        };
    }

    private static boolean samePrincipal(final KafkaPrincipal a, final KafkaPrincipal b) {
        return a.getPrincipalType().equals(b.getPrincipalType()) && a.getName().equals(b.getName());
    }

    /**
     * Creates bindings as CreateAcls does: each is validated on its own and answered with its own error; the valid ones
     * are stored together.
     */
    public List<ApiError> create(final List<AclBinding> bindings) {
        final List<ApiError> results = new ArrayList<>(Collections.nCopies(bindings.size(), ApiError.NONE));
        final List<AclBinding> valid = new ArrayList<>();
        final List<Integer> validAt = new ArrayList<>();
        for (int i = 0; i < bindings.size(); i++) {
            try {
                AclStore.validate(bindings.get(i));
                valid.add(bindings.get(i));
                validAt.add(i);
            } catch (final InvalidRequestException e) {
                results.set(i, ApiError.fromThrowable(e));
            }
        }
        if (valid.isEmpty()) {
            return results;
        }
        try {
            store.add(valid);
        } catch (final UncheckedIOException e) {
            final ApiError failed = ApiError.fromThrowable(e);
            validAt.forEach(i -> results.set(i, failed));
            return results;
        }
        changed();
        return results;
    }

    /**
     * Deletes what each filter matches, as DeleteAcls does, and returns the deleted bindings per filter.
     *
     * @throws UncheckedIOException if the file cannot be written (nothing is then deleted)
     */
    public List<List<AclBinding>> delete(final List<AclBindingFilter> filters) {
        final List<List<AclBinding>> deleted = store.remove(filters);
        if (deleted.stream().anyMatch(list -> !list.isEmpty())) {
            changed();
        }
        return deleted;
    }

    /** The bindings {@code filter} matches, as DescribeAcls answers. */
    public List<AclBinding> describe(final AclBindingFilter filter) {
        return store.matching(filter);
    }

    /**
     * Runs {@code listener} after every change of the ACLs, on the thread that made it: grants given before (RDMA access
     * to a partition's memory) are checked again there.
     */
    public void onChange(final Runnable listener) {
        changeListeners.add(listener);
    }

    private void changed() {
        index = Index.of(store.bindings());
        changeListeners.forEach(Runnable::run);
    }

    /** One access control entry, its principal parsed once. */
    private record Entry(KafkaPrincipal principal, String host, AclOperation operation, AclPermissionType permission) {
        static Entry of(final AccessControlEntry entry) {
            return new Entry(
                    parsePrincipal(entry.principal()), entry.host(), entry.operation(), entry.permissionType());
        }

        boolean appliesTo(final KafkaPrincipal requester, final InetAddress from) {
            final boolean principalMatches = (principal.getPrincipalType().equals(KafkaPrincipal.USER_TYPE)
                            && principal.getName().equals(WILDCARD))
                    || samePrincipal(principal, requester);
            return principalMatches && (host.equals(WILDCARD) || (from != null && host.equals(from.getHostAddress())));
        }
    }

    private record Prefixed(String prefix, Entry[] entries) {}

    /** The bindings by resource type and pattern, immutable. */
    private record Index(Map<ResourceType, Map<String, Entry[]>> literals, Map<ResourceType, List<Prefixed>> prefixes) {
        static Index of(final List<AclBinding> bindings) {
            final Map<ResourceType, Map<String, List<Entry>>> literal = new EnumMap<>(ResourceType.class);
            final Map<ResourceType, Map<String, List<Entry>>> prefixed = new EnumMap<>(ResourceType.class);
            for (final AclBinding binding : bindings) {
                final ResourcePattern pattern = binding.pattern();
                final Map<ResourceType, Map<String, List<Entry>>> byType =
                        pattern.patternType() == PatternType.PREFIXED ? prefixed : literal;
                byType.computeIfAbsent(pattern.resourceType(), t -> new LinkedHashMap<>())
                        .computeIfAbsent(pattern.name(), n -> new ArrayList<>())
                        .add(Entry.of(binding.entry()));
            }
            final Map<ResourceType, Map<String, Entry[]>> literals = new EnumMap<>(ResourceType.class);
            literal.forEach((type, byName) -> {
                final Map<String, Entry[]> entries = new HashMap<>();
                byName.forEach((name, list) -> entries.put(name, list.toArray(Entry[]::new)));
                literals.put(type, Map.copyOf(entries));
            });
            final Map<ResourceType, List<Prefixed>> prefixes = new EnumMap<>(ResourceType.class);
            prefixed.forEach((type, byName) -> {
                final List<Prefixed> list = new ArrayList<>();
                byName.forEach((name, entries) -> list.add(new Prefixed(name, entries.toArray(Entry[]::new))));
                prefixes.put(type, List.copyOf(list));
            });
            return new Index(literals, prefixes);
        }

        Entry[] literal(final ResourceType type, final String name) {
            final Map<String, Entry[]> byName = literals.get(type);
            return byName == null ? null : byName.get(name);
        }

        Map<String, Entry[]> literals(final ResourceType type) {
            return literals.getOrDefault(type, Map.of());
        }

        List<Prefixed> prefixed(final ResourceType type) {
            return prefixes.getOrDefault(type, List.of());
        }
    }
}
