package dev.ace.binpacker.web;

import io.quarkus.runtime.StartupEvent;
import io.quarkus.tls.CertificateUpdatedEvent;
import io.quarkus.tls.TlsConfiguration;
import io.quarkus.tls.TlsConfigurationRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.HexFormat;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The TLS registry re-reads the serving certificate every {@code reload-period} and the HTTP server
 * logs every reload at INFO, changed or not: two lines a minute for nothing. That logger is set to
 * WARN in application.properties; this logs once when the certificate really changed (cert-manager
 * rotated the Secret), with its subject and expiry.
 */
@ApplicationScoped
public class CertificateRotationLog {
    private static final Logger LOG = Logger.getLogger(CertificateRotationLog.class);
    /** The TLS registry's named configuration the HTTPS server uses ({@code quarkus.http.tls-configuration-name}). */
    static final String CONFIGURATION = "webhook";

    @Inject
    TlsConfigurationRegistry registry;

    private volatile String last;

    void onStart(@Observes StartupEvent e) {
        registry.get(CONFIGURATION).ifPresent(c -> last = fingerprint(c.getKeyStore()));
    }

    void onUpdate(@Observes CertificateUpdatedEvent e) {
        changed(e.name(), e.tlsConfiguration()).ifPresent(LOG::info);
    }

    /** The line to log when the certificate of {@code tls} differs from the one seen before, else empty. */
    Optional<String> changed(String name, TlsConfiguration tls) {
        String now = fingerprint(tls.getKeyStore());
        String before = last;
        last = now;
        if (now == null || now.equals(before)) return Optional.empty();
        X509Certificate c = first(tls.getKeyStore());
        return Optional.of("serving certificate of TLS configuration '" + name + "' " + (before == null ? "loaded" : "rotated") + ": "
                + (c == null ? "sha256 " + now : c.getSubjectX500Principal().getName() + ", valid until " + c.getNotAfter().toInstant()));
    }

    private static String fingerprint(KeyStore ks) {
        X509Certificate c = first(ks);
        if (c == null) return null;
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(c.getEncoded()));
        } catch (Exception ex) {
            return null;
        }
    }

    private static X509Certificate first(KeyStore ks) {
        if (ks == null) return null;
        try {
            for (String alias : Collections.list(ks.aliases())) {
                Certificate c = ks.getCertificate(alias);
                if (c instanceof X509Certificate x) return x;
            }
        } catch (Exception ex) {
            return null;
        }
        return null;
    }
}
