package io.isthmus.broker.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Kafka's ACL semantics, one rule per test, on bindings written the way Kafka's tools write them. */
class AclAuthorizerTest {
    private static final KafkaPrincipal ALICE = new KafkaPrincipal("User", "alice");
    private static final KafkaPrincipal BOB = new KafkaPrincipal("User", "bob");
    private static final InetAddress HOST_A = address(10, 0, 0, 1);
    private static final InetAddress HOST_B = address(10, 0, 0, 2);

    @TempDir
    Path dir;

    private static InetAddress address(final int a, final int b, final int c, final int d) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
        } catch (final java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private AclAuthorizer authorizer(final Set<KafkaPrincipal> superUsers, final boolean allowEveryone) {
        return new AclAuthorizer(AclStore.open(dir), superUsers, allowEveryone);
    }

    private AclAuthorizer authorizer() {
        return authorizer(Set.of(), false);
    }

    private static AclBinding binding(
            final ResourceType type,
            final String name,
            final PatternType pattern,
            final String principal,
            final String host,
            final AclOperation operation,
            final AclPermissionType permission) {
        return new AclBinding(
                new ResourcePattern(type, name, pattern),
                new AccessControlEntry(principal, host, operation, permission));
    }

    private static AclBinding allowTopic(final String topic, final String principal, final AclOperation operation) {
        return binding(
                ResourceType.TOPIC, topic, PatternType.LITERAL, principal, "*", operation, AclPermissionType.ALLOW);
    }

    private static void create(final AclAuthorizer authorizer, final AclBinding... bindings) {
        assertThat(authorizer.create(List.of(bindings))).allMatch(result -> result.error() == Errors.NONE);
    }

    private static boolean may(
            final AclAuthorizer authorizer,
            final KafkaPrincipal who,
            final AclOperation operation,
            final ResourceType type,
            final String name) {
        return authorizer.authorize(who, HOST_A, operation, type, name);
    }

    @Test
    void noBindingMeansDeniedUnlessEveryoneIsAllowedWhereNoAclIsFound() {
        assertThat(may(authorizer(), ALICE, AclOperation.READ, ResourceType.TOPIC, "orders"))
                .isFalse();
        assertThat(may(authorizer(Set.of(), true), ALICE, AclOperation.READ, ResourceType.TOPIC, "orders"))
                .isTrue();
    }

    @Test
    void allowEveryoneIfNoAclFoundStopsAtTheFirstBindingOfTheResource() {
        final AclAuthorizer authorizer = authorizer(Set.of(), true);
        create(authorizer, allowTopic("orders", "User:alice", AclOperation.READ));

        assertThat(may(authorizer, BOB, AclOperation.READ, ResourceType.TOPIC, "orders"))
                .isFalse();
        assertThat(may(authorizer, BOB, AclOperation.READ, ResourceType.TOPIC, "payments"))
                .isTrue();
    }

    @Test
    void aLiteralAllowGrantsItsOperationOnThatResourceToThatPrincipalOnly() {
        final AclAuthorizer authorizer = authorizer();
        create(authorizer, allowTopic("orders", "User:alice", AclOperation.READ));

        assertThat(may(authorizer, ALICE, AclOperation.READ, ResourceType.TOPIC, "orders"))
                .isTrue();
        assertThat(may(authorizer, ALICE, AclOperation.WRITE, ResourceType.TOPIC, "orders"))
                .isFalse();
        assertThat(may(authorizer, ALICE, AclOperation.READ, ResourceType.TOPIC, "orders2"))
                .isFalse();
        assertThat(may(authorizer, ALICE, AclOperation.READ, ResourceType.GROUP, "orders"))
                .isFalse();
        assertThat(may(authorizer, BOB, AclOperation.READ, ResourceType.TOPIC, "orders"))
                .isFalse();
    }

    @Test
    void readWriteDeleteAndAlterImplyDescribeAndAlterConfigsImpliesDescribeConfigs() {
        final AclAuthorizer authorizer = authorizer();
        for (final AclOperation implying :
                List.of(AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE, AclOperation.ALTER)) {
            create(authorizer, allowTopic("t-" + implying, "User:alice", implying));
            assertThat(may(authorizer, ALICE, AclOperation.DESCRIBE, ResourceType.TOPIC, "t-" + implying))
                    .as(implying + " implies DESCRIBE")
                    .isTrue();
        }
        create(authorizer, allowTopic("configs", "User:alice", AclOperation.ALTER_CONFIGS));
        assertThat(may(authorizer, ALICE, AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, "configs"))
                .isTrue();
        create(authorizer, allowTopic("described", "User:alice", AclOperation.DESCRIBE));
        assertThat(may(authorizer, ALICE, AclOperation.READ, ResourceType.TOPIC, "described"))
                .as("nothing implies upwards")
                .isFalse();
    }

    @Test
    void allGrantsEveryOperation() {
        final AclAuthorizer authorizer = authorizer();
        create(authorizer, allowTopic("orders", "User:alice", AclOperation.ALL));
        for (final AclOperation operation : List.of(
                AclOperation.READ,
                AclOperation.WRITE,
                AclOperation.CREATE,
                AclOperation.DELETE,
                AclOperation.ALTER_CONFIGS)) {
            assertThat(may(authorizer, ALICE, operation, ResourceType.TOPIC, "orders"))
                    .as(operation.toString())
                    .isTrue();
        }
    }

    @Test
    void theWildcardResourceAndTheWildcardPrincipalMatchEveryone() {
        final AclAuthorizer authorizer = authorizer();
        create(authorizer, allowTopic("*", "User:alice", AclOperation.READ));
        create(authorizer, allowTopic("public", "User:*", AclOperation.READ));

        assertThat(may(authorizer, ALICE, AclOperation.READ, ResourceType.TOPIC, "anything"))
                .isTrue();
        assertThat(may(authorizer, BOB, AclOperation.READ, ResourceType.TOPIC, "public"))
                .isTrue();
        assertThat(may(authorizer, BOB, AclOperation.READ, ResourceType.TOPIC, "anything"))
                .isFalse();
    }

    @Test
    void aPrefixedBindingMatchesEveryNameStartingWithIt() {
        final AclAuthorizer authorizer = authorizer();
        create(
                authorizer,
                binding(
                        ResourceType.TOPIC,
                        "sales-",
                        PatternType.PREFIXED,
                        "User:alice",
                        "*",
                        AclOperation.WRITE,
                        AclPermissionType.ALLOW));

        assertThat(may(authorizer, ALICE, AclOperation.WRITE, ResourceType.TOPIC, "sales-eu"))
                .isTrue();
        assertThat(may(authorizer, ALICE, AclOperation.WRITE, ResourceType.TOPIC, "sales-"))
                .isTrue();
        assertThat(may(authorizer, ALICE, AclOperation.WRITE, ResourceType.TOPIC, "sales"))
                .isFalse();
        assertThat(may(authorizer, ALICE, AclOperation.WRITE, ResourceType.TOPIC, "marketing-sales-eu"))
                .isFalse();
    }

    @Test
    void aDenyWinsOverEveryAllowButOnlyForItsOwnOperation() {
        final AclAuthorizer authorizer = authorizer();
        create(
                authorizer,
                allowTopic("*", "User:*", AclOperation.ALL),
                binding(
                        ResourceType.TOPIC,
                        "secret",
                        PatternType.PREFIXED,
                        "User:bob",
                        "*",
                        AclOperation.READ,
                        AclPermissionType.DENY));

        assertThat(may(authorizer, BOB, AclOperation.READ, ResourceType.TOPIC, "secret-plans"))
                .isFalse();
        assertThat(may(authorizer, BOB, AclOperation.DESCRIBE, ResourceType.TOPIC, "secret-plans"))
                .as("a DENY of READ does not deny what READ would imply")
                .isTrue();
        assertThat(may(authorizer, ALICE, AclOperation.READ, ResourceType.TOPIC, "secret-plans"))
                .isTrue();
    }

    @Test
    void aBindingForOneHostDoesNotApplyFromAnother() {
        final AclAuthorizer authorizer = authorizer();
        create(
                authorizer,
                binding(
                        ResourceType.TOPIC,
                        "orders",
                        PatternType.LITERAL,
                        "User:alice",
                        HOST_A.getHostAddress(),
                        AclOperation.READ,
                        AclPermissionType.ALLOW));

        assertThat(authorizer.authorize(ALICE, HOST_A, AclOperation.READ, ResourceType.TOPIC, "orders"))
                .isTrue();
        assertThat(authorizer.authorize(ALICE, HOST_B, AclOperation.READ, ResourceType.TOPIC, "orders"))
                .isFalse();
        assertThat(authorizer.authorize(ALICE, null, AclOperation.READ, ResourceType.TOPIC, "orders"))
                .isFalse();
    }

    @Test
    void superUsersMayDoEverythingWhateverTheBindingsSay() {
        final AclAuthorizer authorizer = authorizer(AclAuthorizer.parseSuperUsers("User:admin; User:CN=ops"), false);
        create(
                authorizer,
                binding(
                        ResourceType.TOPIC,
                        "*",
                        PatternType.LITERAL,
                        "User:*",
                        "*",
                        AclOperation.ALL,
                        AclPermissionType.DENY));

        assertThat(may(authorizer, new KafkaPrincipal("User", "admin"), AclOperation.WRITE, ResourceType.TOPIC, "x"))
                .isTrue();
        assertThat(may(authorizer, new KafkaPrincipal("User", "CN=ops"), AclOperation.ALTER, ResourceType.CLUSTER, "c"))
                .isTrue();
        assertThat(may(authorizer, ALICE, AclOperation.WRITE, ResourceType.TOPIC, "x"))
                .isFalse();
    }

    @Test
    void someTopicIsWritableUnlessADenyCoversTheAllowedOnes() {
        final AclAuthorizer authorizer = authorizer();
        assertThat(authorizer.authorizeAny(ALICE, HOST_A, AclOperation.WRITE, ResourceType.TOPIC))
                .isFalse();
        create(
                authorizer,
                binding(
                        ResourceType.TOPIC,
                        "logs-",
                        PatternType.PREFIXED,
                        "User:alice",
                        "*",
                        AclOperation.WRITE,
                        AclPermissionType.ALLOW));
        assertThat(authorizer.authorizeAny(ALICE, HOST_A, AclOperation.WRITE, ResourceType.TOPIC))
                .isTrue();
        assertThat(authorizer.authorizeAny(BOB, HOST_A, AclOperation.WRITE, ResourceType.TOPIC))
                .isFalse();
        create(
                authorizer,
                binding(
                        ResourceType.TOPIC,
                        "logs",
                        PatternType.PREFIXED,
                        "User:alice",
                        "*",
                        AclOperation.WRITE,
                        AclPermissionType.DENY));
        assertThat(authorizer.authorizeAny(ALICE, HOST_A, AclOperation.WRITE, ResourceType.TOPIC))
                .as("the allowed prefix lies inside a denied one")
                .isFalse();
    }

    @Test
    void invalidBindingsAreRefusedOneByOneAndTheValidOnesStored() {
        final AclAuthorizer authorizer = authorizer();
        final List<ApiError> results = authorizer.create(List.of(
                allowTopic("orders", "alice", AclOperation.READ),
                allowTopic("orders", "User:alice", AclOperation.READ),
                binding(
                        ResourceType.TOPIC,
                        "",
                        PatternType.LITERAL,
                        "User:alice",
                        "*",
                        AclOperation.READ,
                        AclPermissionType.ALLOW),
                binding(
                        ResourceType.TOPIC,
                        "orders",
                        PatternType.LITERAL,
                        "User:alice",
                        "*",
                        AclOperation.UNKNOWN,
                        AclPermissionType.ALLOW)));

        assertThat(results)
                .extracting(ApiError::error)
                .containsExactly(Errors.INVALID_REQUEST, Errors.NONE, Errors.INVALID_REQUEST, Errors.INVALID_REQUEST);
        assertThat(results.getFirst().message()).contains("Type:name");
        assertThat(authorizer.describe(AclBindingFilter.ANY)).hasSize(1);
        assertThat(may(authorizer, ALICE, AclOperation.READ, ResourceType.TOPIC, "orders"))
                .isTrue();
    }

    @Test
    void deletingByFilterTakesAccessAwayAndTellsTheListeners() {
        final AclAuthorizer authorizer = authorizer();
        final AtomicInteger changes = new AtomicInteger();
        authorizer.onChange(changes::incrementAndGet);
        create(
                authorizer,
                allowTopic("orders", "User:alice", AclOperation.READ),
                allowTopic("orders", "User:bob", AclOperation.READ),
                allowTopic("payments", "User:alice", AclOperation.READ));

        final List<List<AclBinding>> deleted = authorizer.delete(List.of(
                new AclBindingFilter(
                        new ResourcePatternFilter(ResourceType.TOPIC, "orders", PatternType.LITERAL),
                        new AccessControlEntryFilter("User:alice", null, AclOperation.ANY, AclPermissionType.ANY)),
                new AclBindingFilter(
                        ResourcePatternFilter.ANY,
                        new AccessControlEntryFilter("User:nobody", null, AclOperation.ANY, AclPermissionType.ANY))));

        assertThat(deleted.get(0)).containsExactly(allowTopic("orders", "User:alice", AclOperation.READ));
        assertThat(deleted.get(1)).isEmpty();
        assertThat(changes).hasValue(2);
        assertThat(may(authorizer, ALICE, AclOperation.READ, ResourceType.TOPIC, "orders"))
                .isFalse();
        assertThat(may(authorizer, BOB, AclOperation.READ, ResourceType.TOPIC, "orders"))
                .isTrue();
        assertThat(may(authorizer, ALICE, AclOperation.READ, ResourceType.TOPIC, "payments"))
                .isTrue();
    }

    @Test
    void aMatchFilterFindsTheLiteralWildcardAndPrefixedBindingsThatApplyToAName() {
        final AclAuthorizer authorizer = authorizer();
        final AclBinding prefixed = binding(
                ResourceType.TOPIC,
                "ord",
                PatternType.PREFIXED,
                "User:alice",
                "*",
                AclOperation.READ,
                AclPermissionType.ALLOW);
        create(
                authorizer,
                allowTopic("orders", "User:alice", AclOperation.READ),
                allowTopic("*", "User:bob", AclOperation.READ),
                prefixed,
                allowTopic("payments", "User:alice", AclOperation.READ));

        assertThat(authorizer.describe(new AclBindingFilter(
                        new ResourcePatternFilter(ResourceType.TOPIC, "orders", PatternType.MATCH),
                        AccessControlEntryFilter.ANY)))
                .hasSize(3)
                .contains(prefixed);
    }

    @Test
    void theBindingsSurviveARestartAndAnUnreadableFileStopsTheStart() throws Exception {
        final AclAuthorizer first = authorizer();
        create(
                first,
                allowTopic("orders with spaces", "User:CN=alice, O=example", AclOperation.READ),
                allowTopic("ü\n\u0000 line;two " + "x".repeat(5000), "User:ev:il\nname\u0000ü", AclOperation.WRITE),
                binding(
                        ResourceType.TRANSACTIONAL_ID,
                        "tx",
                        PatternType.LITERAL,
                        "Group:team",
                        "::1",
                        AclOperation.DESCRIBE,
                        AclPermissionType.ALLOW),
                binding(
                        ResourceType.GROUP,
                        "g-",
                        PatternType.PREFIXED,
                        "User:alice",
                        HOST_A.getHostAddress(),
                        AclOperation.READ,
                        AclPermissionType.DENY));
        final List<AclBinding> before = new ArrayList<>(first.describe(AclBindingFilter.ANY));

        assertThat(authorizer().describe(AclBindingFilter.ANY)).containsExactlyElementsOf(before);

        java.nio.file.Files.writeString(dir.resolve(AclStore.FILE_NAME), "TOPIC LITERAL broken\n");
        assertThatThrownBy(() -> AclStore.open(dir))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("line 1")
                .hasMessageContaining("does not start");
    }
}
