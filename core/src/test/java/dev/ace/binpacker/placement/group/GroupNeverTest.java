package dev.ace.binpacker.placement.group;

import static dev.ace.binpacker.placement.group.GroupFixtures.aceEntries;
import static dev.ace.binpacker.placement.group.GroupFixtures.cluster;
import static dev.ace.binpacker.placement.group.GroupFixtures.group;
import static dev.ace.binpacker.placement.group.GroupFixtures.hgx;
import static dev.ace.binpacker.placement.group.GroupFixtures.hold;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.PlacementRequest;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** "Never" against "not now" (issue 35): a group no node of the inventory could ever hold does not wait for ever. */
class GroupNeverTest {

    private static GroupRequest selecting(GroupRequest g, Map<String, String> selector) {
        List<GroupRequest.Rank> ranks = g.ranks().stream().map(r -> {
            PlacementRequest q = r.request();
            return GroupRequest.Rank.fresh(new PlacementRequest(q.id(), q.workloadClass(), q.gpus(), q.milliPerGpu(), q.tp(), q.pools(),
                    new NodeConstraints(selector, List.of(), List.of()), q.cpuMilli(), q.gpuModel(), q.owner()));
        }).toList();
        return new GroupRequest(g.key(), ranks, g.topologyKey(), g.wholeNodes(), g.domain());
    }

    @Test
    void a_selector_no_node_matches_is_never_with_the_packers_count_and_reserves_nothing() {
        Allocator a = cluster(hgx("n0", "r1"), hgx("n1", "r1"));
        GroupRequest g = selecting(group("llama", null, 8, 8), Map.of("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM"));
        GroupOutcome.Never n = assertInstanceOf(GroupOutcome.Never.class, GroupPlacer.reserve(a, g, 0));
        assertEquals("no node can ever hold the leader of the group (8 GPUs): 0/2 nodes are available: "
                + "2 do not match the pod's nodeSelector or node affinity.", n.why());
        assertTrue(aceEntries(a).isEmpty());
    }

    @Test
    void a_full_fleet_is_not_now_not_never() {
        Allocator a = cluster(hgx("n0", "r1"), hgx("n1", "r1"));
        hold(a, "n0", 0x01L);
        hold(a, "n1", 0x01L);
        GroupRequest g = group("llama", null, 8, 8);
        assertEquals(Optional.empty(), GroupPlacer.never(a, g, 0));
        GroupOutcome.Waiting w = assertInstanceOf(GroupOutcome.Waiting.class, GroupPlacer.reserve(a, g, 0));
        assertTrue(w.why().startsWith("no room for all 2 ranks"), w.why());
    }

    @Test
    void a_rank_larger_than_any_board_is_never() {
        Allocator a = cluster(hgx("n0", "r1"));
        Optional<String> why = GroupPlacer.never(a, group("big", null, 8, 16), 0);
        assertTrue(why.isPresent());
        assertTrue(why.get().startsWith("no node can ever hold rank 1 of the group (16 GPUs): 0/1 nodes are available: 1 have fewer than 16 GPUs in all"),
                why.get());
    }

    @Test
    void a_group_larger_than_its_largest_domain_is_never_with_both_figures() {
        // Racks of 16 and 8 GPUs; the group asks for 3 x 8 in one rack.
        Allocator a = cluster(hgx("a0", "r1"), hgx("a1", "r1"), hgx("b0", "r2"));
        GroupOutcome.Never n = assertInstanceOf(GroupOutcome.Never.class, GroupPlacer.reserve(a, group("g", "rack", 8, 8, 8), 0));
        assertEquals("the group asks for 24 GPUs in one rack domain, but the largest has 16 GPUs in all", n.why());
    }

    @Test
    void a_group_that_fits_its_largest_domain_once_pods_leave_is_not_never() {
        Allocator a = cluster(hgx("a0", "r1"), hgx("a1", "r1"), hgx("b0", "r2"));
        hold(a, "a1", 0x01L);
        assertEquals(Optional.empty(), GroupPlacer.never(a, group("g", "rack", 8, 8), 0));
        assertInstanceOf(GroupOutcome.Waiting.class, GroupPlacer.reserve(a, group("g", "rack", 8, 8), 0));
    }
}
