package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The serving key material swaps whole (issue 21): a pair that does not parse or whose key is not the
 * certificate's is kept out and the current one stays; a good pair is served from the next handshake on,
 * by the JDK's own SSL engine (which asks the key manager on every handshake), and a handshake that chose
 * its alias before a swap still gets that pair's key and chain.
 */
class SwappingKeyManagerTest {

    private static ServingPair pair(Path dir) throws Exception {
        SelfSignedCertificate.Files2 f = SelfSignedCertificate.write(dir, "localhost");
        return ServingPair.parse(Files.readAllBytes(f.cert()), Files.readAllBytes(f.key()));
    }

    private static byte[] bytes(Path p) throws Exception { return Files.readAllBytes(p); }

    @Test
    void a_key_of_another_pair_a_truncated_file_and_an_empty_one_are_refused(@TempDir Path dir) throws Exception {
        SelfSignedCertificate.Files2 a = SelfSignedCertificate.write(dir.resolve("a"), "localhost");
        SelfSignedCertificate.Files2 b = SelfSignedCertificate.write(dir.resolve("b"), "localhost");
        ServingPair.Invalid mismatch = assertThrows(ServingPair.Invalid.class, () -> ServingPair.parse(bytes(a.cert()), bytes(b.key())));
        assertTrue(mismatch.getMessage().contains("does not match the certificate"), mismatch.getMessage());
        byte[] cert = bytes(a.cert());
        byte[] half = java.util.Arrays.copyOf(cert, cert.length / 2);
        assertThrows(ServingPair.Invalid.class, () -> ServingPair.parse(half, bytes(a.key())));
        assertThrows(ServingPair.Invalid.class, () -> ServingPair.parse(new byte[0], bytes(a.key())));
        assertThrows(ServingPair.Invalid.class, () -> ServingPair.parse(cert, "not a key".getBytes(StandardCharsets.US_ASCII)));
        assertEquals("O=ACE binpacker self-signed,CN=localhost", ServingPair.parse(cert, bytes(a.key())).leaf().getSubjectX500Principal().getName());
    }

    @Test
    void the_sec1_and_pkcs1_keys_cert_manager_and_openssl_write_are_read_and_checked_against_their_certificate() throws Exception {
        Path tls = Path.of("tests", "tls");
        ServingPair ec = ServingPair.parse(bytes(tls.resolve("sec1-ec.crt")), bytes(tls.resolve("sec1-ec.key")));
        assertEquals("EC", ec.key().getAlgorithm());
        ServingPair rsa = ServingPair.parse(bytes(tls.resolve("pkcs1-rsa.crt")), bytes(tls.resolve("pkcs1-rsa.key")));
        assertEquals("RSA", rsa.key().getAlgorithm());
        assertThrows(ServingPair.Invalid.class, () -> ServingPair.parse(bytes(tls.resolve("sec1-ec.crt")), bytes(tls.resolve("pkcs1-rsa.key"))),
                "an RSA key does not serve an EC certificate");
    }

