package dev.ace.binpacker.web;

import io.quarkus.vertx.http.HttpServerOptionsCustomizer;
import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.common.MapBackedConfigSource;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServerOptions;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * Optional mutual TLS on the webhook port ({@code ace.tls.client-ca}). Quarkus fixes
 * {@code quarkus.http.ssl.client-auth} at build time, so one image could not serve both kinds of
 * cluster; instead the CA file becomes the trust store of the {@code webhook} TLS configuration (checked
 * at start), {@link ServingTls} serves it through a trust manager it swaps when the file changes, and this
 * customizer makes the HTTPS server require a client certificate at run time. A caller without one issued by that CA fails the TLS
 * handshake: it never reaches an admission handler, let alone the ledger.
 */
@ApplicationScoped
public class MutualTls implements HttpServerOptionsCustomizer {
    static final String CLIENT_CA = "ace.tls.client-ca";
    static final String TRUST_STORE = "quarkus.tls.webhook.trust-store.pem.certs";

    @Override
    public void customizeHttpsServer(HttpServerOptions options) {
        if (clientCa().isPresent()) options.setClientAuth(ClientAuth.REQUIRED);
    }

    static Optional<String> clientCa() {
        return ConfigProvider.getConfig().getOptionalValue(CLIENT_CA, String.class).filter(s -> !s.isBlank());
    }

    /** Points the {@code webhook} TLS configuration's trust store at {@code ace.tls.client-ca}; ordinal 50, so explicit settings win. */
    public static final class TrustStoreSource implements ConfigSourceFactory {
        @Override
        public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
            ConfigValue ca = context.getValue(CLIENT_CA);
            if (ca == null || ca.getValue() == null || ca.getValue().isBlank()) return List.of();
            return List.of(new MapBackedConfigSource("ace-client-ca", Map.of(TRUST_STORE, ca.getValue()), 50) {});
        }
    }
}
