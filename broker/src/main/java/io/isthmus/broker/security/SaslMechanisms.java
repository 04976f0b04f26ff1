package io.isthmus.broker.security;

import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.security.JaasContext;
import org.apache.kafka.common.security.plain.internals.PlainSaslServer;
import org.apache.kafka.common.security.plain.internals.PlainServerCallbackHandler;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramSaslServer;
import org.apache.kafka.common.security.scram.internals.ScramServerCallbackHandler;
import org.apache.kafka.common.security.token.delegation.internals.DelegationTokenCache;

/**
 * The SASL mechanisms one listener offers ({@code sasl.enabled.mechanisms}), and a server for each exchange, built from
 * kafka-clients' own mechanism implementations: SCRAM-SHA-256 and SCRAM-SHA-512 over the broker's {@link
 * ScramCredentialStore}, PLAIN over the {@code user_<name>="<password>"} options of the listener's JAAS entry
 * ({@code listener.name.<listener>.plain.sasl.jaas.config}), as Kafka's broker configures them.
 */
public final class SaslMechanisms {
    public static final String PLAIN = "PLAIN";

    private final List<String> enabled;
    private final Map<String, ScramServerCallbackHandler> scramCallbacks = new HashMap<>();
    private final PlainServerCallbackHandler plainCallbacks;

    /**
     * @param listenerName the listener, for its JAAS entry
     * @param enabled the mechanisms to offer
     * @param jaasConfigs the broker's settings as strings (the {@code listener.name.*.sasl.jaas.config} ones are read)
     * @throws ConfigException for a mechanism isthmus does not serve, or PLAIN without a JAAS entry
     */
    public SaslMechanisms(
            final String listenerName,
            final List<String> enabled,
            final ScramCredentialStore credentials,
            final Map<String, String> jaasConfigs) {
        for (final String mechanism : enabled) {
            if (!ScramMechanism.isScram(mechanism) && !PLAIN.equals(mechanism)) {
                throw new ConfigException(
                        "sasl.enabled.mechanisms",
                        enabled.toString(),
                        "mechanism " + mechanism + " is not served: PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are");
            }
        }
        if (enabled.isEmpty()) {
            throw new ConfigException(
                    "sasl.enabled.mechanisms", "", "a SASL listener needs at least one mechanism: " + listenerName);
        }
        this.enabled = List.copyOf(enabled);
        final DelegationTokenCache noTokens = new DelegationTokenCache(ScramMechanism.mechanismNames());
        for (final String mechanism : enabled) {
            if (ScramMechanism.isScram(mechanism)) {
                final ScramServerCallbackHandler callbacks = new ScramServerCallbackHandler(
                        credentials.cache().cache(mechanism, ScramCredential.class), noTokens);
                callbacks.configure(Map.of(), mechanism, List.of());
                scramCallbacks.put(mechanism, callbacks);
            }
        }
        this.plainCallbacks = enabled.contains(PLAIN) ? plainCallbacks(listenerName, jaasConfigs) : null;
    }

    private static PlainServerCallbackHandler plainCallbacks(
            final String listenerName, final Map<String, String> settings) {
        final ListenerName listener = ListenerName.normalised(listenerName);
        final String key = listener.saslMechanismConfigPrefix(PLAIN) + "sasl.jaas.config";
        final String jaas = settings.get(key);
        if (jaas == null) {
            throw new ConfigException(
                    key,
                    null,
                    "PLAIN is enabled on listener " + listenerName
                            + ": its users come from this JAAS entry (org.apache.kafka.common.security.plain.PlainLoginModule"
                            + " required user_<name>=\"<password>\";)");
        }
        // Kafka's loader reads the entry with the listener's prefix already taken off, as its channel builders do.
        final Map<String, Object> configs = new HashMap<>();
        configs.put("plain.sasl.jaas.config", new Password(jaas));
        final JaasContext context = JaasContext.loadServerContext(listener, PLAIN, configs);
        final PlainServerCallbackHandler callbacks = new PlainServerCallbackHandler();
        callbacks.configure(configs, PLAIN, context.configurationEntries());
        return callbacks;
    }

    public List<String> enabled() {
        return enabled;
    }

    /** A server for one exchange of {@code mechanism}, which must be {@link #enabled() enabled}. */
    SaslServer newServer(final String mechanism) {
        if (PLAIN.equals(mechanism)) {
            return new PlainSaslServer(plainCallbacks);
        }
        final ScramMechanism scram = ScramMechanism.forMechanismName(mechanism);
        try {
            return new ScramSaslServer(scram, Map.of(), scramCallbacks.get(mechanism));
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK lacks " + scram.hashAlgorithm(), e);
        }
    }
}
