package dev.ace.binpacker.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ace.binpacker.admission.AdmissionEngine;
import dev.ace.binpacker.admission.AdmissionRequest;
import dev.ace.binpacker.admission.ReviewCodec;
import dev.ace.binpacker.cluster.ClusterBootstrap;
import dev.ace.binpacker.cluster.Fleet;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Admission latency at a fixed request rate (open loop), not a test: run with
 * {@code mvn -o test -Dtest=AdmissionLoadRun -Dload.run=true [-Dload.rate=500 -Dload.seconds=10]}.
 * Two figures: the handler in-process (decode, classify, place, patch, encode; no HTTP) and the
 * full HTTPS round trip over loopback. Each admitted pod "leaves" right after its answer
 * (reservation released) so the cluster stays in a steady state with the same mix.
 */
@QuarkusTest
class AdmissionLoadRun {
    @Inject
    ClusterBootstrap bootstrap;
    @Inject
    Fleet fleet;
    @Inject
    AdmissionEngine engine;
    @Inject
    ReviewCodec codec;
    @Inject
    io.micrometer.core.instrument.MeterRegistry registry;

    private static final String[] MIX = {"tp2", "tp4", "tp8", "inference-1gpu", "embedding", "eval-job-1gpu", "notebook", "tp2", "tp4", "no-gpus"};

    @Test
    void latency_at_a_fixed_rate() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("load.run"), "load run: pass -Dload.run=true");
        int rate = Integer.getInteger("load.rate", 500);
        int seconds = Integer.getInteger("load.seconds", 10);
        int n = rate * seconds;
        bootstrap.loadStandalone();
        List<JsonNode> templates = new ArrayList<>();
        for (String m : MIX) templates.add(Https.file(Https.ADMISSION.resolve("requests/" + m + ".json")));

        warmUp(templates);
        System.out.printf("%nLOAD RUN  rate=%d/s  requests=%d per mode  cores=%d%n", rate, n, Runtime.getRuntime().availableProcessors());
        report("in-process handler", inProcess(templates, n, rate));
        io.micrometer.core.instrument.Timer timer = registry.find("ace_admission_duration").tag("webhook", "mutate").timer();
        var before = timer == null ? null : timer.takeSnapshot();
        report("HTTPS round trip  ", overHttps(templates, n, rate));
        timer = registry.find("ace_admission_duration").tag("webhook", "mutate").timer();
        if (timer != null) serverSide(before, timer.takeSnapshot());
        System.out.printf("load average after the run: %.2f%n", java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    private void warmUp(List<JsonNode> templates) throws Exception {
        for (int i = 0; i < 5000; i++) handleOnce(templates, i, "warm-");
        bootstrap.loadStandalone();
    }

    private long handleOnce(List<JsonNode> templates, int i, String prefix) throws Exception {
        ObjectNode review = templates.get(i % templates.size()).deepCopy();
        ((ObjectNode) review.get("request")).put("uid", prefix + i);
        byte[] body = review.toString().getBytes();
        long t0 = System.nanoTime();
        AdmissionRequest req = codec.decode(codec.mapper().readTree(body));
        String out = codec.complete(req.uid(), req.apiVersion(), engine.mutate(req)).toString();
        long took = System.nanoTime() - t0;
        if (out.isEmpty()) throw new AssertionError();
        fleet.allocator().release(req.uid());
        engine.policy().pending().remove(req.uid());
        return took;
    }

    private long[] inProcess(List<JsonNode> templates, int n, int rate) throws Exception {
        long[] lat = new long[n];
        long period = 1_000_000_000L / rate;
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            long due = start + i * period;
            while (System.nanoTime() < due) LockSupport.parkNanos(Math.max(1, due - System.nanoTime()));
            handleOnce(templates, i, "inproc-");
            lat[i] = System.nanoTime() - due; // from the scheduled time: a slow call delays the next ones, and that counts
        }
        return lat;
    }

    /** 16 keep-alive HTTPS connections at a fixed rate ({@link dev.ace.binpacker.bench.OpenLoopHttps}); each pod "leaves" after its answer. */
    private long[] overHttps(List<JsonNode> templates, int n, int rate) throws Exception {
        int connections = 16;
        byte[][] bodies = new byte[n][];
        for (int i = 0; i < n; i++) {
            ObjectNode review = templates.get(i % templates.size()).deepCopy();
            ((ObjectNode) review.get("request")).put("uid", "https-" + i);
            bodies[i] = review.toString().getBytes();
        }
        return dev.ace.binpacker.bench.OpenLoopHttps.run(Https.baseUrl() + "/mutate", bodies, rate, connections, i -> {
            fleet.allocator().release("https-" + i);
            engine.policy().pending().remove("https-" + i);
        });
    }

    /** The engine's own time per request during the HTTPS phase, from the ace_admission_duration_seconds histogram buckets. */
    private static void serverSide(io.micrometer.core.instrument.distribution.HistogramSnapshot before,
                                   io.micrometer.core.instrument.distribution.HistogramSnapshot after) {
        var b = after.histogramCounts();
        double total = after.count() - (before == null ? 0 : before.count());
        double p50 = Double.NaN;
        double p99 = Double.NaN;
        for (int i = 0; i < b.length; i++) {
            double prior = before == null ? 0 : before.histogramCounts()[i].count();
            double c = b[i].count() - prior;
            if (Double.isNaN(p50) && c >= total * 0.5) p50 = b[i].bucket(java.util.concurrent.TimeUnit.MILLISECONDS);
            if (Double.isNaN(p99) && c >= total * 0.99) p99 = b[i].bucket(java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        System.out.printf("server-side handler (histogram bucket upper bounds)  p50<=%.3f ms  p99<=%.3f ms  over %.0f requests%n", p50, p99, total);
    }

    private static void report(String what, long[] lat) {
        long[] s = lat.clone();
        Arrays.sort(s);
        System.out.printf("%s  p50=%.3f ms  p99=%.3f ms  p99.9=%.3f ms  max=%.3f ms%n", what,
                s[s.length / 2] / 1e6, s[(int) (s.length * 0.99)] / 1e6, s[(int) (s.length * 0.999)] / 1e6, s[s.length - 1] / 1e6);
    }
}
