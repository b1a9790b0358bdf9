package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * webhook-config/certs.sh against a stand-in kubectl (tests/certs/fake-kubectl) that keeps the webhook
 * configurations and Secrets as files: run too early it stops and says what to apply first; run in order it
 * puts the CA into every webhook; run again it rotates without a moment in which the caBundle the API server
 * holds fails to verify the certificate a pod serves (the gap in which failurePolicy Ignore admits pods
 * untouched). Needs openssl, as the script does: without it this test fails, it does not skip.
 */
class CertsScriptTest {
    private static final Path KUBECTL = Path.of("tests/certs/fake-kubectl").toAbsolutePath();

    private record Result(int code, String output) {}

    @BeforeAll
    static void opensslIsThere() throws Exception {
        Process p;
        try {
            p = new ProcessBuilder("openssl", "version").redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            throw new AssertionError("webhook-config/certs.sh needs openssl, and so does this test: install it (apt-get install openssl)", e);
        }
        assertTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, "openssl version failed");
    }

    private static Result certs(Path state, Map<String, String> env) throws Exception {
        Path bin = state.resolve("bin");
        Files.createDirectories(bin);
        if (!Files.exists(bin.resolve("kubectl"))) Files.createSymbolicLink(bin.resolve("kubectl"), KUBECTL);
        ProcessBuilder pb = new ProcessBuilder("bash", "webhook-config/certs.sh").redirectErrorStream(true);
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        pb.environment().put("STATE", state.toString());
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        return new Result(p.exitValue(), out);
    }

    private static Result certs(Path state) throws Exception { return certs(state, Map.of()); }

    private static void applied(Path state) throws Exception {
        Files.writeString(state.resolve("mutatingwebhookconfiguration"), "mutate.ace.dev\n");
        Files.writeString(state.resolve("validatingwebhookconfiguration"), "validate.ace.dev\nvalidate-workloads.ace.dev\n");
    }

    /** What the API server holds: the caBundle of every webhook, as certificates. */
    private static List<List<X509Certificate>> bundles(Path state) throws Exception {
        List<List<X509Certificate>> all = new ArrayList<>();
        for (String kind : List.of("mutatingwebhookconfiguration", "validatingwebhookconfiguration")) {
            int n = Files.readAllLines(state.resolve(kind)).size();
            for (int i = 0; i < n; i++) {
                Path f = state.resolve(kind + ".bundle." + i);
                assertTrue(Files.exists(f), kind + " webhook " + i + " has no caBundle");
                all.add(certificates(Base64.getDecoder().decode(Files.readString(f).strip())));
            }
        }
        return all;
    }

    private static List<X509Certificate> certificates(byte[] pem) throws Exception {
        List<X509Certificate> out = new ArrayList<>();
        for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem))) {
            out.add((X509Certificate) c);
        }
        return out;
    }

    /** The serving certificate in the Secret the pods mount. */
    private static X509Certificate served(Path state) throws Exception {
        return certificates(Base64.getDecoder().decode(Files.readString(state.resolve("secret.ace-binpacker-tls.tls.crt")).strip())).get(0);
    }

    /** Whether the API server, holding {@code bundle}, accepts {@code leaf}: signed by one of its CAs. */
    private static boolean verifies(List<X509Certificate> bundle, X509Certificate leaf) {
        for (X509Certificate ca : bundle) {
            try {
                leaf.verify(ca.getPublicKey());
                return true;
            } catch (Exception notThisOne) {
                // next CA
            }
        }
        return false;
    }

    private static void everyWebhookVerifies(Path state, X509Certificate leaf, String when) throws Exception {
        for (List<X509Certificate> b : bundles(state)) assertTrue(verifies(b, leaf), when + ": a webhook's caBundle does not verify " + leaf.getSerialNumber());
    }

    private static List<String> calls(Path state) throws Exception { return Files.readAllLines(state.resolve("calls")); }

    @Test
    void run_before_the_webhook_configurations_exist_it_stops_and_names_the_step_to_run_first(@TempDir Path state) throws Exception {
        Result r = certs(state);
        assertEquals(1, r.code(), r.output());
        assertEquals("certs.sh: mutatingwebhookconfiguration/ace-binpacker not found: run 'kubectl apply -k webhook-config' first, then this script\n",
                r.output());
        assertTrue(Files.notExists(state.resolve("calls")), "nothing written");
    }

    @Test
    void without_openssl_it_stops_and_names_it(@TempDir Path state) throws Exception {
        applied(state);
        Result r = certs(state, Map.of("OPENSSL", "/nonexistent/openssl"));
        assertEquals(1, r.code(), r.output());
        assertEquals("certs.sh: needs openssl (not found: /nonexistent/openssl)\n", r.output());
    }

    @Test
    void run_in_order_it_writes_the_secret_and_patches_the_ca_into_every_webhook(@TempDir Path state) throws Exception {
        applied(state);
        Result r = certs(state);
        assertEquals(0, r.code(), r.output());
        assertEquals(List.of("patch mutatingwebhookconfiguration 0", "patch validatingwebhookconfiguration 0 1",
                "apply secret ace-binpacker-ca", "apply secret ace-binpacker-tls"), calls(state), "the workloads webhook too; CA before the serving certificate");
        everyWebhookVerifies(state, served(state), "after the first run");
        assertTrue(served(state).getSubjectAlternativeNames().toString().contains("ace-binpacker.ace-system.svc"));
        assertEquals("certs.sh: Secret ace-system/ace-binpacker-tls written (new CA (no CA yet)); every webhook of ace-binpacker trusts it (1 CA(s) in caBundle)\n",
                r.output());
    }

    @Test
    void run_again_it_keeps_the_ca_and_the_ca_bundle_and_only_the_serving_certificate_changes(@TempDir Path state) throws Exception {
        applied(state);
        assertEquals(0, certs(state).code());
        X509Certificate before = served(state);
        List<List<X509Certificate>> bundleBefore = bundles(state);
        String caBefore = Files.readString(state.resolve("secret.ace-binpacker-ca.ca.crt"));

        Result r = certs(state);
        assertEquals(0, r.code(), r.output());
        X509Certificate after = served(state);
        assertNotEquals(before.getSerialNumber(), after.getSerialNumber(), "a new serving certificate");
        assertEquals(caBefore, Files.readString(state.resolve("secret.ace-binpacker-ca.ca.crt")), "the same CA");
        assertEquals(bundleBefore, bundles(state), "the caBundle the API server holds did not change");
        assertEquals(List.of("apply secret ace-binpacker-tls"), calls(state).subList(4, calls(state).size()), "no patch of any webhook, no new CA");
        // The pods switch from `before` to `after` within a minute; the API server accepts both all along.
        everyWebhookVerifies(state, before, "during the rotation");
        everyWebhookVerifies(state, after, "after the rotation");
        assertTrue(r.output().contains("(CA kept)"), r.output());
    }

    @Test
    void a_new_ca_enters_every_ca_bundle_beside_the_old_one_before_the_serving_certificate_switches(@TempDir Path state) throws Exception {
        applied(state);
        assertEquals(0, certs(state).code());
        X509Certificate old = served(state);
        int firstRun = calls(state).size();

        Result r = certs(state, Map.of("ROTATE_CA", "1"));
        assertEquals(0, r.code(), r.output());
        List<String> rotation = calls(state).subList(firstRun, calls(state).size());
        assertEquals(List.of("patch mutatingwebhookconfiguration 0", "patch validatingwebhookconfiguration 0 1",
                "apply secret ace-binpacker-ca", "apply secret ace-binpacker-tls"), rotation, "caBundles first, then the certificate the pods serve");
        X509Certificate fresh = served(state);
        assertFalse(verifies(List.of(certificates(Base64.getDecoder().decode(Files.readString(state.resolve("secret.ace-binpacker-ca.ca.crt")).strip())).get(0)), old),
                "the CA really changed");
        for (List<X509Certificate> b : bundles(state)) assertEquals(2, b.size(), "old and new CA");
        everyWebhookVerifies(state, old, "while pods still serve the old certificate");
        everyWebhookVerifies(state, fresh, "once they serve the new one");

        Result prune = certs(state, Map.of("PRUNE_OLD_CA", "1"));
        assertEquals(0, prune.code(), prune.output());
        for (List<X509Certificate> b : bundles(state)) assertEquals(1, b.size(), "only the new CA");
        everyWebhookVerifies(state, served(state), "after pruning");
        assertFalse(verifies(bundles(state).get(0), old), "the old CA is no longer trusted");
    }
}
