package dev.ace.binpacker.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.cluster.node.NodeListLoader;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The driver of {@code bench/burst.sh} (a benchmark, not a test): on a real control plane,
 * {@code nodes KUBECONFIG COUNT} creates COUNT HGX H100 Nodes from the demo inventory's GFD label set plus the
 * demo's other nodes, with status (allocatable GPUs, Ready) through the status subresource and the not-ready
 * taint removed as a kubelet's report would; {@code burst KUBECONFIG NAMESPACE PODS CLIENTS METRICS_BEFORE
 * METRICS_AFTER} creates PODS TP 2/4/8 vLLM pods from CLIENTS concurrent clients and reports what was refused,
 * what failed open and what is double-booked (ledger objects and pod annotations), then the API server's own
 * webhook latency from two scrapes of its {@code /metrics} taken around the burst by the script.
 */
public final class BurstRun {
    static final ResourceDefinitionContext LEDGER = new ResourceDefinitionContext.Builder()
            .withGroup(AceKeys.LEDGER_GROUP).withVersion(AceKeys.LEDGER_VERSION).withKind(AceKeys.LEDGER_KIND)
            .withPlural(AceKeys.LEDGER_PLURAL).withNamespaced(false).build();
    private static final ObjectMapper JSON = new ObjectMapper();

