package dev.ace.binpacker.web;

import dev.ace.binpacker.observability.Readiness;
import io.quarkus.vertx.http.HttpsServerStart;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Readiness waits until the HTTPS handler has answered dry-run AdmissionReviews posted to itself over
 * TLS and HTTP/2, as the API server calls it: on a real cluster 10 of 50 concurrent pods failed open
 * right after start (5 s webhook timeout) while the handler was never slow once warm. Dry-run reserves
 * nothing, and none of the warm-up's requests is counted in the admission or placement metrics users read.
 */
@ApplicationScoped
public class WarmUp {
    private static final Logger LOG = Logger.getLogger(WarmUp.class);

    @Inject
    Readiness readiness;

    @Inject
    AdmissionEndpoint endpoint;

    @Inject
    WarmUpMark mark;

    /** Dry-run reviews posted before readiness goes up: enough for the JIT to compile the TLS and admission path. */
    @ConfigProperty(name = "ace.warm-up.requests", defaultValue = "200")
    int requests;

    /** Parallel connections, as the API server opens several. */
    @ConfigProperty(name = "ace.warm-up.concurrency", defaultValue = "4")
    int concurrency;

    /** Quarkus fires this asynchronously once the HTTPS server listens. */
    void onHttps(@ObservesAsync HttpsServerStart started) {
        int port = started.options().getPort();
        if (port <= 0) { // a random port (tests): Quarkus publishes the one it got in configuration
            String key = io.quarkus.runtime.LaunchMode.current() == io.quarkus.runtime.LaunchMode.TEST ? "quarkus.http.test-ssl-port" : "quarkus.http.ssl-port";
            port = org.eclipse.microprofile.config.ConfigProvider.getConfig().getOptionalValue(key, Integer.class).orElse(8443);
        }
        int p = port;
        Thread t = new Thread(() -> run(p), "ace-warm-up");
        t.setDaemon(true);
        t.start();
    }

    void run(int port) { warm(port); }

    private void warm(int port) {
        byte[] review = template();
        for (int attempt = 0; ; attempt++) {
            try {
                if (MutualTls.clientCa().isPresent()) {
                    int ok = inProcess(review);
                    handshakes(port);
                    readiness.ready(Readiness.WARM_UP, true);
                    LOG.infof("admission handler warmed up in-process with %d dry-run reviews (mutual TLS is on: this replica "
                            + "has no client certificate of its own, so only TLS handshakes went over the port)", ok);
                    return;
                }
                int ok = post(URI.create("https://localhost:" + port + "/mutate"), review);
                readiness.ready(Readiness.WARM_UP, true);
                LOG.infof("HTTPS handler warmed up with %d dry-run reviews", ok);
                return;
            } catch (Exception e) {
                readiness.failed(Readiness.WARM_UP, e.getMessage());
                LOG.warnf("warm-up failed (%s); trying again", e.getMessage());
                try {
                    Thread.sleep(Math.min(30_000, 500L << Math.min(attempt, 6)));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private int post(URI uri, byte[] review) throws Exception {
        HttpClient client = HttpClient.newBuilder().sslContext(trustSelf()).sslParameters(noHostnameCheck())
                .version(HttpClient.Version.HTTP_2).connectTimeout(Duration.ofSeconds(5)).build();
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, concurrency));
        AtomicInteger next = new AtomicInteger();
        try {
            java.util.List<Future<Integer>> done = new java.util.ArrayList<>();
            for (int w = 0; w < Math.max(1, concurrency); w++) {
                done.add(pool.submit(() -> {
                    int n = 0;
                    for (int i = next.getAndIncrement(); i < requests; i = next.getAndIncrement()) {
                        String body = new String(review, StandardCharsets.UTF_8).replace("\"warm-up\"", "\"warm-up-" + i + "\"");
                        HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                                .header("Content-Type", "application/json").header(WarmUpMark.HEADER, mark.value()).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                                HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() != 200) throw new IOException("warm-up review answered HTTP " + r.statusCode() + ": " + r.body());
                        n++;
                    }
                    return n;
                }));
            }
            int total = 0;
            for (Future<Integer> f : done) total += f.get();
            return total;
        } finally {
            pool.shutdownNow();
        }
    }

    /** The same handler the HTTPS route calls, with the same bodies: JSON decode, decision, patch, encode. */
    private int inProcess(byte[] review) throws IOException {
        for (int i = 0; i < requests; i++) {
            String body = new String(review, StandardCharsets.UTF_8).replace("\"warm-up\"", "\"warm-up-" + i + "\"");
            AdmissionEndpoint.Reply r = endpoint.answer("mutate", "application/json", body.getBytes(StandardCharsets.UTF_8), mark.value());
            if (r.status() != 200) throw new IOException("warm-up review answered HTTP " + r.status() + ": " + r.json());
        }
        return requests;
    }

    /** Server-side TLS handshakes up to the client-certificate check; the refusal is the expected answer. */
    private void handshakes(int port) {
        for (int i = 0; i < Math.max(1, concurrency) * 4; i++) {
            try (var socket = (javax.net.ssl.SSLSocket) trustSelf().getSocketFactory().createSocket("localhost", port)) {
                socket.setSoTimeout(5_000);
                socket.startHandshake();
                socket.getOutputStream().write(1);
                socket.getInputStream().read();
            } catch (Exception expected) {
                // refused for want of a client certificate: the handshake code ran on the server
            }
        }
    }

    private static byte[] template() {
        try (InputStream in = WarmUp.class.getResourceAsStream("/ace/warm-up-review.json")) {
            if (in == null) throw new IllegalStateException("ace/warm-up-review.json is missing from the application");
            return in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The certificate is the replica's own (often for the Service name, not localhost); the request carries no secret. */
    private static SSLContext trustSelf() throws Exception {
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, new TrustManager[] {new X509TrustManager() {
            @Override public void checkClientTrusted(X509Certificate[] c, String a) { }
            @Override public void checkServerTrusted(X509Certificate[] c, String a) { }
            @Override public X509Certificate[] getAcceptedIssuers() { return new X509Certificate[0]; }
        }}, new SecureRandom());
        return ctx;
    }

    private static SSLParameters noHostnameCheck() {
        SSLParameters p = new SSLParameters();
        p.setEndpointIdentificationAlgorithm(null);
        return p;
    }
}
