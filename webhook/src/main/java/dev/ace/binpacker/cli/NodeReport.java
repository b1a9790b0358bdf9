package dev.ace.binpacker.cli;

import dev.ace.binpacker.admission.SlicingOffer;
import dev.ace.binpacker.cluster.node.BoardResolver;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.PoolStats;
import dev.ace.binpacker.topology.BoardCatalog;
import dev.ace.binpacker.topology.BoardClass;
import dev.ace.binpacker.topology.BoardInference;
import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * How ACE reads one node, for the {@code nodes} onboarding check: where the pool and the board come
 * from, the NVLink domains and cliques the packer will use, what the slicing pool offers, and every
 * thing ACE cannot know about the node with the step that fixes it.
 *
 * @param boardSource    {@code ace.dev/topology annotation}, {@code board catalog (GFD labels)}, {@code guess} or {@code none}
 * @param freeCliques    free NVLink cliques by size (2, 4, 8...) on the empty node
 * @param unknown        what ACE does not know and treats conservatively, each with the reason and the fix
 * @param assumed        what ACE takes from labels without having measured it
 */
record NodeReport(String name, String pool, String product, int gpus, String board, String boardClass, String boardSource,
                  List<List<Integer>> nvlinkDomains, int largestClique, Map<Integer, Integer> freeCliques,
                  List<String> offers, List<String> taints, List<String> unknown, List<String> assumed) {

    static NodeReport of(Node node, NodeInfo info, BoardResolver.Resolved resolved) {
        Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
        List<String> unknown = new ArrayList<>();
        List<String> assumed = new ArrayList<>();
        String poolLabel = labels.get(AceKeys.POOL);
        if (poolLabel == null) {
            assumed.add("no " + AceKeys.POOL + " label: pool general (neither kept for TP inference nor a slicing node)");
        } else if (!Pool.fromLabel(poolLabel).label().equals(poolLabel.trim())) {
            unknown.add(AceKeys.POOL + "=" + poolLabel + " is not a pool (inference, slicing): read as general");
        }
        GpuBoard b = info.board();
        String source = source(resolved.source());
        BoardInference inf = BoardCatalog.infer(labels);
        if (resolved.problem() != null) unknown.add(resolved.problem());
        if (b == null) {
            if (resolved.problem() == null) unknown.add("no GPUs: " + inf.reason());
        } else if (resolved.source().startsWith("unknown:")) {
            unknown.add("link matrix unknown: treated as PCIe only, so TP pods are never promised NVLink here;"
                    + " the node agent (deploy/agent) writes the measured matrix to " + AceKeys.TOPOLOGY);
        } else if (resolved.source().startsWith("catalog:")) {
            assumed.add("link matrix from the board catalog, not measured (" + inf.reason() + "); the node agent confirms it");
        }
        if (b != null && Arrays.stream(numa(b)).anyMatch(n -> n < 0)) assumed.add("NUMA node of each GPU unknown: aligned blocks are chosen by index only");
        allocatable(node, info, unknown);
        if (info.pool() == Pool.INFERENCE && b != null && b.largestClique() < 2) {
            unknown.add("pool inference, but its GPUs share no NVLink: TP pods get no clique here");
        }
        List<String> offers = info.pool() == Pool.SLICING ? offers(labels) : List.of();
        if (info.pool() == Pool.SLICING) {
            if (info.taints().stream().noneMatch(t -> t.key().equals(AceKeys.POOL) && t.repels())) {
                unknown.add("pool slicing without the taint " + AceKeys.POOL + "=slicing:NoSchedule: pods ACE did not send here may land here");
            }
            if (offers.stream().noneMatch(o -> o.startsWith(AceKeys.MIG_PREFIX) || o.startsWith(AceKeys.GPU_SHARED))) {
                unknown.add("pool slicing offers whole GPUs only (no MIG mixed strategy, no MPS labels)");
            }
        }
        if (Boolean.TRUE.equals(node.getSpec() == null ? null : node.getSpec().getUnschedulable())) unknown.add("cordoned (spec.unschedulable)");
        Map<Integer, Integer> free = new LinkedHashMap<>();
        if (b != null) for (int s = 2; s <= b.largestClique(); s <<= 1) free.put(s, PoolStats.freeCliques(info, b.allGpus(), s));
        return new NodeReport(info.name(), info.pool().label(), inf.product().isEmpty() ? null : inf.product(), info.gpuCount(),
                b == null ? null : boardName(b, resolved.source()), b == null ? null : BoardClass.of(b).label(), source,
                b == null ? List.of() : b.nvlinkDomains().stream().map(NodeReport::indices).toList(),
                b == null ? 0 : b.largestClique(), free, offers,
                info.taints().stream().map(t -> t.key() + (t.value() == null ? "" : "=" + t.value()) + ":" + t.effect()).toList(),
                unknown, assumed);
    }

    /** Measured boards are shared by every node with the same matrix, so they are named by what they are, not by a node. */
    private static String boardName(GpuBoard b, String source) {
        return source.equals("annotation") ? "measured " + b.gpuCount() + "-GPU board" : b.name();
    }

    private static String source(String s) {
        if (s.equals("annotation")) return AceKeys.TOPOLOGY + " annotation (measured)";
        if (s.startsWith("catalog:")) return "board catalog, from GFD labels";
        if (s.startsWith("unknown:")) return "guess: PCIe only";
        return "none";
    }

    private static int[] numa(GpuBoard b) {
        int[] n = new int[b.gpuCount()];
        for (int g = 0; g < n.length; g++) n[g] = b.numaNode(g);
        return n;
    }

    /** The device plugin's count next to ACE's: a sick GPU shows as allocatable below capacity. */
    private static void allocatable(Node node, NodeInfo info, List<String> unknown) {
        if (node.getStatus() == null || node.getStatus().getAllocatable() == null) return;
        Quantity q = node.getStatus().getAllocatable().get(AceKeys.GPU);
        if (q == null) return;
        int alloc = Quantity.getAmountInBytes(q).intValue();
        if (info.gpuCount() > 0 && alloc < info.gpuCount()) {
            unknown.add("allocatable " + AceKeys.GPU + " is " + alloc + " of " + info.gpuCount() + " GPUs: the device plugin reports"
                    + " unhealthy or hidden GPUs, which ACE cannot tell apart");
        }
    }

    private static List<String> offers(Map<String, String> labels) {
        List<String> out = new ArrayList<>();
        for (SlicingOffer o : SlicingOffer.of(labels)) {
            String count = labels.get(o.resource() + ".count");
            if (o.resource().equals(AceKeys.GPU)) count = labels.get(AceKeys.GPU_COUNT);
            out.add(o.resource() + (count == null ? "" : " x" + count));
        }
        return out;
    }

    private static List<Integer> indices(long mask) { return Arrays.stream(GpuBoard.indices(mask)).boxed().toList(); }

    /** The text block for one node. */
    String text() {
        StringBuilder b = new StringBuilder(name).append('\n');
        row(b, "pool", pool);
        row(b, "gpus", gpus == 0 ? "none" : gpus + (product == null ? "" : " x " + product));
        if (board != null) {
            row(b, "board", board + " (" + boardClass + "; " + boardSource + ")");
            row(b, "nvlink", nvlinkDomains.isEmpty() ? "no NVLink" : nvlinkDomains.size() + " domain(s) "
                    + nvlinkDomains.stream().map(d -> d.toString().replace(" ", "")).collect(Collectors.joining(" ")) + ", largest clique " + largestClique);
            row(b, "free cliques", freeCliques.isEmpty() ? "none (no NVLink pair)" : freeCliques.entrySet().stream()
                    .map(e -> e.getValue() + " x " + e.getKey() + "-GPU").collect(Collectors.joining(", ")));
        }
        if (!offers.isEmpty()) row(b, "offers", String.join(", ", offers));
        if (!taints.isEmpty()) row(b, "taints", String.join(", ", taints));
        for (String u : unknown) row(b, "unknown", u);
        for (String a : assumed) row(b, "assumed", a);
        return b.toString();
    }

    private static void row(StringBuilder b, String key, String value) {
        b.append(String.format("  %-13s %s%n", key + ":", value));
    }
}
