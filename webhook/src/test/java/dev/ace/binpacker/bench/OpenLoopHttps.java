package dev.ace.binpacker.bench;

import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

/**
 * Keep-alive HTTPS senders at a fixed rate, open loop: each of {@code connections} threads takes
 * every {@code connections}-th request of the schedule in turn, as an API server's connection pool
 * does; latency counts from the scheduled send time. Blocking HttpsURLConnection, not the async JDK
 * HttpClient: the latter's single selector thread, on 2 cores, could not keep up with 500/s and
 * measured itself. The server's self-signed certificate is trusted as is (a load tool, never a test
 * of TLS). Shared by {@link LoadClient} and the in-process {@code AdmissionLoadRun}.
 */
public final class OpenLoopHttps {
    private OpenLoopHttps() {}

    /**
     * Posts {@code bodies} to {@code url} at {@code rate} per second; {@code afterEach} runs with the
     * request's index once its answer (HTTP 200, else an error) is read. Returns each latency in ns.
     */
    public static long[] run(String url, byte[][] bodies, int rate, int connections, IntConsumer afterEach) throws Exception {
        int n = bodies.length;
        long[] lat = new long[n];
        javax.net.ssl.SSLContext tls = javax.net.ssl.SSLContext.getInstance("TLS");
        tls.init(null, new javax.net.ssl.TrustManager[] {new javax.net.ssl.X509TrustManager() {
            @Override public void checkClientTrusted(java.security.cert.X509Certificate[] c, String a) {}
            @Override public void checkServerTrusted(java.security.cert.X509Certificate[] c, String a) {}
            @Override public java.security.cert.X509Certificate[] getAcceptedIssuers() { return new java.security.cert.X509Certificate[0]; }
        }}, null);
        // One factory and one verifier for all connections: the keep-alive cache is keyed by them.
        javax.net.ssl.SSLSocketFactory factory = tls.getSocketFactory();
        javax.net.ssl.HostnameVerifier anyHost = (h, sess) -> true;
        java.net.URL u = URI.create(url).toURL();
        long period = 1_000_000_000L / rate;
        long start = System.nanoTime() + 200_000_000L;
        List<Thread> threads = new ArrayList<>();
        List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < connections; t++) {
            int first = t;
            Thread th = new Thread(() -> {
                try {
                    for (int i = first; i < n; i += connections) {
                        long due = start + i * period;
                        while (System.nanoTime() < due) LockSupport.parkNanos(Math.max(1, due - System.nanoTime()));
                        javax.net.ssl.HttpsURLConnection c = (javax.net.ssl.HttpsURLConnection) u.openConnection();
                        c.setSSLSocketFactory(factory);
                        c.setHostnameVerifier(anyHost);
                        c.setRequestMethod("POST");
                        c.setDoOutput(true);
                        c.setRequestProperty("Content-Type", "application/json");
                        c.getOutputStream().write(bodies[i]);
                        if (c.getResponseCode() != 200) throw new IllegalStateException("HTTP " + c.getResponseCode());
                        c.getInputStream().readAllBytes(); // drained, so the connection is kept alive
                        lat[i] = System.nanoTime() - due;
                        afterEach.accept(i);
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            th.start();
            threads.add(th);
        }
        for (Thread th : threads) th.join(TimeUnit.MINUTES.toMillis(10));
        if (!errors.isEmpty()) throw new IllegalStateException(errors.get(0));
        return lat;
    }
}
