package dev.ace.binpacker.placement.group;

import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.PackerConfig;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.ReservationStore;
import dev.ace.binpacker.placement.WorkloadClass;
import dev.ace.binpacker.topology.BoardCatalog;
import dev.ace.binpacker.topology.GpuBoard;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** HGX H100 nodes with a rack label, and group requests of TP ranks, for the pure group tests. */
final class GroupFixtures {
    private GroupFixtures() {}

    static final GpuBoard HGX = BoardCatalog.infer(Map.of("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count", "8"))
            .board().orElseThrow();

    static NodeInfo hgx(String name, String rack) {
        return new NodeInfo(name, Pool.INFERENCE, Map.of("kubernetes.io/hostname", name, "rack", rack), List.of(), HGX, "test", HGX.name(), 0);
    }

    static Allocator cluster(ReservationStore store, NodeInfo... nodes) {
        ClusterState s = new ClusterState();
        for (NodeInfo n : nodes) s.upsert(n);
        return new Allocator(s, PackerConfig.defaults(), store);
    }

    static Allocator cluster(NodeInfo... nodes) { return cluster(ReservationStore.IN_MEMORY, nodes); }

    static void hold(Allocator a, String node, long mask) {
        a.adopt(new Reservation("busy-" + node + "-" + mask, node, mask, 1000, 0, 1, null, 0, false));
    }

    static GroupRequest group(String key, String topology, int... rankGpus) {
        List<GroupRequest.Rank> ranks = new ArrayList<>();
        for (int i = 0; i < rankGpus.length; i++) {
            ranks.add(GroupRequest.Rank.fresh(PlacementRequest.whole(key + "-rank" + i + "-" + Reservation.newId(), WorkloadClass.INFERENCE,
                    rankGpus[i], rankGpus[i], List.of(Pool.INFERENCE), NodeConstraints.NONE)
                    .ownedBy(new Reservation.Owner(null, "ml", key + "-" + i, "uid-" + key + "-" + i))));
        }
        return new GroupRequest(key, ranks, topology, false, null);
    }

    static List<Reservation> aceEntries(Allocator a) {
        return a.read(al -> al.ledger().all().stream().filter(r -> r.isAce() && !r.id().startsWith("busy-")).toList());
    }

    /** Free GPUs of every node, in node order: equal before and after an attempt that must change nothing. */
    static List<Long> freeMasks(Allocator a) {
        return a.read(al -> {
            List<Long> out = new ArrayList<>();
            for (int i = 0; i < al.state().capacity(); i++) if (al.state().node(i) != null) out.add(al.state().freeMask(i));
            return out;
        });
    }
}
