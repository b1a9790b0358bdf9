package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ace.binpacker.cluster.ClusterBootstrap;
import dev.ace.binpacker.cluster.Fleet;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * With mutual TLS off (the default), one client posting AdmissionReviews as fast as it can (each a
 * new request uid, as a forger would send them) holds at most the namespace's cap of pending
 * reservations; the rest of the fleet stays free for everyone else. The profile lowers the cap
 * (and the read timeout, for the slow caller below) so the test stays small.
 */
@QuarkusTest
@TestProfile(PendingFloodTest.SmallCap.class)
class PendingFloodTest {
    static final int CAP = 4;

    public static class SmallCap implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("ace.policy.max-pending-per-namespace", Integer.toString(CAP), "quarkus.http.read-timeout", "2s");
        }
    }

    @Inject
    ClusterBootstrap bootstrap;
    @Inject
    Fleet fleet;

    @BeforeEach
    void fresh() { bootstrap.loadStandalone(); }

    private static String review(String uid, String namespace) {
        ObjectNode r = Https.file(Https.ADMISSION.resolve("requests/inference-1gpu.json")).deepCopy();
        ((ObjectNode) r.get("request")).put("uid", uid).put("namespace", namespace);
        ((ObjectNode) r.at("/request/object/metadata")).put("namespace", namespace);
        return r.toString();
    }

    @Test
    void an_unauthenticated_flood_holds_no_more_than_the_namespace_cap() throws Exception {
        HttpClient client = Https.jdkClient();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<JsonNode>> answers = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            HttpRequest req = HttpRequest.newBuilder(URI.create(Https.baseUrl() + "/mutate")).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(review("flood-" + i, "tenant-a"))).build();
            answers.add(pool.submit(() -> Https.read(client.send(req, HttpResponse.BodyHandlers.ofByteArray()).body())));
        }
        int placed = 0;
        int capped = 0;
        for (Future<JsonNode> f : answers) {
            JsonNode r = f.get(120, TimeUnit.SECONDS).path("response");
            if (r.path("patch").isTextual()) placed++;
            else if (r.path("status").path("message").asText().contains("the most ACE allows per namespace (" + CAP + ")")) capped++;
        }
        pool.shutdown();
        assertEquals(CAP, placed, "the flood got the cap and no more");
        assertEquals(120 - CAP, capped, "every other request was told why");
        assertEquals(CAP, fleet.allocator().pendingIn("tenant-a"));
        JsonNode other = Https.postReview("/mutate", Https.read(review("other-team", "tenant-b").getBytes(StandardCharsets.UTF_8)));
        assertTrue(other.at("/response/patch").isTextual(), "another namespace still gets GPUs: " + other);
    }

    @Test
    void an_http1_caller_that_never_finishes_its_body_is_cut_off_after_the_read_timeout() throws Exception {
        javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
        ctx.init(null, new javax.net.ssl.TrustManager[] {new javax.net.ssl.X509TrustManager() {
            @Override public void checkClientTrusted(java.security.cert.X509Certificate[] c, String a) {}
            @Override public void checkServerTrusted(java.security.cert.X509Certificate[] c, String a) {}
            @Override public java.security.cert.X509Certificate[] getAcceptedIssuers() { return new java.security.cert.X509Certificate[0]; }
        }}, null);
        try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("localhost", URI.create(Https.baseUrl()).getPort())) {
            // A bound on the test, not a measurement: the server gives up after its 2 s read timeout, long before this.
            s.setSoTimeout(60_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{\"apiVersion\"")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.US_ASCII); // returns only once the server closed
            assertTrue(!answer.startsWith("HTTP/1.1 200"), answer);
        }
        assertEquals(0, fleet.allocator().ledger().size());
    }
}
