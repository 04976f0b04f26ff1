package io.isthmus.broker.security;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * How one listener secures its connections: its security protocol ({@code listener.security.protocol.map}), the TLS
 * context for SSL and SASL_SSL, the SASL mechanisms for SASL_PLAINTEXT and SASL_SSL.
 */
public record ListenerSecurity(SecurityProtocol protocol, SslContext tls, SaslMechanisms sasl) {
    public static final ListenerSecurity PLAINTEXT = new ListenerSecurity(SecurityProtocol.PLAINTEXT, null, null);

    public ListenerSecurity {
        final boolean needsTls = protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL;
        final boolean needsSasl = protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL;
        if (needsTls != (tls != null) || needsSasl != (sasl != null)) {
            throw new IllegalArgumentException(
                    "listener security " + protocol + " with tls=" + (tls != null) + " sasl=" + (sasl != null));
        }
    }

    /** The TLS handler of a new connection, or null on a listener without TLS. */
    public SslHandler newTlsHandler(final ByteBufAllocator allocator) {
        return tls == null ? null : tls.newHandler(allocator);
    }

    /** The authenticator of a new connection; {@code tlsHandler} is its TLS handler, if any. */
    public ConnectionAuthenticator newAuthenticator(final SslHandler tlsHandler) {
        if (sasl != null) {
            return new SaslAuthenticator(sasl);
        }
        if (tlsHandler == null) {
            return new Unauthenticated(() -> KafkaPrincipal.ANONYMOUS);
        }
        // Kafka's default principal for SSL: the client certificate's subject, when it sent one.
        return new Unauthenticated(() -> {
            try {
                return new KafkaPrincipal(
                        KafkaPrincipal.USER_TYPE,
                        tlsHandler.engine().getSession().getPeerPrincipal().getName());
            } catch (final SSLPeerUnverifiedException none) {
                return KafkaPrincipal.ANONYMOUS;
            }
        });
    }
}
