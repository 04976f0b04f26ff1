package io.isthmus.client.security;

import io.isthmus.client.config.ConfigReader;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A client's security settings under Kafka's names: {@code security.protocol} ({@code PLAINTEXT} or {@code
 * SASL_PLAINTEXT}), {@code sasl.mechanism} ({@code PLAIN}, {@code SCRAM-SHA-256}, {@code SCRAM-SHA-512}) and {@code
 * sasl.jaas.config} (Kafka's {@code PlainLoginModule} or {@code ScramLoginModule} with {@code username} and {@code
 * password}), so a kafka-clients configuration carries over unchanged.
 *
 * <p>TLS ({@code SSL}, {@code SASL_SSL}) is refused with the reason: the consumer reads the socket straight into the
 * buffers the application's record slices point into, which encryption would put a copy in front of, and that path is
 * not built; sending in the clear where TLS was asked for would be worse than refusing.
 *
 * @param mechanism the SASL mechanism, or null for PLAINTEXT
 */
public record SecuritySettings(String mechanism, String username, String password) {
    public static final String SECURITY_PROTOCOL = "security.protocol";
    public static final String SASL_MECHANISM = "sasl.mechanism";
    public static final String SASL_JAAS_CONFIG = "sasl.jaas.config";
    /** The setting names this class reads, for the clients' lists of known keys. */
    public static final Set<String> NAMES = Set.of(SECURITY_PROTOCOL, SASL_MECHANISM, SASL_JAAS_CONFIG);
    /** PLAINTEXT: no authentication, the broker sees the client as {@code User:ANONYMOUS}. */
    public static final SecuritySettings PLAINTEXT = new SecuritySettings(null, null, null);

    private static final Set<String> MECHANISMS = Set.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");
    private static final Set<String> LOGIN_MODULES = Set.of(
            "org.apache.kafka.common.security.plain.PlainLoginModule",
            "org.apache.kafka.common.security.scram.ScramLoginModule");

    /** Whether the client authenticates with SASL. */
    public boolean sasl() {
        return mechanism != null;
    }

    /**
     * Reads the security settings among a client's settings, ignoring the others: for helpers (an admin client, a
     * connector's partition discovery) that connect with the credentials of the consumer or producer beside them.
     */
    public static SecuritySettings of(final Map<String, ?> settings) {
        final Map<String, Object> mine = new HashMap<>();
        for (final String name : NAMES) {
            if (settings.get(name) != null) {
                mine.put(name, settings.get(name));
            }
        }
        return from(new ConfigReader(mine, NAMES, "security"));
    }

    /**
     * Reads the settings.
     *
     * @throws IllegalArgumentException naming the setting: TLS asked for, a mechanism other than PLAIN or SCRAM, a
     *     missing or malformed JAAS entry
     */
    public static SecuritySettings from(final ConfigReader r) {
        final String protocol = r.string(SECURITY_PROTOCOL, "PLAINTEXT").toUpperCase(Locale.ROOT);
        switch (protocol) {
            case "PLAINTEXT" -> {
                return PLAINTEXT;
            }
            case "SASL_PLAINTEXT" -> {
                // Kafka's default mechanism is GSSAPI, which isthmus does not speak: ask for one explicitly.
                final String mechanism = r.string(SASL_MECHANISM, "GSSAPI").toUpperCase(Locale.ROOT);
                if (!MECHANISMS.contains(mechanism)) {
                    throw new IllegalArgumentException("unsupported setting: key=" + SASL_MECHANISM + ", value="
                            + mechanism + ": isthmus clients speak " + new TreeSet<>(MECHANISMS));
                }
                final String jaas = r.string(SASL_JAAS_CONFIG, null);
                if (jaas == null || jaas.isBlank()) {
                    throw new IllegalArgumentException("setting missing: key=" + SASL_JAAS_CONFIG + " (with "
                            + SECURITY_PROTOCOL + "=SASL_PLAINTEXT), e.g. "
                            + LOGIN_MODULES.iterator().next()
                            + " required username=\"alice\" password=\"...\";");
                }
                final Map<String, String> options = parseJaas(jaas);
                final String username = options.get("username");
                final String password = options.get("password");
                if (username == null || password == null) {
                    throw new IllegalArgumentException("setting " + SASL_JAAS_CONFIG
                            + " must give username and password options, got " + options.keySet());
                }
                return new SecuritySettings(mechanism, username, password);
            }
            case "SSL", "SASL_SSL" ->
                throw new IllegalArgumentException("unsupported setting: key=" + SECURITY_PROTOCOL + ", value="
                        + protocol + ": isthmus clients have no TLS (their consumer reads the socket straight into the"
                        + " buffers the application's records point into); use SASL_PLAINTEXT, or kafka-clients"
                        + " where the network needs encryption");
            default ->
                throw new IllegalArgumentException("setting has no such value: key=" + SECURITY_PROTOCOL + ", value="
                        + protocol + ", allowed=PLAINTEXT|SASL_PLAINTEXT");
        }
    }

