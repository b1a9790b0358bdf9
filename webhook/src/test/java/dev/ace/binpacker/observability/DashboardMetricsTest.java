package dev.ace.binpacker.observability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.cluster.ClusterBootstrap;
import dev.ace.binpacker.web.Https;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * Every ace_* metric the Grafana dashboard and the alert rules in deploy/monitoring query is exported
 * by the running server after real admissions, and every ace_* family carries HELP text.
 */
@QuarkusTest
class DashboardMetricsTest {
    private static final Pattern METRIC = Pattern.compile("\\b(ace_[a-z0-9_]+)\\b");
    private static final Path MONITORING = Path.of("deploy", "monitoring");

    @Inject
    ClusterBootstrap bootstrap;
    @Inject
    PendingDemand pending;
    @Inject
    Readiness readiness;

    private static String scrape() {
        int port = ConfigProvider.getConfig().getOptionalValue("quarkus.management.test-port", Integer.class).orElse(9001);
        return RestAssured.given().baseUri("http://localhost:" + port).port(-1).get("/q/metrics").asString();
    }

    private static void post(String path, String golden, String uid) {
        ObjectNode review = (ObjectNode) Https.file(Https.ADMISSION.resolve("requests/" + golden + ".json"));
        ((ObjectNode) review.get("request")).put("uid", uid);
        Https.postReview(path, review);
    }

    /** Admissions that touch every family: placed, sliced, denied, gated (a TP 8 pod waits), a workload refused. */
    private void admitSome() throws InterruptedException {
        // The warm-up runs in the background after start and its reviews are not counted (WarmUpNotCountedTest); waiting
        // for it keeps its work on the allocator out of this test's inventory.
        while (!readiness.isReady(Readiness.WARM_UP)) Thread.sleep(20); // surefire bounds the test
        bootstrap.loadStandalone();
        pending.clear();
        post("/mutate", "tp4", "dash-tp4");
        post("/mutate", "embedding", "dash-embedding");
        post("/mutate", "fracturing-enforce", "dash-fracturing");
        post("/validate", "fracturing-enforce", "dash-fracturing-v");
        post("/validate-workloads", "workload-job-fracturing", "dash-job");
        for (int i = 0; i < 3; i++) post("/mutate", "tp8", "dash-fill-" + i);
        post("/mutate", "pool-full-gated", "dash-gated");
    }

    /** Queried metric names of the dashboard's and the rules' expressions. */
    static Set<String> queried() throws Exception {
        Set<String> names = new TreeSet<>();
        JsonNode dashboard = new ObjectMapper().readTree(Files.readAllBytes(MONITORING.resolve("grafana-dashboard.json")));
        dashboard.findValues("expr").forEach(e -> names.addAll(metrics(e.asText())));
        JsonNode rules = new ObjectMapper(new YAMLFactory()).readTree(Files.readAllBytes(MONITORING.resolve("prometheusrule.yaml")));
        rules.findValues("expr").forEach(e -> names.addAll(metrics(e.asText())));
        return names;
    }

    private static Set<String> metrics(String expr) {
        Set<String> out = new TreeSet<>();
        Matcher m = METRIC.matcher(expr);
        while (m.find()) out.add(m.group(1));
        return out;
    }

    @Test
    void every_metric_the_dashboard_and_the_alerts_query_is_exported_after_real_admissions() throws Exception {
        admitSome();
        String text = scrape();
        Set<String> samples = new TreeSet<>();
        text.lines().filter(l -> l.startsWith("ace_")).forEach(l -> samples.add(l.split("[{ ]", 2)[0]));
        Set<String> queried = queried();
        assertTrue(queried.size() >= 12, "the dashboard and rules query ACE's metrics: " + queried);
        for (String q : queried) {
            assertTrue(samples.contains(q), q + " is queried by deploy/monitoring but not exported; exported: " + samples);
        }
        // tp4 took half a board, so the third TP 8 replica found no free 8-clique and waits behind the gate.
        assertTrue(text.contains("ace_pending_tp_demand{tp=\"8\"} 1.0"), "a gated TP 8 pod is counted");
        List<String> gated = text.lines().filter(l -> l.startsWith("ace_placement_decisions_total") && l.contains("result=\"gated\"")).toList();
        assertTrue(!gated.isEmpty() && gated.stream().allMatch(l -> l.contains("reason=\"too_few_free_gpus\"") || l.contains("reason=\"no_free_clique\"")),
                "a gated pod counts what it waits for, not the first node filter (wrong_pool): " + gated);
    }

    @Test
    void every_ace_metric_family_has_help_text() throws Exception {
        admitSome();
        Map<String, String> help = new HashMap<>();
        String text = scrape();
        text.lines().filter(l -> l.startsWith("# HELP ace_")).forEach(l -> {
            String[] p = l.substring("# HELP ".length()).split(" ", 2);
            help.put(p[0], p.length > 1 ? p[1].strip() : "");
        });
        assertTrue(help.size() >= 12, help.keySet().toString());
        help.forEach((name, h) -> assertFalse(h.isEmpty(), name + " has no HELP text"));
        text.lines().filter(l -> l.startsWith("ace_")).map(l -> l.split("[{ ]", 2)[0]).forEach(sample ->
                assertTrue(help.keySet().stream().anyMatch(sample::startsWith), sample + " belongs to no family with HELP"));
        assertEquals("1.0", text.lines().filter(l -> l.startsWith("ace_ready ")).findFirst().orElseThrow().split(" ")[1]);
    }
}
