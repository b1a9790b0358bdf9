package dev.ace.binpacker.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Open-loop load against a running {@code serve}: dry-run TP admission reviews at a fixed rate over
 * keep-alive HTTPS connections (as kube-apiserver reuses its connections), then the server's own
 * time per request from the {@code ace_admission_duration_seconds} histogram scraped before and
 * after from the management port. Used by {@code bench/load.sh}; not a test.
 *
 * <p>Arguments: {@code HTTPS_BASE MANAGEMENT_BASE RATE SECONDS REVIEW.json...}
 */
public final class LoadClient {
    private static final Pattern BUCKET = Pattern.compile(
            "^ace_admission_duration_seconds_bucket\\{[^}]*le=\"([^\"]+)\"[^}]*webhook=\"mutate\"[^}]*}\\s+(\\S+)$|"
            + "^ace_admission_duration_seconds_bucket\\{[^}]*webhook=\"mutate\"[^}]*le=\"([^\"]+)\"[^}]*}\\s+(\\S+)$");

    private LoadClient() {}

    public static void main(String[] args) throws Exception {
        String https = args[0], management = args[1];
        int rate = Integer.parseInt(args[2]), seconds = Integer.parseInt(args[3]);
        ObjectMapper json = new ObjectMapper();
        List<ObjectNode> templates = new ArrayList<>();
        for (int i = 4; i < args.length; i++) {
            ObjectNode review = (ObjectNode) json.readTree(Files.readString(Path.of(args[i])));
            ((ObjectNode) review.get("request")).put("dryRun", true); // nothing reserved: every request makes the full decision
            templates.add(review);
        }
        int n = rate * seconds;
        byte[][] bodies = new byte[n][];
        for (int i = 0; i < n; i++) {
            ObjectNode r = templates.get(i % templates.size()).deepCopy();
            ((ObjectNode) r.get("request")).put("uid", "load-" + i);
            bodies[i] = json.writeValueAsBytes(r);
        }
        // This JVM's own warm-up (JIT, 16 TLS handshakes at once): measured from a cold client, the first
        // second was late by up to 0.5 s and made the client p99, whatever the server did.
        OpenLoopHttps.run(https + "/mutate", Arrays.copyOf(bodies, Math.min(n, rate * 5)), rate, 16, i -> { });
        TreeMap<Double, Double> before = buckets(management);
        long[] lat = OpenLoopHttps.run(https + "/mutate", bodies, rate, 16, i -> { });
        TreeMap<Double, Double> after = buckets(management);
        long[] s = lat.clone();
        Arrays.sort(s);
        System.out.printf(Locale.ROOT, "LOAD %d dry-run TP reviews offered at %d/s for %d s, open loop, 16 keep-alive connections%n", n, rate, seconds);
        System.out.printf(Locale.ROOT, "client (from the scheduled send time)  p50=%.3f ms  p99=%.3f ms  p99.9=%.3f ms  max=%.3f ms%n",
                s[n / 2] / 1e6, s[(int) (n * 0.99)] / 1e6, s[(int) (n * 0.999)] / 1e6, s[n - 1] / 1e6);
        serverSide(before, after);
        System.out.printf(Locale.ROOT, "load average now: %.2f%n", java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    /** Cumulative bucket counts of the mutate webhook's duration histogram, by upper bound in seconds. */
    static TreeMap<Double, Double> buckets(String management) throws Exception {
        HttpClient c = HttpClient.newHttpClient();
        String text = c.send(HttpRequest.newBuilder(URI.create(management + "/q/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
        TreeMap<Double, Double> out = new TreeMap<>();
        for (String line : text.split("\n")) {
            Matcher m = BUCKET.matcher(line.trim());
            if (!m.matches()) continue;
            String le = m.group(1) != null ? m.group(1) : m.group(3);
            String v = m.group(2) != null ? m.group(2) : m.group(4);
            out.put(le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le), Double.parseDouble(v));
        }
        return out;
    }

    private static void serverSide(TreeMap<Double, Double> before, TreeMap<Double, Double> after) {
        double total = after.lastEntry().getValue() - before.getOrDefault(after.lastKey(), 0.0);
        Double p50 = null, p99 = null;
        for (var e : after.entrySet()) {
            double c = e.getValue() - before.getOrDefault(e.getKey(), 0.0);
            if (p50 == null && c >= total * 0.5) p50 = e.getKey();
            if (p99 == null && c >= total * 0.99) p99 = e.getKey();
        }
        System.out.printf(Locale.ROOT, "server-side handler (histogram bucket upper bounds)  p50<=%.3f ms  p99<=%.3f ms  over %.0f requests%n",
                p50 * 1000, p99 * 1000, total);
    }
}
