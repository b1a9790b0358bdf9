package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A rotated client CA file (mutual TLS) is trusted from the next handshake on; an empty or broken one is refused and the old CA stays. */
class SwappingTrustManagerTest {

    private static String pem(X509Certificate c) throws Exception {
        return "-----BEGIN CERTIFICATE-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(c.getEncoded()) + "\n-----END CERTIFICATE-----\n";
    }

    @Test
    void a_new_client_ca_replaces_the_old_one_and_a_broken_file_changes_nothing(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("ca.crt");
        Files.writeString(file, pem(TestPki.CA.cert()));
        SwappingTrustManager trust = new SwappingTrustManager(ServingPair.certificates(Files.readAllBytes(file)));
        PemFileWatch watch = new PemFileWatch("client CA", List.of(file), List.of(Files.readAllBytes(file)), c -> {
            trust.swap(ServingPair.certificates(c.get(0)));
            return "ok";
        });
        X509Certificate[] apiserver = {TestPki.APISERVER.cert()};
        X509Certificate[] other = {TestPki.IMPOSTOR.cert()};
        assertDoesNotThrow(() -> trust.checkClientTrusted(apiserver, "EC"));
        assertThrows(CertificateException.class, () -> trust.checkClientTrusted(other, "EC"));

        Files.writeString(file, "");
        assertEquals(PemFileWatch.Outcome.REFUSED, watch.check());
        assertDoesNotThrow(() -> trust.checkClientTrusted(apiserver, "EC"), "the old CA stays");

        Files.writeString(file, pem(TestPki.IMPOSTOR.cert())); // another CA
        assertEquals(PemFileWatch.Outcome.INSTALLED, watch.check());
        assertThrows(CertificateException.class, () -> trust.checkClientTrusted(apiserver, "EC"));
        assertDoesNotThrow(() -> trust.checkClientTrusted(other, "EC"));
        assertEquals(List.of(TestPki.IMPOSTOR.cert()), List.of(trust.getAcceptedIssuers()));
    }
}
