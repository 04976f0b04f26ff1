package io.isthmus.broker.security;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.common.config.ConfigException;

/**
 * The TLS side of SSL and SASL_SSL listeners, from Kafka's {@code ssl.*} settings, served by the JDK's TLS through
 * Netty's {@code SslHandler}.
 *
 * @param keystoreLocation {@code ssl.keystore.location}: the broker's key and certificate (required)
 * @param keystorePassword {@code ssl.keystore.password}
 * @param keystoreType {@code ssl.keystore.type}: JKS (Kafka's default) or PKCS12
 * @param keyPassword {@code ssl.key.password}: the key's own password, the keystore's when unset
 * @param truststoreLocation {@code ssl.truststore.location}: the CAs client certificates must chain to (optional)
 * @param truststorePassword {@code ssl.truststore.password}
 * @param truststoreType {@code ssl.truststore.type}
 * @param clientAuth {@code ssl.client.auth}: none, requested or required
 * @param enabledProtocols {@code ssl.enabled.protocols}
 */
public record TlsSettings(
        String keystoreLocation,
        String keystorePassword,
        String keystoreType,
        String keyPassword,
        String truststoreLocation,
        String truststorePassword,
        String truststoreType,
        String clientAuth,
        List<String> enabledProtocols) {

    /** A server context; throws naming the setting that is missing or wrong. */
    public SslContext serverContext() {
        if (keystoreLocation == null || keystoreLocation.isBlank()) {
            throw new ConfigException("ssl.keystore.location", null, "an SSL or SASL_SSL listener needs a keystore");
        }
        try {
            final KeyStore keys = load(keystoreLocation, keystoreType, keystorePassword, "ssl.keystore.location");
            final KeyManagerFactory keyManagers =
                    KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            final String password = keyPassword != null ? keyPassword : keystorePassword;
            keyManagers.init(keys, password == null ? null : password.toCharArray());
            final SslContextBuilder builder = SslContextBuilder.forServer(keyManagers)
                    .sslProvider(SslProvider.JDK)
                    .protocols(enabledProtocols)
                    .clientAuth(clientAuthMode());
            if (truststoreLocation != null && !truststoreLocation.isBlank()) {
                final KeyStore trusted =
                        load(truststoreLocation, truststoreType, truststorePassword, "ssl.truststore.location");
                final TrustManagerFactory trustManagers =
                        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                trustManagers.init(trusted);
                builder.trustManager(trustManagers);
            }
            return builder.build();
        } catch (final SSLException | GeneralSecurityException e) {
            throw new ConfigException("ssl.keystore.location", keystoreLocation, "cannot build the TLS context: " + e);
        }
    }

    private ClientAuth clientAuthMode() {
        return switch (clientAuth == null ? "none" : clientAuth.toLowerCase(Locale.ROOT)) {
            case "none" -> ClientAuth.NONE;
            case "requested" -> ClientAuth.OPTIONAL;
            case "required" -> ClientAuth.REQUIRE;
            default -> throw new ConfigException("ssl.client.auth", clientAuth, "expected none, requested or required");
        };
    }

    private static KeyStore load(final String location, final String type, final String password, final String key)
            throws GeneralSecurityException {
        final KeyStore store = KeyStore.getInstance(type == null ? "JKS" : type);
        try (InputStream in = Files.newInputStream(Path.of(location))) {
            store.load(in, password == null ? null : password.toCharArray());
        } catch (final IOException e) {
            throw new ConfigException(key, location, "cannot read it: " + e.getMessage());
        }
        return store;
    }
}
