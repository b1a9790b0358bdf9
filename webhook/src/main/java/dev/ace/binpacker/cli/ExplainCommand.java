package dev.ace.binpacker.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.admission.AdmissionEngine;
import dev.ace.binpacker.admission.AdmissionRequest;
import dev.ace.binpacker.admission.AdmissionResult;
import dev.ace.binpacker.admission.Json;
import dev.ace.binpacker.admission.NamespaceMode;
import dev.ace.binpacker.admission.NamespacePolicies;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.admission.ReviewCodec;
import dev.ace.binpacker.cluster.AdmissionWiring;
import dev.ace.binpacker.cluster.OfflineConfig;
import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.PackerConfig;
import dev.ace.binpacker.workload.Classification;
import dev.ace.binpacker.workload.Classifier;
import dev.ace.binpacker.workload.InvalidPodException;
import dev.ace.binpacker.workload.WorkloadPods;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * {@code explain -f FILE [--nodes FILE] [--policy MODE]}: what the mutating webhook would do to each
 * pod of a manifest, on an empty inventory (the demo one by default), without a server or a cluster.
 * Documents are decided in file order on one inventory, as {@code kubectl apply -f} would create
 * them; workloads through the pods their controllers would create ({@link WorkloadPods}).
 */
final class ExplainCommand implements Command {
    static final String USAGE = "usage: explain -f FILE [--nodes NODES.yaml] [--policy enforce|warn|audit|observe|exempt]";

    private final InputStream stdin;
    private final Map<String, String> settings;

    ExplainCommand() { this(System.in); }

    ExplainCommand(InputStream stdin) { this(stdin, Map.of()); }

