package dev.ace.binpacker.web;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.common.MapBackedConfigSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * When no serving certificate is configured ({@code quarkus.tls.webhook.key-store.pem.0.cert}) and
 * {@code ace.tls.self-signed} is not false, generates one into a temp directory and points the
 * {@code webhook} TLS configuration at it, so {@code serve} is a real HTTPS webhook with zero setup.
 * Ordinal 50: anything the user configures wins.
 */
public final class SelfSignedTlsConfigSourceFactory implements ConfigSourceFactory {
    static final String CERT = "quarkus.tls.webhook.key-store.pem.0.cert";
    static final String KEY = "quarkus.tls.webhook.key-store.pem.0.key";
    private static volatile Map<String, String> generated;

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        ConfigValue cert = context.getValue(CERT);
        ConfigValue enabled = context.getValue("ace.tls.self-signed");
        if ((cert != null && cert.getValue() != null) || (enabled != null && "false".equalsIgnoreCase(enabled.getValue()))) {
            return List.of();
        }
        return List.of(new MapBackedConfigSource("ace-self-signed-certificate", paths(), 50) {});
    }

    private static synchronized Map<String, String> paths() {
        if (generated == null) {
            try {
                var dir = Files.createTempDirectory("ace-tls-");
                var files = SelfSignedCertificate.write(dir, "localhost", "ace-binpacker", "ace-binpacker.ace-system.svc",
                        "ace-binpacker.ace-system.svc.cluster.local");
                generated = Map.of(CERT, files.cert().toString(), KEY, files.key().toString());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return generated;
    }
}
