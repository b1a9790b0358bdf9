package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.cluster.ClusterBootstrap;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The API server calls webhooks over HTTP/2: a body over 7 MiB gets its 413 there too, on its own
 * stream, and the connection keeps serving the admissions that share it.
 */
@QuarkusTest
class Http2LimitsTest {
    @Inject
    ClusterBootstrap bootstrap;

    @BeforeEach
    void fresh() { bootstrap.loadStandalone(); }

    private static byte[] big() {
        byte[] b = new byte[8 * 1024 * 1024];
        Arrays.fill(b, (byte) ' ');
        return b;
    }

    private static HttpRequest post(String path, HttpRequest.BodyPublisher body) {
        return HttpRequest.newBuilder(URI.create(Https.baseUrl() + path)).header("Content-Type", "application/json").POST(body).build();
    }

    private static byte[] tp2() throws Exception {
        return Files.readAllBytes(Https.ADMISSION.resolve("requests/tp2.json"));
    }

    @Test
    void an_http2_body_over_7_mib_gets_413_and_the_connection_serves_the_next_admission() throws Exception {
        HttpClient client = Https.jdkClient(HttpClient.Version.HTTP_2);
        HttpResponse<String> tooBig = client.send(post("/mutate", HttpRequest.BodyPublishers.ofByteArray(big())),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(HttpClient.Version.HTTP_2, tooBig.version());
        assertEquals(413, tooBig.statusCode(), tooBig.body());
        assertEquals("{\"code\":413,\"message\":\"body of 8388608 bytes is over the 7 MiB limit\"}", tooBig.body());
        HttpResponse<String> next = client.send(post("/mutate", HttpRequest.BodyPublishers.ofByteArray(tp2())),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, next.statusCode(), next.body());
        assertTrue(next.body().contains("\"patch\""), next.body());
    }

    @Test
    void an_http2_body_without_a_length_is_bounded_too() throws Exception {
        HttpClient client = Https.jdkClient(HttpClient.Version.HTTP_2);
        HttpResponse<String> tooBig = client.send(post("/validate", HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big()))),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(413, tooBig.statusCode(), tooBig.body());
        assertTrue(tooBig.body().contains("over the 7 MiB limit"), tooBig.body());
        byte[] review = tp2();
        HttpResponse<String> small = client.send(post("/mutate", HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(review))),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, small.statusCode(), small.body());
        assertTrue(small.body().contains("\"patch\""), "a streamed review is answered like any other: " + small.body());
    }
}