    @Test
    void a_half_written_pair_is_kept_out_and_the_whole_one_swapped_in(@TempDir Path dir) throws Exception {
        SelfSignedCertificate.Files2 live = SelfSignedCertificate.write(dir.resolve("live"), "localhost");
        ServingPair first = ServingPair.parse(bytes(live.cert()), bytes(live.key()));
        SwappingKeyManager keys = new SwappingKeyManager(first);
        PemFileWatch watch = new PemFileWatch("serving certificate", List.of(live.cert(), live.key()),
                List.of(bytes(live.cert()), bytes(live.key())), c -> {
                    ServingPair next = ServingPair.parse(c.get(0), c.get(1));
                    keys.swap(next);
                    return next.describe();
                });
        assertEquals(PemFileWatch.Outcome.UNCHANGED, watch.check());

        SelfSignedCertificate.Files2 next = SelfSignedCertificate.write(dir.resolve("next"), "localhost");
        Files.copy(next.cert(), live.cert(), StandardCopyOption.REPLACE_EXISTING); // the certificate arrived, its key not yet
        assertEquals(PemFileWatch.Outcome.REFUSED, watch.check());
        assertEquals(PemFileWatch.Outcome.REFUSED, watch.check(), "refused again without re-parsing, until a file changes");
        assertEquals(first, keys.current(), "the old pair stays whole");

        Files.copy(next.key(), live.key(), StandardCopyOption.REPLACE_EXISTING);
        assertEquals(PemFileWatch.Outcome.INSTALLED, watch.check());
        assertEquals(ServingPair.parse(bytes(next.cert()), bytes(next.key())).leaf(), keys.current().leaf());
        assertEquals(PemFileWatch.Outcome.UNCHANGED, watch.check());

        Files.delete(live.key());
        assertEquals(PemFileWatch.Outcome.UNREADABLE, watch.check());
        assertEquals(ServingPair.parse(bytes(next.cert()), bytes(next.key())).leaf(), keys.current().leaf(), "a missing file changes nothing");
    }

    @Test
    void a_handshake_that_chose_its_alias_before_a_swap_gets_that_pairs_key_and_chain(@TempDir Path dir) throws Exception {
        ServingPair a = pair(dir.resolve("a"));
        ServingPair b = pair(dir.resolve("b"));
        SwappingKeyManager keys = new SwappingKeyManager(a);
        String chosen = keys.chooseEngineServerAlias("EC", null, null);
        assertNull(keys.chooseEngineServerAlias("RSA", null, null), "an EC pair offers no RSA alias");
        keys.swap(b);
        assertEquals(a.key(), keys.getPrivateKey(chosen));
        assertArrayEquals(a.chain().toArray(new X509Certificate[0]), keys.getCertificateChain(chosen));
        String after = keys.chooseEngineServerAlias("EC", null, null);
        assertEquals(b.key(), keys.getPrivateKey(after));
        assertArrayEquals(b.chain().toArray(new X509Certificate[0]), keys.getCertificateChain(after));
        keys.swap(a);
        keys.swap(b);
        assertNull(keys.getPrivateKey(chosen), "only the pair before the current one stays reachable");
    }

    @Test
    void the_jdk_ssl_engine_asks_the_key_manager_on_every_handshake(@TempDir Path dir) throws Exception {
        ServingPair a = pair(dir.resolve("a"));
        ServingPair b = pair(dir.resolve("b"));
        SwappingKeyManager keys = new SwappingKeyManager(a);
        SSLContext server = SSLContext.getInstance("TLS");
        server.init(new javax.net.ssl.KeyManager[] {keys}, null, new SecureRandom());
        try (SSLServerSocket listener = (SSLServerSocket) server.getServerSocketFactory().createServerSocket(0)) {
            CompletableFuture<Void> accepting = CompletableFuture.runAsync(() -> {
                for (int i = 0; i < 2; i++) {
                    try (SSLSocket s = (SSLSocket) listener.accept()) {
                        s.startHandshake();
                        s.getOutputStream().write(1);
                        s.getOutputStream().flush();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            });
            assertEquals(a.leaf(), presented(listener.getLocalPort(), a, b));
            keys.swap(b);
            assertEquals(b.leaf(), presented(listener.getLocalPort(), a, b), "the same SSL context serves the new pair");
            accepting.get(30, TimeUnit.SECONDS);
        }
    }

    /** The certificate a new client connection is shown, trusting both self-signed leaves. */
    private static X509Certificate presented(int port, ServingPair... trusted) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        for (int i = 0; i < trusted.length; i++) ks.setCertificateEntry("t" + i, trusted[i].leaf());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext client = SSLContext.getInstance("TLS");
        client.init(null, tmf.getTrustManagers(), new SecureRandom());
        try (SSLSocket s = (SSLSocket) client.getSocketFactory().createSocket("localhost", port)) {
            s.startHandshake();
            s.getInputStream().read();
            return (X509Certificate) s.getSession().getPeerCertificates()[0];
        }
    }
}
