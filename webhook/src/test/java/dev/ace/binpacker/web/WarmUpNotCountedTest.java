package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ace.binpacker.cluster.ClusterBootstrap;
import dev.ace.binpacker.observability.MetricNames;
import dev.ace.binpacker.observability.Readiness;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Issue 18: the warm-up's own reviews stay out of the admission and placement metrics users read, one request at a
 * time: a review is left out only when it carries this replica's warm-up secret. A real review that arrives while the
 * warm-up runs is counted, and a caller that names itself warm-up (a guessed header, a "warm-up" uid) is counted too.
 */
@QuarkusTest
class WarmUpNotCountedTest {
    @Inject
    MeterRegistry registry;
    @Inject
    WarmUpMark mark;
    @Inject
    ClusterBootstrap bootstrap;
    @Inject
    Readiness readiness;

    private double admissions() {
        return registry.find(MetricNames.ADMISSION_REQUESTS).tag("webhook", "mutate").counters().stream().mapToDouble(c -> c.count()).sum();
    }

    private double decisions() {
        return registry.find(MetricNames.PLACEMENT_DECISIONS).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    private int post(String uid, String header) {
        ObjectNode review = (ObjectNode) Https.file(Https.ADMISSION.resolve("requests/dry-run.json"));
        ((ObjectNode) review.get("request")).put("uid", uid);
        RestAssured.useRelaxedHTTPSValidation();
        var spec = RestAssured.given().baseUri(Https.baseUrl()).port(-1).contentType("application/json");
        if (header != null) spec = spec.header(WarmUpMark.HEADER, header);
        return spec.body(review.toString().getBytes()).when().post("/mutate").statusCode();
    }

    @Test
    void only_reviews_carrying_the_replicas_own_warm_up_secret_are_left_out() throws InterruptedException {
        while (!readiness.isReady(Readiness.WARM_UP)) Thread.sleep(20); // the warm-up's own reviews finish first; surefire bounds the test
        bootstrap.loadStandalone();
        double a0 = admissions();
        double d0 = decisions();
        assertEquals(200, post("warm-up-1", mark.value()));
        assertEquals(a0, admissions(), "the warm-up's review is not counted");
        assertEquals(d0, decisions());

        assertEquals(200, post("warm-up-2", "warm-up"));
        assertEquals(200, post("warm-up-3", mark.value() + "x"));
        assertEquals(200, post("ordinary", null));
        assertEquals(a0 + 3, admissions(), "a guessed header or a warm-up uid is counted like any review");
        assertEquals(d0 + 3, decisions());
    }
}
