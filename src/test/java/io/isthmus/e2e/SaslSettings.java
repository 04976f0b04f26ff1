package io.isthmus.e2e;

import java.util.HashMap;
import java.util.Map;

/**
 * SASL settings as Kafka users write them: a broker listener's PLAIN users, a client's PLAIN or SCRAM login entry, a
 * SASL_PLAINTEXT client's settings.
 */
public final class SaslSettings {
    private static final String PLAIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule";
    private static final String SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule";

    private SaslSettings() {}

    /** A listener's {@code plain.sasl.jaas.config}: user and password pairs. */
    public static String plainUsers(final String... usersAndPasswords) {
        final StringBuilder jaas = new StringBuilder(PLAIN_MODULE).append(" required");
        for (int i = 0; i + 1 < usersAndPasswords.length; i += 2) {
            jaas.append(" user_")
                    .append(usersAndPasswords[i])
                    .append("=\"")
                    .append(usersAndPasswords[i + 1])
                    .append('"');
        }
        return jaas.append(';').toString();
    }

    /** A client's {@code sasl.jaas.config} for PLAIN. */
    public static String plainLogin(final String user, final String password) {
        return login(PLAIN_MODULE, user, password);
    }

    /** A client's {@code sasl.jaas.config} for SCRAM. */
    public static String scramLogin(final String user, final String password) {
        return login(SCRAM_MODULE, user, password);
    }

    private static String login(final String module, final String user, final String password) {
        return module + " required username=\"" + user + "\" password=\"" + password + "\";";
    }

    /** A client of a SASL_PLAINTEXT listener, as {@code user} with {@code mechanism} (PLAIN or SCRAM-SHA-*). */
    public static Map<String, Object> client(
            final String bootstrap, final String mechanism, final String user, final String password) {
        final Map<String, Object> settings = new HashMap<>();
        settings.put("bootstrap.servers", bootstrap);
        settings.put("security.protocol", "SASL_PLAINTEXT");
        settings.put("sasl.mechanism", mechanism);
        settings.put(
                "sasl.jaas.config",
                mechanism.equals("PLAIN") ? plainLogin(user, password) : scramLogin(user, password));
        return settings;
    }
}
