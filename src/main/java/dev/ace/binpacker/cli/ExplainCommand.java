package dev.ace.binpacker.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.ace.binpacker.admission.AdmissionEngine;
import dev.ace.binpacker.admission.AdmissionRequest;
import dev.ace.binpacker.admission.AdmissionResult;
import dev.ace.binpacker.admission.Json;
import dev.ace.binpacker.admission.NamespaceMode;
import dev.ace.binpacker.admission.NamespacePolicies;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.admission.PodPolicy;
import dev.ace.binpacker.admission.PolicyConfig;
import dev.ace.binpacker.admission.ReviewCodec;
import dev.ace.binpacker.cluster.NodeListLoader;
import dev.ace.binpacker.cluster.NodeMapper;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.PackerConfig;
import dev.ace.binpacker.workload.Classification;
import dev.ace.binpacker.workload.Classifier;
import dev.ace.binpacker.workload.InvalidPodException;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code explain -f POD.yaml [--nodes FILE] [--policy MODE]}: what the mutating webhook would do to a
 * manifest on an empty inventory (the demo one by default), without a server or a cluster.
 * Workload manifests (Deployment, StatefulSet, Job, CronJob...) are explained through their pod template.
 */
final class ExplainCommand implements Command {
    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        String file = null;
        String nodes = null;
        NamespaceMode mode = NamespaceMode.ENFORCE;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "-f", "--file" -> file = i + 1 < args.length ? args[++i] : null;
                case "--nodes" -> nodes = i + 1 < args.length ? args[++i] : null;
                case "--policy" -> mode = NamespaceMode.fromLabel(i + 1 < args.length ? args[++i] : null);
                default -> {
                    err.println("explain: unknown argument '" + args[i] + "'");
                    return 2;
                }
            }
        }
        if (file == null) {
            err.println("usage: explain -f POD.yaml [--nodes NODES.yaml] [--policy enforce|warn|audit|exempt]");
            return 2;
        }
        ObjectMapper json = Json.newMapper();
        Pod pod = PodTemplates.toPod(new ObjectMapper(new YAMLFactory()).readTree(Files.readAllBytes(Path.of(file))), json);
        List<Node> inventory = nodes == null ? NodeListLoader.demo() : NodeListLoader.load(Path.of(nodes));
        ClusterState state = new ClusterState();
        NodeMapper mapper = NodeMapper.standard();
        inventory.forEach(n -> state.upsert(mapper.map(n)));
        Allocator allocator = new Allocator(state, PackerConfig.defaults());
        PodPolicy policy = new PodPolicy(() -> allocator, PolicyConfig.defaults(), new PendingDemand(Metrics.NOOP), json);
        AdmissionEngine engine = new AdmissionEngine(policy, NamespacePolicies.always(mode), Metrics.NOOP, json, System::currentTimeMillis);

        String ns = pod.getMetadata().getNamespace() == null ? "default" : pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName() != null ? pod.getMetadata().getName() : pod.getMetadata().getGenerateName() + "*";
        out.println("pod:       " + ns + "/" + name);
        out.println("inventory: " + state.liveNodes() + " nodes from " + (nodes == null ? "the embedded demo inventory" : nodes));
        try {
            Classification c = Classifier.classify(pod);
            out.println("class:     " + c.workloadClass().label() + " (" + c.kind() + "; " + c.evidence() + ")");
            out.println("gpus:      " + c.gpus() + "    tp: " + c.tp() + (c.multiNodeRank() ? "    nodes in TP group: " + c.nnodes() : ""));
        } catch (InvalidPodException e) {
            out.println("class:     invalid (" + e.getMessage() + ")");
        }
        AdmissionRequest req = new AdmissionRequest("explain", ReviewCodec.API_VERSION, "Pod", null, "CREATE", ns,
                pod.getMetadata().getName() == null ? "" : pod.getMetadata().getName(), false, json.valueToTree(pod), pod);
        AdmissionResult r = engine.mutate(req);
        String decision = r.patch() == null ? null : decisionFrom(r.patch());
        out.println("decision:  " + (decision != null ? decision : r.message() != null ? r.message() : "left untouched"));
        out.println("verdict:   " + (r.allowed() ? (r.patch() == null ? "allowed" : "allowed, patched") : "denied (" + mode.label() + ")"));
        for (String w : r.warnings()) out.println("warning:   " + w);
        if (r.patch() != null) {
            out.println("patch:");
            out.println(json.writerWithDefaultPrettyPrinter().writeValueAsString(r.patch()));
        }
        return r.allowed() ? 0 : 3;
    }

    private static String decisionFrom(JsonNode patch) {
        for (JsonNode op : patch) {
            String path = op.path("path").asText();
            if (path.equals("/metadata/annotations/ace.dev~1decision")) return op.path("value").asText();
            if (path.equals("/metadata/annotations") && op.path("value").has("ace.dev/decision")) {
                return op.path("value").path("ace.dev/decision").asText();
            }
        }
        return null;
    }

    /** Pods, and the pod templates of workload controllers. */
    static final class PodTemplates {
        private PodTemplates() {}

        static Pod toPod(JsonNode doc, ObjectMapper json) throws Exception {
            String kind = doc.path("kind").asText("Pod");
            JsonNode template = switch (kind) {
                case "Pod" -> doc;
                case "CronJob" -> doc.at("/spec/jobTemplate/spec/template");
                default -> doc.at("/spec/template");
            };
            if (template.isMissingNode()) throw new IllegalArgumentException("a " + kind + " has no pod template");
            ObjectNode p = template.deepCopy();
            p.put("apiVersion", "v1");
            p.put("kind", "Pod");
            ObjectNode meta = p.has("metadata") ? (ObjectNode) p.get("metadata") : p.putObject("metadata");
            if (!kind.equals("Pod")) {
                if (!meta.has("namespace") && doc.at("/metadata/namespace").isTextual()) meta.put("namespace", doc.at("/metadata/namespace").asText());
                if (!meta.has("name") && !meta.has("generateName")) meta.put("generateName", doc.at("/metadata/name").asText("pod") + "-");
                if (kind.equals("Job") || kind.equals("CronJob")) {
                    meta.putArray("ownerReferences").addObject().put("apiVersion", "batch/v1").put("kind", kind)
                            .put("name", doc.at("/metadata/name").asText("job")).put("uid", "explain");
                }
            }
            return json.treeToValue(p, Pod.class);
        }
    }
}
