package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ace.binpacker.cluster.ClusterBootstrap;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 34: idle TCP connections and handshaken TLS connections that send nothing are closed by the webhook (they held
 * every {@code max-connections} slot for the 120 s idle timeout before), a fresh connection's review is answered, and a
 * keep-alive connection that sends a review now and then, less often than the first-request timeout, stays open.
 */
@QuarkusTest
@TestProfile(ConnectionExhaustionTest.Short.class)
class ConnectionExhaustionTest {
    /** Slots fewer than the idle handshaken connections, and timeouts short enough for a test. */
    public static class Short implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.http.limits.max-connections", "48",
                    "ace.connections.first-request-timeout", "1s", "ace.connections.handshake-timeout", "2s");
        }
    }

    static final int RAW = 300;
    static final int HANDSHAKEN = 60;
    /** Longer than the first-request timeout: a keep-alive connection that kept the short timeout would be closed. */
    static final long KEEP_ALIVE_EVERY_MS = 2_500;

    @Inject
    ClusterBootstrap bootstrap;

    @BeforeEach
    void fresh() { bootstrap.loadStandalone(); }

    @Test
    void idle_and_silent_connections_are_closed_a_fresh_review_is_answered_and_a_keep_alive_connection_stays() throws Exception {
        byte[] review = Files.readAllBytes(Https.ADMISSION.resolve("requests/tp2.json"));
        URI base = URI.create(Https.baseUrl());
        SSLSocket keepAlive = tls(base);
        List<Socket> idle = new ArrayList<>();
        List<String> keepAliveFailures = new CopyOnWriteArrayList<>();
        AtomicInteger keepAliveAnswers = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        Thread pinger = new Thread(() -> {
            try {
                while (!stop.get()) {
                    int status = exchange(keepAlive, review);
                    if (status != 200) keepAliveFailures.add("HTTP " + status);
                    keepAliveAnswers.incrementAndGet();
                    Thread.sleep(KEEP_ALIVE_EVERY_MS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException e) {
                keepAliveFailures.add(e.toString());
            }
        }, "keep-alive");
        try {
            pinger.start();
            for (int i = 0; i < RAW; i++) idle.add(new Socket(base.getHost(), base.getPort()));
            for (int i = 0; i < HANDSHAKEN; i++) {
                try {
                    idle.add(tls(base));
                } catch (IOException e) {
                    // a handshake the server ended (over max-connections) is a closed connection too
                }
            }
            int closed = 0;
            for (Socket s : idle) {
                s.setSoTimeout(30_000); // bounded: the server closes each within its handshake or first-request timeout
                try {
                    if (s.getInputStream().read() == -1) closed++;
                } catch (SocketTimeoutException e) {
                    throw new AssertionError("an idle connection was still open after 30 s", e);
                } catch (IOException e) {
                    closed++; // reset by the server
                }
            }
            assertEquals(idle.size(), closed, "every idle connection is closed by the webhook");
            int before = keepAliveAnswers.get();
            while (keepAliveAnswers.get() < before + 2 && keepAliveFailures.isEmpty() && pinger.isAlive()) Thread.sleep(100);
            assertTrue(keepAliveFailures.isEmpty(), "the keep-alive connection kept working: " + keepAliveFailures);
            assertTrue(keepAliveAnswers.get() >= 3, "the keep-alive connection answered across idle gaps: " + keepAliveAnswers.get());

            HttpClient client = Https.jdkClient();
            HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(URI.create(Https.baseUrl() + "/mutate"))
                    .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(review)).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, r.statusCode(), new String(r.body(), StandardCharsets.UTF_8));
            JsonNode answer = Https.read(r.body()).path("response");
            assertTrue(answer.path("allowed").isBoolean(), answer.toString());
        } finally {
            stop.set(true);
            pinger.interrupt();
            pinger.join(10_000);
            keepAlive.close();
            for (Socket s : idle) s.close();
        }
    }

    private static SSLSocket tls(URI base) throws IOException {
        try {
            javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
            ctx.init(null, new javax.net.ssl.TrustManager[] {new javax.net.ssl.X509TrustManager() {
                @Override public void checkClientTrusted(java.security.cert.X509Certificate[] c, String a) {}
                @Override public void checkServerTrusted(java.security.cert.X509Certificate[] c, String a) {}
                @Override public java.security.cert.X509Certificate[] getAcceptedIssuers() { return new java.security.cert.X509Certificate[0]; }
            }}, new java.security.SecureRandom());
            SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(base.getHost(), base.getPort());
            s.startHandshake();
            return s;
        } catch (java.security.GeneralSecurityException e) {
            throw new AssertionError(e);
        }
    }

    /** One HTTP/1.1 keep-alive POST /mutate on {@code s}; returns the status after reading the whole response. */
    private static int exchange(SSLSocket s, byte[] body) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(("POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: " + body.length
                + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        InputStream in = s.getInputStream();
        String head = line(in);
        if (head == null) throw new IOException("the keep-alive connection was closed by the server");
        int status = Integer.parseInt(head.split(" ")[1]);
        long length = -1;
        boolean chunked = false;
        for (String h = line(in); h != null && !h.isEmpty(); h = line(in)) {
            String lower = h.toLowerCase(java.util.Locale.ROOT);
            if (lower.startsWith("content-length:")) length = Long.parseLong(lower.substring(15).trim());
            if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) chunked = true;
        }
        if (chunked) {
            for (long n = Long.parseLong(line(in).trim(), 16); n > 0; n = Long.parseLong(line(in).trim(), 16)) {
                in.readNBytes((int) n);
                line(in);
            }
            line(in);
        } else if (length >= 0) {
            in.readNBytes((int) length);
        }
        return status;
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c = in.read(); c != -1; c = in.read()) {
            if (c == '\n') return b.toString(StandardCharsets.US_ASCII).replace("\r", "");
            b.write(c);
        }
        return b.size() == 0 ? null : b.toString(StandardCharsets.US_ASCII);
    }
}