    private BurstRun() {}

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "nodes" -> nodes(client(args[1]), Integer.parseInt(args[2]));
            case "burst" -> burst(client(args[1]), args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]));
            case "check" -> System.exit(check(client(args[1]), args[2]));
            case "latency" -> latency(Path.of(args[1]), Path.of(args[2]));
            default -> throw new IllegalArgumentException("nodes | burst | check | latency");
        }
        System.exit(0); // the client's threads would keep the JVM alive
    }

    static KubernetesClient client(String kubeconfig) throws Exception {
        Config c = Config.fromKubeconfig(Files.readString(Path.of(kubeconfig)));
        c.setMaxConcurrentRequests(64);
        c.setMaxConcurrentRequestsPerHost(64);
        c.setRequestTimeout(30_000);
        return new KubernetesClientBuilder().withConfig(c).build();
    }

    static void nodes(KubernetesClient client, int count) throws Exception {
        List<Node> templates = NodeListLoader.demo();
        Node hgx = templates.stream().filter(n -> n.getMetadata().getName().equals("hgx-h100-0")).findFirst().orElseThrow();
        List<Node> all = new ArrayList<>();
        for (Node t : templates) all.add(named(t, t.getMetadata().getName()));
        for (int i = 0; i < count; i++) all.add(named(hgx, String.format("hgx-h100-b%04d", i)));
        ExecutorService pool = Executors.newFixedThreadPool(16);
        List<Future<?>> done = new ArrayList<>();
        for (Node n : all) done.add(pool.submit(() -> { createReady(client, n); return null; }));
        for (Future<?> f : done) f.get();
        pool.shutdown();
        System.out.printf("nodes: %d created and Ready%n", all.size());
    }

    private static Node named(Node t, String name) {
        Map<String, String> labels = new LinkedHashMap<>(t.getMetadata().getLabels());
        labels.put(AceKeys.HOSTNAME, name);
        return new NodeBuilder().withNewMetadata().withName(name).withLabels(labels)
                .withAnnotations(t.getMetadata().getAnnotations()).endMetadata()
                .withSpec(t.getSpec()).build();
    }

    private static void createReady(KubernetesClient client, Node n) {
        Node created;
        try {
            created = client.nodes().resource(n).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) throw e;
            created = client.nodes().withName(n.getMetadata().getName()).get();
        }
        Map<String, String> l = n.getMetadata().getLabels();
        boolean mixedMig = "mixed".equals(l.get("nvidia.com/mig.strategy"));
        Map<String, Quantity> alloc = new TreeMap<>();
        alloc.put("cpu", new Quantity("192"));
        alloc.put("memory", new Quantity("2Ti"));
        alloc.put("pods", new Quantity("110"));
        alloc.put(AceKeys.GPU, new Quantity(mixedMig ? "0" : l.getOrDefault("nvidia.com/gpu.count", "0")));
        for (var e : l.entrySet()) {
            if (mixedMig && e.getKey().startsWith("nvidia.com/mig-") && e.getKey().endsWith(".count")) {
                alloc.put(e.getKey().substring(0, e.getKey().length() - ".count".length()), new Quantity(e.getValue()));
            }
        }
        created.setStatus(new io.fabric8.kubernetes.api.model.NodeStatusBuilder().withCapacity(alloc).withAllocatable(alloc)
                .withConditions(new NodeConditionBuilder().withType("Ready").withStatus("True").withReason("KubeletReady")
                        .withLastHeartbeatTime(java.time.Instant.now().toString()).build()).build());
        client.nodes().resource(created).updateStatus();
        // TaintNodesByCondition added not-ready at create; a Ready report makes the node lifecycle controller drop it.
        client.nodes().withName(n.getMetadata().getName()).edit(x -> {
            if (x.getSpec().getTaints() != null) x.getSpec().getTaints().removeIf(t -> t.getKey().startsWith("node.kubernetes.io/"));
            return x;
        });
    }

    private static Pod pod(String namespace, int client, int i, int tp) {
        return new PodBuilder().withNewMetadata().withNamespace(namespace).withGenerateName("llm-c" + client + "-" + i + "-")
                .endMetadata().withNewSpec().addNewContainer().withName("server").withImage("vllm/vllm-openai:v0.6.3")
                .withArgs("--model", "meta-llama/Llama-3.1-70B-Instruct", "--tensor-parallel-size", String.valueOf(tp))
                .withNewResources().addToLimits(AceKeys.GPU, new Quantity(String.valueOf(tp)))
                .addToLimits("memory", new Quantity("64Gi")).addToRequests(AceKeys.GPU, new Quantity(String.valueOf(tp)))
                .addToRequests("cpu", new Quantity("4")).addToRequests("memory", new Quantity("64Gi")).endResources()
                .endContainer().endSpec().build();
    }

    /** TP 8, 4, 4, 2 in turn: a quarter of the pods take a whole node. */
    static int tp(int i) { return switch (i % 4) { case 0 -> 8; case 3 -> 2; default -> 4; }; }

    static void burst(KubernetesClient client, String namespace, int pods, int clients) throws Exception {
        Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
        Map<String, String> firstRefusal = new ConcurrentHashMap<>();
        List<Long> createMillis = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        AtomicInteger next = new AtomicInteger();
        long t0 = System.nanoTime();
        List<Future<?>> done = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            int client0 = c;
            done.add(pool.submit(() -> {
                for (int i = next.getAndIncrement(); i < pods; i = next.getAndIncrement()) {
                    long s = System.nanoTime();
                    String what;
                    try {
                        client.pods().inNamespace(namespace).resource(pod(namespace, client0, i, tp(i))).create();
                        what = "created";
                    } catch (KubernetesClientException e) {
                        what = "refused-" + e.getCode();
                        firstRefusal.putIfAbsent(what, String.valueOf(e.getStatus() == null ? e.getMessage() : e.getStatus().getMessage()));
                    }
                    createMillis.add((System.nanoTime() - s) / 1_000_000);
                    outcomes.computeIfAbsent(what, k -> new AtomicInteger()).incrementAndGet();
                }
                return null;
            }));
        }
        for (Future<?> f : done) f.get();
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.MINUTES);
        long wall = (System.nanoTime() - t0) / 1_000_000;
        List<Long> sorted = new ArrayList<>(createMillis);
        java.util.Collections.sort(sorted);
        System.out.printf("burst: %d pods from %d clients in %.1f s; outcomes %s%n", pods, clients, wall / 1000.0, new TreeMap<>(outcomes));
        firstRefusal.forEach((k, v) -> System.out.printf("  first %s: %s%n", k, v));
        System.out.printf("client create latency ms: p50 %d  p99 %d  max %d%n", pct(sorted, 0.50), pct(sorted, 0.99), sorted.get(sorted.size() - 1));
    }

    private static long pct(List<Long> sorted, double q) {
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(q * sorted.size()) - 1));
    }

    /**
     * Every pod of the namespace and every ledger object: pods admitted without ACE's reservation or gate (failed
     * open), GPUs held twice in one ledger object, and GPUs two pods' reservation annotations name on one node.
     * Exit status 0 when nothing is wrong.
     */
    static int check(KubernetesClient client, String namespace) throws Exception {
        int failedOpen = 0, reserved = 0, gated = 0, doubleLedger = 0, doublePods = 0, overNode = 0;
        Map<String, Long> podMasks = new HashMap<>();
        Map<String, Integer> nodeGpus = new HashMap<>();
        Map<String, Integer> perNode = new HashMap<>();
        List<Pod> list = client.pods().inNamespace(namespace).list().getItems();
        for (Pod p : list) {
            Map<String, String> a = p.getMetadata().getAnnotations() == null ? Map.of() : p.getMetadata().getAnnotations();
            boolean gate = p.getSpec().getSchedulingGates() != null
                    && p.getSpec().getSchedulingGates().stream().anyMatch(g -> AceKeys.GATE.equals(g.getName()));
            String res = a.get(AceKeys.RESERVATION);
            if (res == null && !gate) { failedOpen++; continue; }
            if (gate) { gated++; continue; }
            reserved++;
            JsonNode r = JSON.readTree(res);
            String node = r.get("node").asText();
            long mask = 0;
            for (JsonNode g : r.get("gpus")) mask |= 1L << g.asInt();
            long before = podMasks.getOrDefault(node, 0L);
            if ((before & mask) != 0) doublePods++;
            podMasks.put(node, before | mask);
            perNode.merge(node, Long.bitCount(mask), Integer::sum);
        }
        for (GenericKubernetesResource doc : client.genericKubernetesResources(LEDGER).list().getItems()) {
            JsonNode tree = JSON.valueToTree(doc.getAdditionalProperties());
            long seen = 0;
            JsonNode entries = tree.path("spec").path("entries");
            for (JsonNode e : entries) {
                long m = 0;
                for (JsonNode g : e.path("gpus")) m |= 1L << g.asInt();
                if ((seen & m) != 0) doubleLedger++;
                seen |= m;
            }
            nodeGpus.put(doc.getMetadata().getName(), Long.bitCount(seen));
        }
        for (var e : perNode.entrySet()) if (e.getValue() > 8) overNode++;
        System.out.printf("pods: %d (reserved %d, gated %d, failed open %d); double-booked GPUs: %d in ledger objects, %d across pod "
                        + "annotations, %d nodes over 8 GPUs; ledger objects with entries: %d%n", list.size(), reserved, gated, failedOpen,
                doubleLedger, doublePods, overNode, nodeGpus.values().stream().filter(v -> v > 0).count());
        return failedOpen + doubleLedger + doublePods + overNode == 0 ? 0 : 1;
    }

    /**
     * p50/p99 (linear inside the bucket, as Prometheus' histogram_quantile) from two scrapes: ACE's webhooks as the API
     * server measured them, the API server's own time for the GpuLedger requests by verb, and the 409s it answered.
     */
    static void latency(Path before, Path after) throws Exception {
        List<String> b = Files.readAllLines(before);
        List<String> a = Files.readAllLines(after);
        report("apiserver webhook latency", "apiserver_admission_webhook_admission_duration_seconds_bucket{",
                m -> m.getOrDefault("name", "").endsWith(".ace.dev") ? m.get("name") + "/" + m.get("type") : null, b, a);
        report("apiserver request latency", "apiserver_request_duration_seconds_bucket{",
                m -> "gpuledgers".equals(m.get("resource")) || "pods".equals(m.get("resource")) && !"WATCH".equals(m.get("verb"))
                        ? m.get("resource") + "/" + m.get("verb") + (m.getOrDefault("subresource", "").isEmpty() ? "" : "/" + m.get("subresource")) : null, b, a);
        report("apiserver flow-control wait", "apiserver_flowcontrol_request_wait_duration_seconds_bucket{",
                m -> "true".equals(m.get("execute")) ? m.get("priority_level") : null, b, a);
        Map<String, Double> codes = new TreeMap<>();
        for (String[] side : new String[][] {{"-"}, {"+"}}) {
            for (String l : side[0].equals("-") ? b : a) {
                if (!l.startsWith("apiserver_request_total{")) continue;
                Map<String, String> m = labels(l);
                if (!"gpuledgers".equals(m.get("resource"))) continue;
                codes.merge(m.get("verb") + " " + m.get("code"), (side[0].equals("-") ? -1 : 1) * value(l), Double::sum);
            }
        }
        codes.values().removeIf(v -> v == 0);
        System.out.printf("apiserver gpuledgers requests by verb and code during the burst: %s%n", codes);
    }

    private static void report(String title, String prefix, java.util.function.Function<Map<String, String>, String> key,
                               List<String> before, List<String> after) {
        Map<String, TreeMap<Double, Double>> b = buckets(before, prefix, key);
        for (var e : buckets(after, prefix, key).entrySet()) {
            TreeMap<Double, Double> d = new TreeMap<>();
            TreeMap<Double, Double> old = b.getOrDefault(e.getKey(), new TreeMap<>());
            e.getValue().forEach((le, v) -> d.put(le, v - old.getOrDefault(le, 0.0)));
            double total = d.lastEntry().getValue();
            if (total <= 0) continue;
            System.out.printf("%s %s: n=%.0f p50 %s p90 %s p99 %s max bucket %s%n", title, e.getKey(), total,
                    ms(quantile(d, 0.5)), ms(quantile(d, 0.9)), ms(quantile(d, 0.99)), ms(maxBucket(d)));
        }
    }

    private static String ms(double s) { return Double.isInfinite(s) ? "+Inf" : String.format("%.1f ms", s * 1000); }

    private static double maxBucket(TreeMap<Double, Double> d) {
        double total = d.lastEntry().getValue();
        for (var e : d.entrySet()) if (e.getValue() >= total) return e.getKey();
        return Double.POSITIVE_INFINITY;
    }

    static double quantile(TreeMap<Double, Double> d, double q) {
        double total = d.lastEntry().getValue();
        double rank = q * total, prevLe = 0, prevCount = 0;
        for (var e : d.entrySet()) {
            if (e.getValue() >= rank) {
                if (e.getKey().isInfinite()) return prevLe;
                return prevLe + (e.getKey() - prevLe) * ((rank - prevCount) / Math.max(1e-9, e.getValue() - prevCount));
            }
            prevLe = e.getKey();
            prevCount = e.getValue();
        }
        return Double.POSITIVE_INFINITY;
    }

    /** The histogram buckets of {@code prefix} summed per {@code key} (lines whose key is null are left out). */
    private static Map<String, TreeMap<Double, Double>> buckets(List<String> lines, String prefix,
                                                               java.util.function.Function<Map<String, String>, String> key) {
        Map<String, TreeMap<Double, Double>> out = new TreeMap<>();
        for (String l : lines) {
            if (!l.startsWith(prefix)) continue;
            Map<String, String> m = labels(l);
            String k = key.apply(m);
            if (k == null) continue;
            double le = m.get("le").equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(m.get("le"));
            out.computeIfAbsent(k, x -> new TreeMap<>()).merge(le, value(l), Double::sum);
        }
        return out;
    }

    private static Map<String, String> labels(String line) {
        String labels = line.substring(line.indexOf('{') + 1, line.lastIndexOf('}'));
        Map<String, String> m = new HashMap<>();
        for (String kv : labels.split(",(?=[a-z_]+=\")")) {
            int eq = kv.indexOf('=');
            if (eq > 0) m.put(kv.substring(0, eq), kv.substring(eq + 2, kv.length() - 1));
        }
        return m;
    }

    private static double value(String line) { return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)); }
}
