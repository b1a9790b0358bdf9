package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.tls.BaseTlsConfiguration;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A periodic reload of an unchanged certificate says nothing; a rotated one is logged once. */
class CertificateRotationLogTest {

    private static BaseTlsConfiguration serving(Path dir) throws Exception {
        SelfSignedCertificate.Files2 files = SelfSignedCertificate.write(dir, "ace-binpacker.ace-system.svc");
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        try (InputStream in = Files.newInputStream(files.cert())) {
            ks.setCertificateEntry("cert-0", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        return new BaseTlsConfiguration() {
            @Override
            public KeyStore getKeyStore() { return ks; }
        };
    }

    @Test
    void reloads_of_the_same_certificate_are_silent_and_a_rotation_is_logged_once(@TempDir Path dir) throws Exception {
        CertificateRotationLog log = new CertificateRotationLog();
        BaseTlsConfiguration first = serving(dir.resolve("a"));
        String loaded = log.changed("webhook", first).orElseThrow();
        assertTrue(loaded.contains("loaded: O=ACE binpacker self-signed,CN=ace-binpacker.ace-system.svc"), loaded);
        assertEquals(Optional.empty(), log.changed("webhook", first));
        assertEquals(Optional.empty(), log.changed("webhook", first));
        BaseTlsConfiguration rotated = serving(dir.resolve("b"));
        String line = log.changed("webhook", rotated).orElseThrow();
        assertTrue(line.startsWith("serving certificate of TLS configuration 'webhook' rotated: O=ACE binpacker self-signed,CN=ace-binpacker.ace-system.svc"), line);
        assertTrue(line.contains("valid until "), line);
        assertEquals(Optional.empty(), log.changed("webhook", rotated));
    }
}
