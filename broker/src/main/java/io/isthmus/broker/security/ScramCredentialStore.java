package io.isthmus.broker.security;

import io.isthmus.broker.storage.CrashSafeFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.security.authenticator.CredentialCache;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's SCRAM credentials, per user and mechanism, as Kafka keeps them: a salt, the stored key, the server key
 * and the iteration count, never the password. Managed with AlterUserScramCredentials (which sends a salted password,
 * from which the keys are derived here), read by the SASL/SCRAM servers through kafka-clients' {@link CredentialCache}.
 *
 * <p>Kept in {@value #FILE_NAME} in the metadata directory, one line per credential, replaced crash-safely on every
 * change:
 *
 * <pre>
 *   base64(user) SP mechanism SP base64(salt) SP base64(storedKey) SP base64(serverKey) SP iterations
 * </pre>
 *
 * An unreadable file is set aside and the broker starts with no credentials, logging an error: SASL/SCRAM clients are
 * then refused until credentials are set again, which is safe.
 */
public final class ScramCredentialStore {
    static final String FILE_NAME = "scram-credentials";
    private static final Logger LOG = LoggerFactory.getLogger(ScramCredentialStore.class);

    private final Path file;
    private final CredentialCache cache = new CredentialCache();
    /** user -> mechanism -> credential; the source of truth the cache mirrors. */
    private final Map<String, Map<ScramMechanism, ScramCredential>> credentials = new TreeMap<>();

    private ScramCredentialStore(final Path file) {
        this.file = file;
        for (final ScramMechanism mechanism : ScramMechanism.values()) {
            cache.createCache(mechanism.mechanismName(), ScramCredential.class);
        }
    }

    public static ScramCredentialStore open(final Path directory) {
        final ScramCredentialStore store = new ScramCredentialStore(directory.resolve(FILE_NAME));
        try {
            if (CrashSafeFile.prepareToRead(store.file)) {
                store.load();
            }
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot read SCRAM credentials file=" + store.file, e);
        }
        return store;
    }

    private void load() throws IOException {
        final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        final Map<String, Map<ScramMechanism, ScramCredential>> loaded = new TreeMap<>();
        try {
            final Base64.Decoder base64 = Base64.getDecoder();
            for (final String line : lines) {
                if (line.isBlank()) {
                    continue;
                }
                final String[] fields = line.split(" ");
                if (fields.length != 6) {
                    throw new IllegalArgumentException("expected 6 fields, got " + fields.length);
                }
                final String user = new String(base64.decode(fields[0]), StandardCharsets.UTF_8);
                final ScramMechanism mechanism = ScramMechanism.forMechanismName(fields[1]);
                if (mechanism == null) {
                    throw new IllegalArgumentException("unknown mechanism " + fields[1]);
                }
                loaded.computeIfAbsent(user, u -> new EnumMap<>(ScramMechanism.class))
                        .put(
                                mechanism,
                                new ScramCredential(
                                        base64.decode(fields[2]),
                                        base64.decode(fields[3]),
                                        base64.decode(fields[4]),
                                        Integer.parseInt(fields[5])));
            }
        } catch (final RuntimeException unreadable) {
            final Path aside = CrashSafeFile.setAside(file);
            LOG.error(
                    "SCRAM credentials file={} is unreadable ({}), kept as {}: no SCRAM user can authenticate until"
                            + " credentials are set again",
                    file,
                    unreadable.toString(),
                    aside);
            return;
        }
        loaded.forEach((user, ofUser) -> ofUser.forEach((mechanism, credential) -> put(user, mechanism, credential)));
    }

    /** The caches the SASL/SCRAM servers read. */
    public CredentialCache cache() {
        return cache;
    }

    /**
     * Sets {@code user}'s credential for {@code mechanism} from the salted password a client computed, durably.
     *
     * @throws UncheckedIOException if the file cannot be written (the credential is then not changed)
     */
    public synchronized void upsert(
            final String user,
            final ScramMechanism mechanism,
            final byte[] salt,
            final byte[] saltedPassword,
            final int iterations) {
        final ScramCredential credential;
        try {
            credential = new ScramFormatter(mechanism).generateCredential(salt, saltedPassword, iterations);
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK lacks " + mechanism.hashAlgorithm(), e);
        }
        final ScramCredential previous = credentials
                .computeIfAbsent(user, u -> new EnumMap<>(ScramMechanism.class))
                .put(mechanism, credential);
        try {
            persist();
        } catch (final UncheckedIOException e) {
            restore(user, mechanism, previous);
            throw e;
        }
        cache.cache(mechanism.mechanismName(), ScramCredential.class).put(user, credential);
    }

    /** Deletes {@code user}'s credential for {@code mechanism}; false if there was none. */
    public synchronized boolean delete(final String user, final ScramMechanism mechanism) {
        final Map<ScramMechanism, ScramCredential> ofUser = credentials.get(user);
        final ScramCredential previous = ofUser == null ? null : ofUser.remove(mechanism);
        if (previous == null) {
            return false;
        }
        if (ofUser.isEmpty()) {
            credentials.remove(user);
        }
        try {
            persist();
        } catch (final UncheckedIOException e) {
            restore(user, mechanism, previous);
            throw e;
        }
        cache.cache(mechanism.mechanismName(), ScramCredential.class).remove(user);
        return true;
    }

    /** The mechanisms and iteration counts of {@code user}'s credentials, if it has any. */
    public synchronized Optional<Map<ScramMechanism, Integer>> describe(final String user) {
        final Map<ScramMechanism, ScramCredential> ofUser = credentials.get(user);
        if (ofUser == null) {
            return Optional.empty();
        }
        final Map<ScramMechanism, Integer> iterations = new EnumMap<>(ScramMechanism.class);
        ofUser.forEach((mechanism, credential) -> iterations.put(mechanism, credential.iterations()));
        return Optional.of(iterations);
    }

    /** Every user with a credential. */
    public synchronized List<String> users() {
        return List.copyOf(credentials.keySet());
    }

    private void put(final String user, final ScramMechanism mechanism, final ScramCredential credential) {
        credentials
                .computeIfAbsent(user, u -> new EnumMap<>(ScramMechanism.class))
                .put(mechanism, credential);
        cache.cache(mechanism.mechanismName(), ScramCredential.class).put(user, credential);
    }

    private void restore(final String user, final ScramMechanism mechanism, final ScramCredential previous) {
        if (previous == null) {
            final Map<ScramMechanism, ScramCredential> ofUser = credentials.get(user);
            if (ofUser != null) {
                ofUser.remove(mechanism);
                if (ofUser.isEmpty()) {
                    credentials.remove(user);
                }
            }
        } else {
            credentials
                    .computeIfAbsent(user, u -> new EnumMap<>(ScramMechanism.class))
                    .put(mechanism, previous);
        }
    }

    private void persist() {
        final StringBuilder text = new StringBuilder();
        final Base64.Encoder base64 = Base64.getEncoder();
        credentials.forEach((user, ofUser) -> ofUser.forEach(
                (mechanism, credential) -> text.append(base64.encodeToString(user.getBytes(StandardCharsets.UTF_8)))
                        .append(' ')
                        .append(mechanism.mechanismName())
                        .append(' ')
                        .append(base64.encodeToString(credential.salt()))
                        .append(' ')
                        .append(base64.encodeToString(credential.storedKey()))
                        .append(' ')
                        .append(base64.encodeToString(credential.serverKey()))
                        .append(' ')
                        .append(credential.iterations())
                        .append('\n')));
        try {
            CrashSafeFile.replace(file, text);
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot write SCRAM credentials file=" + file, e);
        }
    }
}
