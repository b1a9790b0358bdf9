package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.cluster.ClusterBootstrap;
import dev.ace.binpacker.cluster.Fleet;
import dev.ace.binpacker.placement.LedgerInvariants;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** 200 TP admissions at once, over real HTTPS, against the demo inventory (24 inference GPUs). */
@QuarkusTest
class ConcurrentAdmissionTest {
    @Inject
    ClusterBootstrap bootstrap;
    @Inject
    Fleet fleet;
    @Inject
    PendingDemand pending;

    @Test
    void two_hundred_concurrent_tp_admissions_never_hand_out_a_gpu_twice_and_all_get_an_answer() throws Exception {
        bootstrap.loadStandalone();
        pending.clear();
        JsonNode template = Https.file(Https.ADMISSION.resolve("requests/tp2.json"));
        HttpClient client = Https.jdkClient();
        ExecutorService pool = Executors.newFixedThreadPool(32);
        List<Future<JsonNode>> answers = new ArrayList<>();
        int[] sizes = {2, 4, 8, 1};
        for (int i = 0; i < 200; i++) {
            int tp = sizes[i % sizes.length];
            ObjectNode review = template.deepCopy();
            ((ObjectNode) review.get("request")).put("uid", "concurrent-" + i);
            ObjectNode c = (ObjectNode) review.at("/request/object/spec/containers/0");
            c.putArray("args").add("--model").add("m").add("--tensor-parallel-size").add(Integer.toString(tp));
            ((ObjectNode) c.at("/resources/limits")).put("nvidia.com/gpu", Integer.toString(tp));
            ((ObjectNode) c.at("/resources/requests")).put("nvidia.com/gpu", Integer.toString(tp));
            HttpRequest req = HttpRequest.newBuilder(URI.create(Https.baseUrl() + "/mutate"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(review.toString())).build();
            answers.add(pool.submit(() -> {
                HttpResponse<byte[]> r = client.send(req, HttpResponse.BodyHandlers.ofByteArray());
                assertEquals(200, r.statusCode(), new String(r.body()));
                return Https.read(r.body());
            }));
        }
        int placed = 0;
        int gated = 0;
        for (Future<JsonNode> f : answers) {
            JsonNode resp = f.get(60, TimeUnit.SECONDS).path("response");
            assertTrue(resp.path("allowed").asBoolean(), resp.toString());
            String patch = new String(java.util.Base64.getDecoder().decode(resp.path("patch").asText()));
            if (patch.contains("ace.dev/waiting-for-clique")) gated++;
            else if (patch.contains("ace.dev/reservation")) placed++;
        }
        pool.shutdown();
        assertEquals(200, placed + gated, "every request was placed or gated");
        assertEquals(gated, pending.size());
        assertLedgerInvariant(placed);
    }

    private void assertLedgerInvariant(int placed) {
        fleet.allocator().read(a -> {
            assertEquals(placed, a.ledger().size());
            LedgerInvariants.assertHold(a.state(), a.ledger().all());
            return null;
        });
    }
}