    /**
     * The options of a one-entry JAAS configuration as Kafka's {@code sasl.jaas.config} holds it: {@code
     * <LoginModule> <flag> key="value" ...;}, values quoted (with backslash escapes) or bare.
     *
     * @throws IllegalArgumentException for another login module, a missing flag or semicolon, an unterminated quote
     */
    static Map<String, String> parseJaas(final String jaas) {
        final String text = jaas.trim();
        int i = 0;
        final int moduleEnd = nextSpace(text, i);
        final String module = text.substring(i, moduleEnd);
        if (!LOGIN_MODULES.contains(module)) {
            throw new IllegalArgumentException(SASL_JAAS_CONFIG + " names login module '" + module
                    + "'; isthmus clients" + " read " + new TreeSet<>(LOGIN_MODULES));
        }
        i = skipSpaces(text, moduleEnd);
        final int flagEnd = nextSpace(text, i);
        final String flag = text.substring(i, flagEnd).replace(";", "").toLowerCase(Locale.ROOT);
        if (!Set.of("required", "requisite", "sufficient", "optional").contains(flag)) {
            throw new IllegalArgumentException(
                    SASL_JAAS_CONFIG + " needs a control flag (required) after the module," + " got '" + flag + "'");
        }
        i = skipSpaces(text, flagEnd);
        final Map<String, String> options = new TreeMap<>();
        while (i < text.length() && text.charAt(i) != ';') {
            final int eq = text.indexOf('=', i);
            if (eq < 0) {
                throw new IllegalArgumentException(
                        SASL_JAAS_CONFIG + ": expected key=value at '" + text.substring(i) + "'");
            }
            final String key = text.substring(i, eq).trim();
            i = eq + 1;
            final StringBuilder value = new StringBuilder();
            if (i < text.length() && text.charAt(i) == '"') {
                i++;
                boolean closed = false;
                while (i < text.length()) {
                    final char c = text.charAt(i++);
                    if (c == '\\' && i < text.length()) {
                        value.append(text.charAt(i++));
                    } else if (c == '"') {
                        closed = true;
                        break;
                    } else {
                        value.append(c);
                    }
                }
                if (!closed) {
                    throw new IllegalArgumentException(SASL_JAAS_CONFIG + ": unterminated quote in option " + key);
                }
            } else {
                while (i < text.length() && !Character.isWhitespace(text.charAt(i)) && text.charAt(i) != ';') {
                    value.append(text.charAt(i++));
                }
            }
            options.put(key, value.toString());
            i = skipSpaces(text, i);
        }
        if (i >= text.length()
                || text.charAt(i) != ';'
                || !text.substring(i + 1).isBlank()) {
            throw new IllegalArgumentException(SASL_JAAS_CONFIG + " must hold one entry ending with ';'");
        }
        return options;
    }

    private static int nextSpace(final String text, final int from) {
        int i = from;
        while (i < text.length() && !Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        return i;
    }

    private static int skipSpaces(final String text, final int from) {
        int i = from;
        while (i < text.length() && Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        return i;
    }

    @Override
    public String toString() {
        // Never the password: settings end up in logs.
        return sasl() ? "SASL_PLAINTEXT(" + mechanism + ", user=" + username + ")" : "PLAINTEXT";
    }
}
