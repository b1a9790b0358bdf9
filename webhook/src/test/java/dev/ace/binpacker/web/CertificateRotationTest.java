package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * Issue 21: a serving certificate rotated under a running replica (what certs.sh and cert-manager do: same CA,
 * new key and certificate in the mounted files) is picked up without a restart, and no admission in between
 * fails. The caller is strict as the API server is: it trusts only the CA of the caBundle and checks the host
 * name, and opens a new TLS connection for every review so that handshakes happen across every switch. One of
 * the rotations arrives half-written (the new certificate a second before its key): that pair must not be served.
 */
@QuarkusTest
@TestProfile(CertificateRotationTest.Rotating.class)
class CertificateRotationTest {
    record Identity(X509Certificate cert, PrivateKey key) {}

    static final Path DIR;
    static final Identity CA;
    static final Path CERT;
    static final Path KEY;

    static {
        try {
            DIR = Files.createTempDirectory("ace-rotation-");
            CA = issue("CN=ace-rotation-test-ca", null);
            CERT = DIR.resolve("tls.crt");
            KEY = DIR.resolve("tls.key");
            install(issue("CN=ace-binpacker", CA));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public static class Rotating implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.tls.webhook.key-store.pem.0.cert", CERT.toString(),
                    "quarkus.tls.webhook.key-store.pem.0.key", KEY.toString(),
                    "ace.tls.reload-period", "250ms");
        }
    }

    private static Identity issue(String subject, Identity issuer) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
        KeyPair kp = g.generateKeyPair();
        Instant now = Instant.now();
        boolean ca = issuer == null;
        X500Name issuerName = new X500Name(ca ? subject : issuer.cert().getSubjectX500Principal().getName());
        var b = new JcaX509v3CertificateBuilder(issuerName, new BigInteger(64, new SecureRandom()), Date.from(now.minus(Duration.ofMinutes(5))),
                Date.from(now.plus(Duration.ofDays(1))), new X500Name(subject), kp.getPublic());
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
        if (!ca) {
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                    new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
        }
        var cert = new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA")
                .build(ca ? kp.getPrivate() : issuer.key())));
        return new Identity(cert, kp.getPrivate());
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    /** Writes the pair next to the live files and moves each into place (as a Secret volume's symlink swap does). */
    static void install(Identity id) throws IOException {
        install(id, Duration.ZERO);
    }

    /** The same, the certificate first and the key {@code halfWritten} later (a writer that is not atomic). */
    static void install(Identity id, Duration halfWritten) throws IOException {
        Path cert = DIR.resolve("tls.crt.new");
        Path key = DIR.resolve("tls.key.new");
        try {
            Files.writeString(cert, pem("CERTIFICATE", id.cert().getEncoded()));
            Files.writeString(key, pem("PRIVATE KEY", id.key().getEncoded()));
        } catch (java.security.cert.CertificateEncodingException e) {
            throw new IllegalStateException(e);
        }
        if (halfWritten.isZero()) {
            Files.move(key, KEY, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            Files.move(cert, CERT, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return;
        }
        Files.move(cert, CERT, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        try {
            Thread.sleep(halfWritten.toMillis()); // several re-reads see the new certificate with the old key
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Files.move(key, KEY, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Trusts the CA only, and checks the host name: what the API server does with the caBundle. */
    private static SSLContext strict() throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", CA.cert());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), new SecureRandom());
        return ctx;
    }

    /** The serial of the certificate a fresh handshake is shown now; a failed handshake is recorded (null). */
    private static BigInteger served(SSLContext ctx, ConcurrentLinkedQueue<String> failures) throws Exception {
        URI base = URI.create(Https.baseUrl());
        try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(base.getHost(), base.getPort())) {
            SSLParameters p = s.getSSLParameters();
            p.setEndpointIdentificationAlgorithm("HTTPS");
            s.setSSLParameters(p);
            s.startHandshake();
            return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSerialNumber();
        } catch (IOException e) {
            failures.add("probe handshake: " + e);
            return null;
        }
    }

    record Answer(int status, byte[] body) {}

    /**
     * One HTTP/1.1 POST on its own TLS connection, closed when the answer is read: a fresh handshake per review, as
     * strict as the API server (the CA only, the host name checked), and no connection left open behind it.
     */
    private static Answer post(SSLContext ctx, String path, String json) throws IOException {
        URI base = URI.create(Https.baseUrl());
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(base.getHost(), base.getPort())) {
            SSLParameters p = s.getSSLParameters();
            p.setEndpointIdentificationAlgorithm("HTTPS");
            s.setSSLParameters(p);
            s.setSoTimeout(30_000);
            var out = s.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: " + base.getHost() + ":" + base.getPort()
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            byte[] all = s.getInputStream().readAllBytes();
            String text = new String(all, StandardCharsets.ISO_8859_1);
            int end = text.indexOf("\r\n\r\n");
            if (end < 0) throw new IOException("no HTTP answer (" + all.length + " bytes)");
            String[] head = text.substring(0, end).split("\r\n");
            int status = Integer.parseInt(head[0].split(" ")[1]);
            byte[] rest = java.util.Arrays.copyOfRange(all, end + 4, all.length);
            boolean chunked = java.util.Arrays.stream(head).anyMatch(h -> h.toLowerCase(java.util.Locale.ROOT).startsWith("transfer-encoding:")
                    && h.toLowerCase(java.util.Locale.ROOT).contains("chunked"));
            return new Answer(status, chunked ? dechunk(rest) : rest);
        }
    }

    private static byte[] dechunk(byte[] in) throws IOException {
        var out = new java.io.ByteArrayOutputStream();
        int i = 0;
        while (true) {
            int eol = i;
            while (eol + 1 < in.length && !(in[eol] == '\r' && in[eol + 1] == '\n')) eol++;
            if (eol + 1 >= in.length) throw new IOException("truncated chunked body");
            String size = new String(in, i, eol - i, StandardCharsets.US_ASCII).split(";")[0].trim();
            int n = Integer.parseInt(size, 16);
            if (n == 0) return out.toByteArray();
            out.write(in, eol + 2, n);
            i = eol + 2 + n + 2;
        }
    }

    static final int ROTATIONS = 3;

    /** Waits until the replica reports ready (inventory loaded, HTTPS handler warmed up): the API server calls only ready pods. */
    private static void awaitReady() throws InterruptedException {
        int port = ConfigProvider.getConfig().getOptionalValue("quarkus.management.test-port", Integer.class).orElse(9001);
        var ready = RestAssured.given().baseUri("http://localhost:" + port).port(-1);
        for (int i = 0; ready.get("/q/health/ready").statusCode() != 200 && i < 1200; i++) Thread.sleep(100);
        assertEquals(200, ready.get("/q/health/ready").statusCode(), "the replica is ready before the reviews start");
    }

    @Test
    void certificates_rotated_under_a_running_replica_are_served_and_no_review_or_handshake_in_between_fails() throws Exception {
        awaitReady();
        SSLContext ctx = strict();
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        BigInteger before = served(ctx, failures);
        JsonNode tp4 = Https.file(Https.ADMISSION.resolve("requests/tp4.json"));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger answered = new AtomicInteger();
        List<Thread> callers = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            int caller = t;
            Thread th = new Thread(() -> {
                for (int i = 0; !stop.get(); i++) {
                    String uid = "rotation-" + caller + "-" + i;
                    ObjectNode review = tp4.deepCopy();
                    ((ObjectNode) review.get("request")).put("uid", uid).put("dryRun", true); // decides, reserves nothing
                    // a new connection and TLS handshake for every review, closed after it (a client left open per review
                    // would hold its connection until it is collected, and 256 of them fill quarkus.http.limits.max-connections)
                    try {
                        Answer r = post(ctx, "/mutate", review.toString());
                        JsonNode resp = Https.read(r.body()).path("response");
                        if (r.status() != 200 || !uid.equals(resp.path("uid").asText()) || !resp.path("allowed").asBoolean()
                                || !resp.path("patch").isTextual()) {
                            failures.add(uid + ": " + r.status() + " " + new String(r.body(), StandardCharsets.UTF_8));
                        } else {
                            answered.incrementAndGet();
                        }
                    } catch (IOException e) {
                        failures.add(uid + ": " + e);
                    }
                }
            }, "rotation-caller-" + t);
            th.start();
            callers.add(th);
        }
        List<BigInteger> servedSerials = new ArrayList<>(List.of(before));
        try {
            while (answered.get() < 20) Thread.sleep(20); // reviews flow over the first certificate
            for (int rotation = 0; rotation < ROTATIONS; rotation++) {
                Identity next = issue("CN=ace-binpacker", CA);
                install(next, rotation == 1 ? Duration.ofSeconds(1) : Duration.ZERO);
                BigInteger now = served(ctx, failures);
                for (int probe = 0; !next.cert().getSerialNumber().equals(now) && probe < 600; probe++) { // re-read every 250 ms
                    Thread.sleep(100);
                    now = served(ctx, failures);
                }
                assertEquals(next.cert().getSerialNumber(), now, "rotation " + rotation + " is served within a minute");
                servedSerials.add(now);
                int atSwitch = answered.get();
                while (answered.get() < atSwitch + 20) Thread.sleep(20); // and reviews flow over the new one
            }
        } finally {
            stop.set(true);
            for (Thread th : callers) th.join();
        }
        System.out.printf("certificate rotation: %d rotations, %d reviews answered, %d failed (%d of them in the TLS handshake)%n",
                ROTATIONS, answered.get(), failures.size(), failures.stream().filter(f -> f.contains("SSLHandshakeException")).count());
        assertEquals(List.of(), List.copyOf(failures), "no review and no handshake failed across " + ROTATIONS + " rotations");
        assertEquals(ROTATIONS + 1, servedSerials.stream().distinct().count(), "each new certificate was served: " + servedSerials);
        assertTrue(answered.get() >= 20 * (ROTATIONS + 1), "reviews answered before and after each rotation: " + answered.get());
    }
}
