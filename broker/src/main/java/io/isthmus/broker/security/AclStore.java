package io.isthmus.broker.security;

import io.isthmus.broker.storage.CrashSafeFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The broker's ACLs, as Kafka models them ({@link AclBinding}: a resource pattern and an access control entry), kept
 * in {@value #FILE_NAME} in the metadata directory, one binding per line, replaced crash-safely on every change:
 *
 * <pre>
 *   resourceType SP patternType SP base64(resourceName) SP base64(principal) SP base64(host) SP operation SP permission
 * </pre>
 *
 * <p>Unlike the other metadata files, an unreadable ACL file stops the broker from starting: starting without the
 * ACLs it held would open (with {@code allow.everyone.if.no.acl.found}) or close resources nobody chose to.
 */
public final class AclStore {
    static final String FILE_NAME = "acls";

    private final Path file;
    /** In creation order, without duplicates: Kafka's CreateAcls of an existing binding succeeds and changes nothing. */
    private final Set<AclBinding> bindings = new LinkedHashSet<>();

    private AclStore(final Path file) {
        this.file = file;
    }

    /**
     * @throws IllegalStateException if the file exists and cannot be read, naming it and the line
     */
    public static AclStore open(final Path directory) {
        final AclStore store = new AclStore(directory.resolve(FILE_NAME));
        try {
            if (CrashSafeFile.prepareToRead(store.file)) {
                store.load();
            }
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot read ACL file=" + store.file, e);
        }
        return store;
    }

    private void load() throws IOException {
        final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        final Base64.Decoder base64 = Base64.getDecoder();
        for (int i = 0; i < lines.size(); i++) {
            final String line = lines.get(i);
            if (line.isBlank()) {
                continue;
            }
            try {
                final String[] fields = line.split(" ");
                if (fields.length != 7) {
                    throw new IllegalArgumentException("expected 7 fields, got " + fields.length);
                }
                final AclBinding binding = new AclBinding(
                        new ResourcePattern(
                                ResourceType.valueOf(fields[0]),
                                decode(base64, fields[2]),
                                PatternType.valueOf(fields[1])),
                        new AccessControlEntry(
                                decode(base64, fields[3]),
                                decode(base64, fields[4]),
                                AclOperation.valueOf(fields[5]),
                                AclPermissionType.valueOf(fields[6])));
                validate(binding);
                bindings.add(binding);
            } catch (final RuntimeException unreadable) {
                throw new IllegalStateException(
                        "the ACL file=" + file + " is unreadable at line " + (i + 1) + " ("
                                + unreadable.getMessage()
                                + "); the broker does not start without the ACLs it held: mend"
                                + " or remove the file (removing it removes every ACL)",
                        unreadable);
            }
        }
    }

    private static String decode(final Base64.Decoder base64, final String field) {
        return new String(base64.decode(field), StandardCharsets.UTF_8);
    }

    /**
     * Checks a binding as Kafka's controller does before it stores one.
     *
     * @throws InvalidRequestException saying what is wrong
     */
    public static void validate(final AclBinding binding) {
        final ResourcePattern pattern = binding.pattern();
        final AccessControlEntry entry = binding.entry();
        if (pattern.resourceType() == ResourceType.ANY || pattern.resourceType() == ResourceType.UNKNOWN) {
            throw new InvalidRequestException("invalid resourceType " + pattern.resourceType());
        }
        if (pattern.patternType() != PatternType.LITERAL && pattern.patternType() != PatternType.PREFIXED) {
            throw new InvalidRequestException(
                    "invalid patternType " + pattern.patternType() + ": only LITERAL and PREFIXED are stored");
        }
        if (pattern.name() == null || pattern.name().isEmpty()) {
            throw new InvalidRequestException("a resource name must not be empty");
        }
        if (entry.operation() == AclOperation.ANY || entry.operation() == AclOperation.UNKNOWN) {
            throw new InvalidRequestException("invalid operation " + entry.operation());
        }
        if (entry.permissionType() == AclPermissionType.ANY || entry.permissionType() == AclPermissionType.UNKNOWN) {
            throw new InvalidRequestException("invalid permissionType " + entry.permissionType());
        }
        if (entry.host() == null || entry.host().isEmpty()) {
            throw new InvalidRequestException("a host must be given (* for every host)");
        }
        try {
            AclAuthorizer.parsePrincipal(entry.principal());
        } catch (final IllegalArgumentException e) {
            throw new InvalidRequestException("invalid principal: " + e.getMessage());
        }
    }

    /** Every binding, in creation order. */
    public synchronized List<AclBinding> bindings() {
        return List.copyOf(bindings);
    }

    /**
     * Adds bindings that {@link #validate} accepted, durably; those already present are left as they are.
     *
     * @throws UncheckedIOException if the file cannot be written (nothing is then added)
     */
    public synchronized void add(final List<AclBinding> added) {
        final List<AclBinding> fresh = new ArrayList<>();
        for (final AclBinding binding : added) {
            if (bindings.add(binding)) {
                fresh.add(binding);
            }
        }
        if (fresh.isEmpty()) {
            return;
        }
        try {
            persist();
        } catch (final UncheckedIOException e) {
            fresh.forEach(bindings::remove);
            throw e;
        }
    }

    /**
     * Removes the bindings each filter matches, durably, and returns them per filter (a binding two filters match is
     * listed under both, as Kafka lists it).
     *
     * @throws UncheckedIOException if the file cannot be written (nothing is then removed)
     */
    public synchronized List<List<AclBinding>> remove(final List<AclBindingFilter> filters) {
        final List<List<AclBinding>> matched = new ArrayList<>(filters.size());
        final Set<AclBinding> removed = new LinkedHashSet<>();
        for (final AclBindingFilter filter : filters) {
            final List<AclBinding> ofFilter = matching(filter);
            matched.add(ofFilter);
            removed.addAll(ofFilter);
        }
        if (removed.isEmpty()) {
            return matched;
        }
        final List<AclBinding> before = List.copyOf(bindings);
        bindings.removeAll(removed);
        try {
            persist();
        } catch (final UncheckedIOException e) {
            bindings.clear();
            bindings.addAll(before);
            throw e;
        }
        return matched;
    }

    /** The bindings {@code filter} matches. */
    public synchronized List<AclBinding> matching(final AclBindingFilter filter) {
        final List<AclBinding> matched = new ArrayList<>();
        for (final AclBinding binding : bindings) {
            if (filter.matches(binding)) {
                matched.add(binding);
            }
        }
        return matched;
    }

    private void persist() {
        final StringBuilder text = new StringBuilder();
        final Base64.Encoder base64 = Base64.getEncoder();
        for (final AclBinding binding : bindings) {
            text.append(binding.pattern().resourceType().name())
                    .append(' ')
                    .append(binding.pattern().patternType().name())
                    .append(' ')
                    .append(base64.encodeToString(binding.pattern().name().getBytes(StandardCharsets.UTF_8)))
                    .append(' ')
                    .append(base64.encodeToString(binding.entry().principal().getBytes(StandardCharsets.UTF_8)))
                    .append(' ')
                    .append(base64.encodeToString(binding.entry().host().getBytes(StandardCharsets.UTF_8)))
                    .append(' ')
                    .append(binding.entry().operation().name())
                    .append(' ')
                    .append(binding.entry().permissionType().name())
                    .append('\n');
        }
        try {
            CrashSafeFile.replace(file, text);
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot write ACL file=" + file, e);
        }
    }
}
