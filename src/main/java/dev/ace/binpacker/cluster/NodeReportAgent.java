package dev.ace.binpacker.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ace.binpacker.topology.TopologyManagerPolicy;
import dev.ace.binpacker.truth.GpuInventory;
import dev.ace.binpacker.truth.NodeReport;
import dev.ace.binpacker.workload.AceKeys;
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
 * and publish the result on its own Node as {@code ace.dev/gpu-allocation}, with the Topology
 * Manager policy as the label {@code ace.dev/topology-manager-policy}.
 *
 * <p>Publishes only on change, each change with the next generation (continued from the annotation
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
    private NodeReport published;
    private String publishedLabel;
    private boolean seeded;

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
        if (now.sameContent(published) && (label == null || label.equals(publishedLabel))) return Result.UNCHANGED;
        NodeReport next = now.withGeneration((published == null ? 0 : published.generation()) + 1, clock.instant().toString());
        ObjectNode patch = MAPPER.createObjectNode();
        ObjectNode meta = patch.putObject("metadata");
        meta.putObject("annotations").put(AceKeys.GPU_ALLOCATION, NodeReportJson.write(next));
        if (label != null) meta.putObject("labels").put(AceKeys.TOPOLOGY_MANAGER_POLICY, label);
        try {
            // A merge patch of ACE's own keys only: the kubelet's concurrent status writes cannot
            // make it fail, and the ValidatingAdmissionPolicy in deploy/agent sees nothing else changed.
            client.nodes().withName(nodeName).patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
        } catch (KubernetesClientException e) {
            throw new IOException("could not publish " + AceKeys.GPU_ALLOCATION + " on node " + nodeName + ": " + e.getMessage(), e);
        }
        published = next;
        if (label != null) publishedLabel = label;
        return Result.PUBLISHED;
    }

    /** The last published report and label, read from the Node once, so a restarted agent continues the generation. */
    private void seed() throws IOException {
        Node node;
        try {
            node = client.nodes().withName(nodeName).get();
        } catch (KubernetesClientException e) {
            throw new IOException("could not read node " + nodeName + ": " + e.getMessage(), e);
        }
        if (node == null) throw new IOException("node " + nodeName + " does not exist");
        var annotations = node.getMetadata().getAnnotations();
        var labels = node.getMetadata().getLabels();
        published = NodeReportJson.read(annotations == null ? null : annotations.get(AceKeys.GPU_ALLOCATION)).orElse(null);
        publishedLabel = labels == null ? null : labels.get(AceKeys.TOPOLOGY_MANAGER_POLICY);
        seeded = true;
    }

    public Optional<NodeReport> published() { return Optional.ofNullable(published); }
}
