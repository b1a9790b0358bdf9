package dev.ace.binpacker.realapi;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.cluster.node.NodeListLoader;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * GPU nodes as GPU Feature Discovery labels them: the label sets of {@code k8s/demo/nodes.yaml} (which follow
 * the dumps in tests/fixtures/nodes) and the real full dump {@code tests/fixtures/nodes/h100-mig-single-all-disabled-labels.json}.
 * A node is created, then given capacity, allocatable and Ready through the {@code status} subresource, and the
 * {@code node.kubernetes.io/not-ready} taint the API server put on it is removed, as a kubelet's first Ready
 * report would have it.
 */
public final class GpuNodes {
    /** The demo inventory's node names the suite starts with (8-GPU HGX boards first). */
    public static final List<String> BASE = List.of("hgx-h100-0", "hgx-h100-1", "hgx-h200-0", "a100-pcie-0", "l40s-0");
    /** One node from the unedited GFD dump (1x H100 80GB HBM3, general pool). */
    public static final String FIXTURE_NODE = "h100-gfd-0";

    private final KubernetesClient admin;
    private final Map<String, Node> templates = new LinkedHashMap<>();

    GpuNodes(KubernetesClient admin) throws IOException {
        this.admin = admin;
        for (Node n : NodeListLoader.load(Path.of("k8s", "demo", "nodes.yaml"))) templates.put(n.getMetadata().getName(), n);
        @SuppressWarnings("unchecked")
        Map<String, String> labels = new ObjectMapper().readValue(Path.of("tests/fixtures/nodes/h100-mig-single-all-disabled-labels.json").toFile(), Map.class);
        Map<String, String> l = new LinkedHashMap<>(labels);
        l.put("kubernetes.io/hostname", FIXTURE_NODE);
        templates.put(FIXTURE_NODE, new NodeBuilder().withNewMetadata().withName(FIXTURE_NODE).withLabels(l).endMetadata().build());
    }

    /** Creates node {@code name} from the label set (and annotations) of template {@code template}. */
    public Node create(String name, String template) {
        Node t = templates.get(template);
        if (t == null) throw new IllegalArgumentException("no node template " + template + "; have " + templates.keySet());
        Map<String, String> labels = new LinkedHashMap<>(t.getMetadata().getLabels());
        labels.put("kubernetes.io/hostname", name);
        Node node = new NodeBuilder().withNewMetadata().withName(name).withLabels(labels).withAnnotations(t.getMetadata().getAnnotations())
                .endMetadata().withNewSpec().endSpec().build();
        admin.nodes().resource(node).create();
        int gpus = Integer.parseInt(labels.getOrDefault("nvidia.com/gpu.count", "0"));
        ready(name, gpus);
        return admin.nodes().withName(name).get();
    }

    /** Status as a kubelet reports it (capacity = allocatable, Ready), then the not-ready taint removed. */
    public void ready(String name, int gpus) {
        Map<String, Quantity> res = new LinkedHashMap<>();
        res.put("cpu", new Quantity("96"));
        res.put("memory", new Quantity("1Ti"));
        res.put("pods", new Quantity("250"));
        res.put("ephemeral-storage", new Quantity("1Ti"));
        if (gpus > 0) res.put("nvidia.com/gpu", new Quantity(Integer.toString(gpus)));
        String now = Instant.now().toString().replaceAll("\\.\\d+Z$", "Z");
        NodeCondition ready = new NodeConditionBuilder().withType("Ready").withStatus("True").withReason("KubeletReady")
                .withMessage("kubelet is posting ready status (played by the real-API suite)").withLastHeartbeatTime(now).withLastTransitionTime(now).build();
        admin.nodes().withName(name).editStatus(n -> new NodeBuilder(n).editOrNewStatus().withCapacity(res).withAllocatable(res)
                .withConditions(List.of(ready)).endStatus().build());
        Conditions.await("node " + name + " without the not-ready taint", Duration.ofSeconds(60), () -> {
            Node n = admin.nodes().withName(name).get();
            if (n.getSpec().getTaints() == null || n.getSpec().getTaints().isEmpty()) return true;
            admin.nodes().withName(name).edit(x -> new NodeBuilder(x).editSpec()
                    .withTaints(x.getSpec().getTaints().stream().filter(tt -> !tt.getKey().startsWith("node.kubernetes.io/")).toList()).endSpec().build());
            return false;
        });
    }
}
