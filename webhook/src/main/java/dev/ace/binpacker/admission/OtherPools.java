package dev.ace.binpacker.admission;

import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.BatchPlacement;
import dev.ace.binpacker.placement.BatchRule;
import dev.ace.binpacker.placement.LabelRequirement;
import dev.ace.binpacker.placement.Toleration;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.PlacementResult;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.WorkloadClass;
import java.util.ArrayList;
import java.util.List;

/**
 * Questions about the pools besides inference for multi-GPU batch and interactive work
 * ({@link dev.ace.binpacker.placement.BatchPlacement} places it): which slicing nodes may take it (those
 * offering plain whole GPUs), and, for a refusal, which pools and sizes would be accepted now.
 * Every method runs under the allocator lock and reserves nothing.
 */
final class OtherPools {
    private OtherPools() {}

    /**
     * The constraints of a multi-GPU batch pod sent to pool slicing: its own, plus a toleration of the slicing taint, on
     * the nodes that offer plain whole GPUs only (not MIG-partitioned under the mixed strategy, not shared by MPS).
     */
    static NodeConstraints wholeGpuSlicing(NodeConstraints own, String taintKey) {
        List<Toleration> tol = new ArrayList<>(own.tolerations());
        tol.add(new Toleration(taintKey, "Exists", null, "NoSchedule"));
        return new NodeConstraints(own.nodeSelector(), own.affinityTerms(), tol).andAnyOf(List.of(List.of(
                new LabelRequirement(AceKeys.MIG_STRATEGY, "NotIn", List.of("mixed")),
                new LabelRequirement(AceKeys.SHARING_STRATEGY, "NotIn", List.of("mps")),
                new LabelRequirement(AceKeys.GPU_COUNT, "Gt", List.of("0")))));
    }

    /** Has pool general a node this pod allows with {@code gpus} GPUs in all? Then a refusal now is about capacity, not shape. */
    static boolean couldHold(ClusterState s, NodeConstraints constraints, int gpus) {
        return FleetView.allowed(s, Pool.GENERAL, constraints, true).stream().anyMatch(n -> n.gpuCount() >= gpus);
    }

    /**
     * What a multi-GPU batch pod with these constraints would be given now, e.g. "2 or 4 GPUs on pool
     * inference (an aligned block), up to 3 GPUs on one node of pool general".
     */
    static String acceptedNow(Allocator al, String id, WorkloadClass c, NodeConstraints constraints, BatchRule rule, int tpWaiting, long now) {
        ClusterState s = al.state();
        int reserve = rule.reserveFree8Cliques();
        boolean offered = rule.order().contains(Pool.INFERENCE) && !(rule.yieldToWaitingTp() && tpWaiting > 0);
        int domain = offered ? FleetView.domainSize(al, Pool.INFERENCE, constraints) : 0;
        List<String> parts = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        int before = FleetView.free8Cliques(al);
        for (int size = 2; size <= domain; size <<= 1) {
            Allocator.Outcome o = al.place(PlacementRequest.whole(id, c, size, size, List.of(Pool.INFERENCE), constraints), true, now);
            if (o.result() instanceof PlacementResult.Placed p && BatchPlacement.free8CliquesAfter(s, p, before) >= reserve) sizes.add(size);
        }
        if (!sizes.isEmpty()) parts.add(orList(sizes) + " GPUs on pool inference (an aligned block)");
        int most = 0;
        for (NodeInfo n : rule.order().contains(Pool.GENERAL) ? FleetView.allowed(s, Pool.GENERAL, constraints, true) : List.<NodeInfo>of()) {
            most = Math.max(most, Long.bitCount(s.freeMask(s.indexOf(n.name()))));
        }
        if (most >= 2) parts.add("up to " + most + " GPUs on one node of pool general");
        return parts.isEmpty() ? "no multi-GPU request fits the nodes this pod allows now" : String.join(", ", parts);
    }

    private static String orList(List<Integer> sizes) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < sizes.size(); i++) {
            b.append(i == 0 ? "" : i == sizes.size() - 1 ? " or " : ", ").append(sizes.get(i));
        }
        return b.toString();
    }
}
