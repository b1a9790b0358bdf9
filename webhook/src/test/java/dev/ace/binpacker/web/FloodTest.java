package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.cluster.ClusterBootstrap;
import dev.ace.binpacker.cluster.Fleet;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 17: no input buys time. A flood of slow and expensive reviews leaves a well-formed review
 * answered, and a review ACE cannot decide within its time budget is answered anyway (denied in
 * enforce: never left to the API server's timeout and failurePolicy), giving back what it reserved.
 */
@QuarkusTest
class FloodTest {
    @Inject
    ClusterBootstrap bootstrap;
    @Inject
    Fleet fleet;
    @Inject
    PendingDemand pending;
    @Inject
    ReviewBudget budget;

    @BeforeEach
    void fresh() {
        bootstrap.loadStandalone();
        pending.clear();
    }

    /** A 3-GPU Job whose command line is one argument of {@code quotes} quotes after --tp (the 9 s pod, and larger). */
    static String decoy(int quotes, int i) {
        ObjectNode review = Https.file(Https.ADMISSION.resolve("requests/shape-decoy-quotes-job-3gpu.json")).deepCopy();
        ((ObjectNode) review.get("request")).put("uid", "decoy-" + i);
        ObjectNode c = (ObjectNode) review.at("/request/object/spec/containers/0");
        c.putArray("args").add("sh").add("-c").add("vllm serve m --tp " + "'".repeat(quotes) + " x");
        return review.toString();
    }

    @Test
    void slow_bodies_and_expensive_pods_at_once_leave_a_well_formed_review_answered() throws Exception {
        List<SSLSocket> slow = new ArrayList<>();
        for (int i = 0; i < 8; i++) slow.add(slowBody());
        HttpClient client = Https.jdkClient();
        ExecutorService pool = Executors.newFixedThreadPool(12);
        List<Future<HttpResponse<byte[]>>> flood = new ArrayList<>();
        try {
            for (int i = 0; i < 24; i++) {
                HttpRequest req = post(decoy(3 * 1024 * 1024, i));
                flood.add(pool.submit(() -> client.send(req, HttpResponse.BodyHandlers.ofByteArray())));
            }
            JsonNode tp4 = Https.file(Https.ADMISSION.resolve("requests/tp4.json"));
            HttpResponse<byte[]> wellFormed = client.send(post(tp4.toString()), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, wellFormed.statusCode(), new String(wellFormed.body()));
            JsonNode r = Https.read(wellFormed.body()).path("response");
            assertEquals(tp4.at("/request/uid").asText(), r.path("uid").asText());
            assertTrue(r.path("allowed").asBoolean(), r.toString());
            assertTrue(Https.patchedPod(tp4, Https.read(wellFormed.body())).getMetadata().getAnnotations()
                    .get("ace.dev/reservation").contains("\"gpus\":[0,1,2,3]"), "decided, not passed over");
            for (Future<HttpResponse<byte[]>> f : flood) {
                HttpResponse<byte[]> d = f.get(120, TimeUnit.SECONDS);
                assertEquals(200, d.statusCode());
                JsonNode dr = Https.read(d.body()).path("response");
                assertFalse(dr.path("allowed").asBoolean(), "each decoy is denied (3 GPUs fracture), not left to failurePolicy");
            }
        } finally {
            pool.shutdownNow();
            for (SSLSocket s : slow) s.close();
        }
        assertEquals(1, (int) fleet.allocator().<Integer>read(a -> a.ledger().size()), "only the well-formed review holds GPUs");
    }

    @Test
    void a_review_that_cannot_be_decided_within_the_budget_is_denied_in_enforce_and_keeps_nothing() throws Exception {
        JsonNode tp4 = Https.file(Https.ADMISSION.resolve("requests/tp4.json"));
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch answered = new CountDownLatch(1);
        Thread stall = new Thread(() -> fleet.allocator().read(a -> { // every decision waits for this lock
            holding.countDown();
            try {
                answered.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null;
        }));
        stall.start();
        holding.await();
        long settledBefore = budget.settled();
        JsonNode late;
        try {
            late = Https.postReview("/mutate", tp4);
        } finally {
            answered.countDown();
            stall.join();
        }
        JsonNode r = late.path("response");
        assertEquals(tp4.at("/request/uid").asText(), r.path("uid").asText());
        assertFalse(r.path("allowed").asBoolean(), r.toString());
        assertTrue(r.at("/status/message").asText().startsWith("ACE could not decide for this pod in time (over the time budget"),
                r.at("/status/message").asText());
        // The decision runs on once the lock is free; whatever it reserves is given back because nobody got its answer.
        while (budget.settled() == settledBefore) Thread.sleep(20); // waits for the late decision (surefire bounds the test)
        assertEquals(0, (int) fleet.allocator().<Integer>read(a -> a.ledger().size()), "the late decision keeps nothing");
        JsonNode again = Https.postReview("/mutate", ((ObjectNode) tp4.deepCopy()).set("request",
                ((ObjectNode) tp4.get("request").deepCopy()).put("uid", "retried")));
        assertTrue(again.at("/response/allowed").asBoolean(), "the retry is decided");
    }

    private static HttpRequest post(String body) {
        return HttpRequest.newBuilder(URI.create(Https.baseUrl() + "/mutate")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    /** A TLS connection that sends the head of a review and then nothing: it waits on the read timeout. */
    private static SSLSocket slowBody() throws Exception {
        javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
        ctx.init(null, new javax.net.ssl.TrustManager[] {new javax.net.ssl.X509TrustManager() {
            @Override public void checkClientTrusted(java.security.cert.X509Certificate[] c, String a) {}
            @Override public void checkServerTrusted(java.security.cert.X509Certificate[] c, String a) {}
            @Override public java.security.cert.X509Certificate[] getAcceptedIssuers() { return new java.security.cert.X509Certificate[0]; }
        }}, new java.security.SecureRandom());
        URI base = URI.create(Https.baseUrl());
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(base.getHost(), base.getPort());
        s.startHandshake();
        OutputStream out = s.getOutputStream();
        out.write(("POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"apiVersion\":")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return s;
    }
}
