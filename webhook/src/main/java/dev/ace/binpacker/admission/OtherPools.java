package dev.ace.binpacker.admission;

import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.PlacementResult;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.WorkloadClass;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where multi-GPU batch and interactive work goes when pool inference must be protected: the
 * NVLink-bridged pairs and PCIe-only nodes of pool general (pool slicing keeps its GPUs for
 * slices). When nothing there is free either, it says which pools and sizes would be accepted now.
 * Every method runs under the allocator lock and reserves nothing.
 */
final class OtherPools {
    private OtherPools() {}

    /** A trial placement on pool general, with the request to commit it. */
    record Trial(PlacementRequest request, Allocator.Outcome outcome) {}

    /**
     * An NVLink clique of the pod's size where a free one exists (a 2-GPU job on a bridged pair), else
     * the least damaging GPUs of one node: data-parallel batch work does not need NVLink.
     */
    static Optional<Trial> place(Allocator al, String id, WorkloadClass c, int gpus, NodeConstraints constraints,
                                 Reservation.Owner owner, dev.ace.binpacker.placement.Resources needs, long now) {
        for (int tp : gpus > 1 ? new int[] {gpus, 1} : new int[] {1}) {
            PlacementRequest pr = PlacementRequest.whole(id, c, gpus, tp, List.of(Pool.GENERAL), constraints).ownedBy(owner).needing(needs);
            Allocator.Outcome o = al.place(pr, true, now);
            if (o.placed()) return Optional.of(new Trial(pr, o));
        }
        return Optional.empty();
    }

    /** Has pool general a node this pod allows with {@code gpus} GPUs in all? Then a refusal now is about capacity, not shape. */
    static boolean couldHold(ClusterState s, NodeConstraints constraints, int gpus) {
        return FleetView.allowed(s, Pool.GENERAL, constraints, true).stream().anyMatch(n -> n.gpuCount() >= gpus);
    }

    /**
     * What a multi-GPU batch pod with these constraints would be given now, e.g. "2 or 4 GPUs on pool
     * inference (an aligned block), up to 3 GPUs on one node of pool general".
     */
    static String acceptedNow(Allocator al, String id, WorkloadClass c, NodeConstraints constraints, int reserve, long now) {
        ClusterState s = al.state();
        int domain = FleetView.domainSize(al, Pool.INFERENCE, constraints);
        List<String> parts = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        int before = FleetView.free8Cliques(al);
        for (int size = 2; size <= domain; size <<= 1) {
            Allocator.Outcome o = al.place(PlacementRequest.whole(id, c, size, size, List.of(Pool.INFERENCE), constraints), true, now);
            if (o.result() instanceof PlacementResult.Placed p && FleetView.free8CliquesAfter(s, p, before) >= reserve) sizes.add(size);
        }
        if (!sizes.isEmpty()) parts.add(orList(sizes) + " GPUs on pool inference (an aligned block)");
        int most = 0;
        for (NodeInfo n : FleetView.allowed(s, Pool.GENERAL, constraints, true)) {
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
