package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.cluster.node.NodeListLoader;
import dev.ace.binpacker.cluster.node.NodeMapper;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.PackerConfig;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.WorkloadClass;
import dev.ace.binpacker.placement.group.GroupOutcome;
import dev.ace.binpacker.placement.group.GroupPlacer;
import dev.ace.binpacker.placement.group.GroupRequest;
import dev.ace.binpacker.keys.GroupKeys;
import io.fabric8.kubernetes.api.model.Node;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * GB200 NVL72 racks as GPU Feature Discovery labels them (tests/fixtures/nodes/gb200-nvl72-3racks.yaml, built from the
 * real label dump): a TP 16 group of four 4-GPU trays stays inside one {@code nvidia.com/gpu.clique} value and never
 * spans two racks, even racks whose CliqueID is the same number.
 */
class Nvl72GroupPlacementTest {
    private Allocator a;
    private final Map<String, String> cliqueOf = new java.util.HashMap<>();

    @BeforeEach
    void racks() throws Exception {
        List<Node> nodes = NodeListLoader.load(Path.of("tests/fixtures/nodes/gb200-nvl72-3racks.yaml"));
        ClusterState s = new ClusterState();
        NodeMapper m = NodeMapper.standard();
        for (Node n : nodes) {
            var info = m.map(n);
            s.upsert(info);
            cliqueOf.put(info.name(), info.labels().get(GroupKeys.GPU_CLIQUE));
        }
        a = new Allocator(s, PackerConfig.defaults());
        assertEquals(54, s.liveNodes());
        assertEquals(4, s.node(0).gpuCount(), "a GB200 compute tray offers 4 GPUs");
    }

    private GroupRequest tp16(String key) {
        List<GroupRequest.Rank> ranks = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ranks.add(GroupRequest.Rank.fresh(PlacementRequest.whole(Reservation.newId(), WorkloadClass.INFERENCE, 4, 16,
                    List.of(Pool.INFERENCE), NodeConstraints.NONE).ownedBy(new Reservation.Owner(null, "ml", key + "-" + i, key + "-uid-" + i))));
        }
        return new GroupRequest(key, ranks, GroupKeys.GPU_CLIQUE, true, null);
    }

    /** Leaves {@code free} trays of a rack (by name prefix) free and fills the rest. */
    private void leaveFree(String rackPrefix, int free) {
        for (int i = free + 1; i <= 18; i++) {
            a.adopt(new Reservation("busy-" + rackPrefix + i, rackPrefix + "-" + i, 0xfL, 1000, 0, 4, null, 0, false));
        }
    }

    @Test
    void a_tp16_group_takes_four_whole_trays_of_one_rack() {
        GroupOutcome.Reserved r = assertInstanceOf(GroupOutcome.Reserved.class, GroupPlacer.reserve(a, tp16("g"), 0));
        assertEquals(4, r.reservations().stream().map(Reservation::node).distinct().count());
        assertTrue(r.reservations().stream().allMatch(x -> x.gpuMask() == 0xfL), "whole trays");
        assertEquals(1, r.reservations().stream().map(x -> cliqueOf.get(x.node())).distinct().count());
        assertEquals(cliqueOf.get(r.reservations().get(0).node()), r.domain());
    }

    @Test
    void two_racks_with_the_same_clique_id_and_two_free_trays_each_are_not_one_domain() {
        leaveFree("gb-nvl-043-bianca", 2);
        leaveFree("gb-nvl-044-carla", 2);
        leaveFree("gb-nvl-045-dora", 0);
        assertTrue(cliqueOf.get("gb-nvl-043-bianca-1").endsWith(".32766") && cliqueOf.get("gb-nvl-044-carla-1").endsWith(".32766"));
        GroupOutcome.Waiting w = assertInstanceOf(GroupOutcome.Waiting.class, GroupPlacer.reserve(a, tp16("g"), 0));
        assertTrue(w.why().contains(GroupKeys.GPU_CLIQUE), w.why());
        a.release("busy-gb-nvl-044-carla3");
        a.release("busy-gb-nvl-044-carla4");
        GroupOutcome.Reserved r = assertInstanceOf(GroupOutcome.Reserved.class, GroupPlacer.reserve(a, tp16("g"), 0));
        Set<String> nodes = r.reservations().stream().map(Reservation::node).collect(Collectors.toSet());
        assertEquals(Set.of("gb-nvl-044-carla-1", "gb-nvl-044-carla-2", "gb-nvl-044-carla-3", "gb-nvl-044-carla-4"), nodes);
    }

    @Test
    void a_tp16_group_fills_the_partly_used_rack_before_breaking_into_a_clean_one() {
        leaveFree("gb-nvl-043-bianca", 6);
        GroupOutcome.Reserved r = assertInstanceOf(GroupOutcome.Reserved.class, GroupPlacer.reserve(a, tp16("g"), 0));
        assertTrue(r.reservations().stream().allMatch(x -> x.node().startsWith("gb-nvl-043-bianca")), r.reservations().toString());
    }
}
