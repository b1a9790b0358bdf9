package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.cluster.ClusterBootstrap;
import dev.ace.binpacker.cluster.Fleet;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * With {@code ace.tls.client-ca} set, only a caller presenting a certificate that CA issued (the API
 * server, through its AdmissionConfiguration kubeconfig) gets past the TLS handshake: a flood from
 * anyone else reserves nothing. The management port stays plain HTTP for the kubelet's probes.
 */
@QuarkusTest
@TestProfile(MutualTlsTest.On.class)
class MutualTlsTest {
    public static class On implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() { return Map.of("ace.tls.client-ca", TestPki.CA_PEM.toString()); }
    }

    @Inject
    ClusterBootstrap bootstrap;
    @Inject
    Fleet fleet;

    @BeforeEach
    void fresh() { bootstrap.loadStandalone(); }

    private static HttpRequest review(String uid) throws IOException {
        String body = Files.readString(Https.ADMISSION.resolve("requests/inference-1gpu.json")).replace("11111111-0000-0000-0000-000000000001", uid);
        return HttpRequest.newBuilder(URI.create(Https.baseUrl() + "/mutate")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    @Test
    void the_api_servers_client_certificate_is_admitted() throws Exception {
        HttpResponse<String> r = TestPki.client(TestPki.APISERVER).send(review("mtls-ok"), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.body().contains("\"patch\""), r.body());
        assertEquals(1, fleet.allocator().ledger().size());
    }

    @Test
    void a_flood_without_a_client_certificate_gets_no_reservation() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> calls = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            HttpRequest req = review("flood-" + i);
            HttpClient anonymous = TestPki.client(null);
            calls.add(pool.submit(() -> assertThrows(IOException.class, () -> anonymous.send(req, HttpResponse.BodyHandlers.ofString()),
                    "the handshake refuses a caller without a certificate")));
        }
        for (Future<?> f : calls) f.get(60, TimeUnit.SECONDS);
        pool.shutdown();
        assertEquals(0, fleet.allocator().ledger().size(), "not one GPU reserved");
        assertEquals(200, TestPki.client(TestPki.APISERVER).send(review("after-flood"), HttpResponse.BodyHandlers.ofString()).statusCode());
    }

    @Test
    void a_self_signed_impostor_with_the_api_servers_name_is_refused_too() throws Exception {
        assertThrows(IOException.class, () -> TestPki.client(TestPki.IMPOSTOR).send(review("impostor"), HttpResponse.BodyHandlers.ofString()));
        assertEquals(0, fleet.allocator().ledger().size());
    }

    @Test
    void probes_on_the_management_port_need_no_certificate() {
        int port = ConfigProvider.getConfig().getOptionalValue("quarkus.management.test-port", Integer.class).orElse(9001);
        assertEquals(200, RestAssured.given().baseUri("http://localhost:" + port).port(-1).get("/q/health/live").statusCode());
    }
}
