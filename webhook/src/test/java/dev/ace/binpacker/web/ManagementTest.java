package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ace.binpacker.cluster.ClusterBootstrap;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/** Health and metrics on the management interface: plain HTTP, DESIGN metric names, bounded labels. */
@QuarkusTest
class ManagementTest {
    @Inject
    ClusterBootstrap bootstrap;

    private static String management() {
        int port = ConfigProvider.getConfig().getOptionalValue("quarkus.management.test-port", Integer.class).orElse(9001);
        return "http://localhost:" + port;
    }

    @Test
    void readiness_is_up_once_the_inventory_is_loaded_and_the_https_handler_is_warm() throws InterruptedException {
        bootstrap.loadStandalone();
        var r = RestAssured.given().baseUri(management()).port(-1).get("/q/health/ready");
        for (long deadline = System.nanoTime() + 30_000_000_000L; r.statusCode() != 200 && System.nanoTime() < deadline; ) {
            Thread.sleep(100); // the warm-up requests run in the background after the HTTPS server starts
            r = RestAssured.given().baseUri(management()).port(-1).get("/q/health/ready");
        }
        assertEquals(200, r.statusCode(), r.asString());
        String body = r.asString().replace(" ", "");
        assertTrue(body.contains("\"inventory\":true") && body.contains("\"warm-up\":true"), r.asString());
        assertEquals(200, RestAssured.given().baseUri(management()).port(-1).get("/q/health/live").statusCode());
    }

    @Test
    void metrics_use_the_design_names_and_never_name_a_node_or_namespace() {
        bootstrap.loadStandalone();
        ObjectNode review = (ObjectNode) Https.file(Https.ADMISSION.resolve("requests/tp4.json"));
        ((ObjectNode) review.get("request")).put("uid", "metrics-1");
        Https.postReview("/mutate", review);
        System.gc(); // Micrometer holds gauge state weakly: capacity gauges must survive a collection
        String text = RestAssured.given().baseUri(management()).port(-1).get("/q/metrics").asString();
        for (String name : new String[] {"ace_admission_requests_total{dry_run=\"false\",operation=\"CREATE\",outcome=\"placed\",webhook=\"mutate\"}",
                "ace_admission_duration_seconds_bucket", "ace_placement_decisions_total{class=\"inference\",reason=\"none\",result=\"placed\"}",
                "ace_placement_decision_seconds_count", "ace_nvlink_domains{pool=\"inference\",state=\"clean\"}",
                "ace_nvlink_domains{pool=\"inference\",state=\"fragmented\"}", "ace_gpus{pool=\"inference\",state=\"free\"}",
                "ace_fragmentation_ratio{pool=\"inference\"}", "ace_pending_tp_demand{tp=\"8\"}", "ace_ledger_conflicts_total",
                "ace_reservations_expired_total", "ace_binding_drift_total{kind=\"moved\"}"}) {
            assertTrue(text.contains(name), name + " missing from\n" + text.lines().filter(l -> l.startsWith("ace_")).toList());
        }
        assertTrue(text.lines().anyMatch(l -> l.equals("ace_gpus{pool=\"inference\",state=\"used\"} 4.0")),
                text.lines().filter(l -> l.startsWith("ace_gpus")).toList().toString());
        text.lines().filter(l -> l.startsWith("ace_")).forEach(l -> {
            assertFalse(l.endsWith("NaN"), l);
            assertFalse(l.contains("hgx-") || l.contains("namespace") || l.contains("pod="), l);
        });
    }
}