    /** {@code settings}: {@code ace.*} values over those of the environment and application.properties (tests). */
    ExplainCommand(InputStream stdin, Map<String, String> settings) {
        this.stdin = stdin;
        this.settings = Map.copyOf(settings);
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        String file = null;
        String nodes = null;
        NamespaceMode mode = NamespaceMode.ENFORCE;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "-f", "--file" -> file = Main.value(args, ++i, args[i - 1]);
                case "--nodes" -> nodes = Main.value(args, ++i, "--nodes");
                case "--policy" -> mode = mode(Main.value(args, ++i, "--policy"));
                default -> throw CliException.usage("unknown argument '" + args[i] + "'");
            }
        }
        if (file == null) throw CliException.usage("-f FILE is required");
        if (file.equals("-") && "-".equals(nodes)) throw CliException.usage("-f - and --nodes - cannot both read standard input");
        // Most of a call is class loading and Jackson introspection of the Kubernetes model: the inventory is
        // read on a second thread while this one binds the manifest to Pods, so the two halves overlap.
        String nodeFile = nodes;
        FutureTask<Inventory> loading = new FutureTask<>(() -> Inventory.load(nodeFile, stdin));
        Thread loader = new Thread(loading, "explain-inventory");
        loader.setDaemon(true);
        loader.start();
        List<Inputs.Document> docs = Inputs.documents(Inputs.read(file, stdin), file);
        if (docs.isEmpty()) throw CliException.input(file + ": no Kubernetes objects in it");
        ObjectMapper json = Json.newMapper();
        List<Item> items = new ArrayList<>();
        for (Inputs.Document d : docs) items.add(Item.of(d, json));
        Inventory inventory = await(loading);
        ClusterState state = inventory.state();
        Allocator allocator = new Allocator(state, PackerConfig.defaults());
        // The webhook's own wiring and settings (ace.policy.* from the environment, system properties and the packaged
        // application.properties); standalone, as no Pod informer runs here.
        AdmissionEngine engine = AdmissionWiring.of(OfflineConfig.load(settings), AdmissionWiring.Edge.standalone(() -> allocator,
                new PendingDemand(Metrics.NOOP), json, NamespacePolicies.always(mode), System::currentTimeMillis)).engine();

        out.println("inventory: " + state.liveNodes() + " nodes from " + inventory.source());
        int exit = 0;
        int seq = 0;
        for (Item item : items) {
            if (item.unreadable() != null) {
                out.println();
                out.println("--- document " + item.index() + ": not explained: " + item.unreadable());
                err.println("explain: " + file + ": document " + item.index() + " " + item.unreadable() + "; the others are explained");
                exit = CliException.INPUT;
            } else if (item.what() == null) {
                err.println("explain: " + file + ": document " + item.index() + " is not a Kubernetes object (no kind)");
                exit = CliException.INPUT;
            } else if (item.problem() != null) {
                out.println();
                out.println("--- " + item.what() + ": " + item.problem());
                if (!item.skipped()) exit = CliException.INPUT;
            }
            for (WorkloadPods.TemplatePod t : item.pods()) {
                out.println();
                out.println("--- " + item.what() + header(t));
                AdmissionResult r = explain(t.pod(), "explain-" + (++seq), engine, mode, json, out);
                if (!r.allowed() && exit == 0) exit = 3;
            }
            GroupExplain.print(item.what(), item.pods(), allocator, out);
        }
        return exit;
    }

    /**
     * One document: "Kind namespace/name" and the pods its controller would create, or why there are none.
     *
     * @param what    null when the document is not a Kubernetes object
     * @param skipped a kind without pod template (Service, ConfigMap...), not an error
     */
    private record Item(int index, String what, List<WorkloadPods.TemplatePod> pods, String problem, boolean skipped, String unreadable) {
        Item(int index, String what, List<WorkloadPods.TemplatePod> pods, String problem, boolean skipped) {
            this(index, what, pods, problem, skipped, null);
        }

        static Item of(Inputs.Document d, ObjectMapper json) {
            if (d.problem() != null) return new Item(d.index(), null, List.of(), null, false, d.problem());
            JsonNode o = d.node();
            String kind = o.path("kind").asText("");
            if (!o.isObject() || kind.isEmpty()) return new Item(d.index(), null, List.of(), null, false);
            String what = kind + " " + namespaceOf(o) + "/" + o.at("/metadata/name").asText(o.at("/metadata/generateName").asText("") + "*");
            try {
                return new Item(d.index(), what, WorkloadPods.of(o, json), null, false);
            } catch (IllegalArgumentException e) {
                boolean noTemplate = !kind.equals("Pod") && !WorkloadPods.isWorkload(kind);
                return new Item(d.index(), what, List.of(), noTemplate ? "skipped, no pod template" : "not explained: " + e.getMessage(), noTemplate);
            }
        }
    }

    private static Inventory await(FutureTask<Inventory> loading) throws Exception {
        try {
            return loading.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception c ? c : e;
        }
    }

    private static String header(WorkloadPods.TemplatePod t) {
        if (t.role().equals("pod")) return "";
        String pods = t.replicas() == 1 ? "1 pod" : t.replicas() + " pods, each decided alike; shown: the first";
        return " (" + (t.role().equals("template") ? "pod template" : t.role() + " template") + ", " + pods + ")";
    }

    private static AdmissionResult explain(Pod pod, String uid, AdmissionEngine engine, NamespaceMode mode, ObjectMapper json,
                                           PrintStream out) throws Exception {
        String ns = pod.getMetadata().getNamespace() == null ? "default" : pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName() != null ? pod.getMetadata().getName() : pod.getMetadata().getGenerateName() + "*";
        out.println("pod:       " + ns + "/" + name);
        try {
            Classification c = Classifier.classify(pod);
            out.println("class:     " + c.workloadClass().label() + " (" + c.kind() + "; " + c.evidence() + ")");
            out.println("gpus:      " + c.gpus() + "    tp: " + c.tp() + (c.multiNodeRank() ? "    nodes in TP group: " + c.nnodes() : ""));
        } catch (InvalidPodException e) {
            out.println("class:     invalid (" + e.getMessage() + ")");
        }
        AdmissionRequest req = new AdmissionRequest(uid, ReviewCodec.API_VERSION, "Pod", null, "CREATE", ns,
                pod.getMetadata().getName() == null ? "" : pod.getMetadata().getName(), false, json.valueToTree(pod), pod);
        AdmissionResult r = engine.mutate(req);
        String decision = r.patch() == null ? null : decisionFrom(r.patch());
        // Observe admits the pod as it came and records what ACE would have done: the preview shows that record.
        String observed = mode == NamespaceMode.OBSERVE ? r.auditAnnotations().get("would") : null;
        String text = observed != null ? "observe: " + observed
                : decision != null ? decision : r.message() != null ? r.message() : "left untouched";
        out.println("decision:  " + text);
        out.println("verdict:   " + (observed != null ? "allowed, unchanged (observe: recorded only)"
                : r.allowed() ? (r.patch() == null ? "allowed" : "allowed, patched") : "denied (" + mode.label() + ")"));
        // A denial under warn is also sent as warnings: print only what the decision line does not already say.
        for (String w : r.warnings()) if (!text.contains(w)) out.println("warning:   " + w);
        if (r.patch() != null) {
            out.println("patch:");
            out.println(json.writerWithDefaultPrettyPrinter().writeValueAsString(r.patch()));
        }
        return r;
    }

    private static String namespaceOf(JsonNode o) {
        String ns = o.at("/metadata/namespace").asText("");
        return ns.isEmpty() ? "default" : ns;
    }

    private static NamespaceMode mode(String value) throws CliException {
        String v = value.trim().toLowerCase(Locale.ROOT);
        for (NamespaceMode m : NamespaceMode.values()) if (m.label().equals(v)) return m;
        throw CliException.usage("--policy must be enforce, warn, audit, observe or exempt, got '" + value + "'");
    }

    private static String decisionFrom(JsonNode patch) {
        for (JsonNode op : patch) {
            String path = op.path("path").asText();
            if (path.equals("/metadata/annotations/ace.dev~1decision")) return op.path("value").asText();
            if (path.equals("/metadata/annotations") && op.path("value").has(AceKeys.DECISION)) {
                return op.path("value").path(AceKeys.DECISION).asText();
            }
        }
        return null;
    }
}
