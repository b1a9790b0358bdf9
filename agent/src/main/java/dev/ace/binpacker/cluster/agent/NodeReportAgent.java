package dev.ace.binpacker.cluster.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ace.binpacker.cluster.report.NodeReportJson;
import dev.ace.binpacker.cluster.report.NodeReportStore;
import dev.ace.binpacker.topology.TopologyManagerPolicy;
import dev.ace.binpacker.truth.GpuInventory;
import dev.ace.binpacker.truth.NodeReport;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The node agent's second duty (the first is {@link TopologyAgent}): ask the kubelet which GPUs
 * each pod really holds and which it can still hand out, map the device IDs to nvidia-smi indices,
 * and publish the result in the node's {@code GpuNodeReport} object (one per node, watched only by ACE),
 * with the Topology Manager policy as the Node label {@code ace.dev/topology-manager-policy}.
 *
 * <p>Publishes only on change, each change with the next generation (continued from the object
 * after a restart, so readers see generations only grow). A round that cannot read the kubelet or
 * nvidia-smi publishes nothing: a stale report is better than a false one.
 */
public final class NodeReportAgent {
    public enum Result { PUBLISHED, UNCHANGED }

    /** Where the policy comes from: an option, the kubelet configuration file, or nowhere (empty). */
    @FunctionalInterface
    public interface PolicySource {
        Optional<TopologyManagerPolicy> read() throws IOException;
    }

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final KubernetesClient client;
    private final String nodeName;
    private final String nvidiaSmi;
    private final PodResourcesClient podResources;
    private final PolicySource policy;
    private final Duration commandTimeout;
    private final Clock clock;
    private final NodeReportStore store;
    private NodeReport published;
    private String publishedLabel;
    private boolean seeded;
    private boolean haveObject;
    private boolean legacyAnnotation;

    public NodeReportAgent(KubernetesClient client, String nodeName, String nvidiaSmi, PodResourcesClient podResources,
                           PolicySource policy, Duration commandTimeout, Clock clock) {
        this.client = Objects.requireNonNull(client, "client");
        if (nodeName == null || nodeName.isBlank()) {
            throw new IllegalArgumentException("the agent needs its node name (--node or the NODE_NAME env set from spec.nodeName)");
        }
        this.nodeName = nodeName;
        this.nvidiaSmi = Objects.requireNonNull(nvidiaSmi, "nvidiaSmi");
        this.podResources = Objects.requireNonNull(podResources, "podResources");
        this.policy = policy;
        this.commandTimeout = commandTimeout;
        this.clock = clock;
        this.store = new NodeReportStore(client);
    }

    /** What the node says now, without publishing (for {@code --once} output and tests). */
    public NodeReport observe() throws IOException, InterruptedException {
        GpuInventory inventory = GpuInventory.of(
                CommandRunner.run(List.of(nvidiaSmi, "--query-gpu=index,uuid,pci.bus_id", "--format=csv,noheader"), commandTimeout),
                CommandRunner.run(List.of(nvidiaSmi, "-L"), commandTimeout));
        PodResourcesClient.Snapshot s = podResources.read();
        return NodeReport.of(inventory, policy.read().orElse(TopologyManagerPolicy.NONE), s.holdings(), s.allocatable());
    }

    public Result runOnce() throws IOException, InterruptedException {
        NodeReport now;
        try {
            now = observe();
        } catch (IllegalArgumentException e) {
            throw new IOException("nvidia-smi printed something that is not a GPU list: " + e.getMessage(), e);
        }
        String label = policy.read().map(TopologyManagerPolicy::label).orElse(null);
        if (!seeded) seed();
        boolean labelChanged = label != null && !label.equals(publishedLabel);
        boolean reportChanged = !now.sameContent(published) || !haveObject;
        if (!reportChanged && !labelChanged && !legacyAnnotation) return Result.UNCHANGED;
        if (reportChanged) {
            NodeReport next = now.withGeneration((published == null ? 0 : published.generation()) + 1, clock.instant().toString());
            try {
                if (haveObject) store.replace(nodeName, next);
                else store.create(nodeName, next);
            } catch (KubernetesClientException e) {
                if (e.getCode() == 404 || e.getCode() == 409) seeded = false; // deleted, or made, by someone else: read it again next round
                throw new IOException("could not publish the GpuNodeReport of node " + nodeName + ": " + e.getMessage(), e);
            }
            haveObject = true;
            published = next;
        }
        if (labelChanged || legacyAnnotation) patchNode(labelChanged ? label : null);
        return reportChanged ? Result.PUBLISHED : Result.UNCHANGED;
    }

    /**
     * The Node is written only when the Topology Manager label changes (an agent start after a kubelet
     * reconfiguration) and once to remove the {@code ace.dev/gpu-allocation} annotation older agents wrote
     * there; never on a pod's start or stop.
     */
    private void patchNode(String label) throws IOException {
        try {
            // Patches of ACE's own keys only: the kubelet's concurrent status writes cannot make them
            // fail, and the ValidatingAdmissionPolicy in deploy/agent sees nothing else changed.
            if (label != null) {
                ObjectNode patch = MAPPER.createObjectNode();
                patch.putObject("metadata").putObject("labels").put(AceKeys.TOPOLOGY_MANAGER_POLICY, label);
                client.nodes().withName(nodeName).patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
            }
            if (legacyAnnotation) {
                // A JSON patch remove: exactly that annotation goes.
                String path = "/metadata/annotations/" + AceKeys.GPU_ALLOCATION.replace("~", "~0").replace("/", "~1");
                client.nodes().withName(nodeName).patch(PatchContext.of(PatchType.JSON),
                        "[{\"op\":\"remove\",\"path\":\"" + path + "\"}]");
            }
        } catch (KubernetesClientException e) {
            if (e.getCode() == 422 && label == null) {
                legacyAnnotation = false; // someone removed it first
                return;
            }
            throw new IOException("could not patch node " + nodeName + ": " + e.getMessage(), e);
        }
        if (label != null) publishedLabel = label;
        legacyAnnotation = false;
    }

    /**
     * The last published report, read once, so a restarted agent continues the generation: from its
     * GpuNodeReport, else (a cluster upgraded from an agent that wrote the Node) from the Node's annotation,
     * which is then removed once the object exists.
     */
    private void seed() throws IOException {
        Node node;
        try {
            node = client.nodes().withName(nodeName).get();
            var object = store.get(nodeName);
            haveObject = object.isPresent();
            published = object.flatMap(NodeReportStore::read).orElse(null);
        } catch (KubernetesClientException e) {
            throw new IOException("could not read node " + nodeName + " or its GpuNodeReport: " + e.getMessage(), e);
        }
        if (node == null) throw new IOException("node " + nodeName + " does not exist");
        var annotations = node.getMetadata().getAnnotations();
        var labels = node.getMetadata().getLabels();
        String legacy = annotations == null ? null : annotations.get(AceKeys.GPU_ALLOCATION);
        legacyAnnotation = legacy != null;
        if (published == null) published = NodeReportJson.read(legacy).orElse(null);
        publishedLabel = labels == null ? null : labels.get(AceKeys.TOPOLOGY_MANAGER_POLICY);
        seeded = true;
    }

    public Optional<NodeReport> published() { return Optional.ofNullable(published); }
}
