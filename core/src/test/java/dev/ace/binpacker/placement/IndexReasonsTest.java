package dev.ace.binpacker.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The index answers what a walk over every node would: the reasons of an unschedulable decision,
 * whether a pool is open to a pod, and the free 8-cliques of the admission reserve. Checked
 * against node-by-node oracles on seeded clusters with pools, taints, selectors, GPU-less nodes,
 * nodes coming and going.
 */
class IndexReasonsTest {
    private static final GpuBoard[] BOARDS = {Boards.HGX_H100, Boards.A100_PCIE_PAIRS, Boards.DGX1, Boards.L40S, null};
    private static final Taint DEDICATED = new Taint("dedicated", "batch", "NoSchedule");
    private static final Taint PREFER = new Taint("soft", "x", "PreferNoSchedule");
    private static final Toleration TOLERATE = new Toleration("dedicated", "Equal", "batch", "NoSchedule");

    private static NodeInfo randomNode(String name, Random rnd) {
        GpuBoard b = BOARDS[rnd.nextInt(BOARDS.length)];
        Map<String, String> labels = new HashMap<>();
        labels.put("kubernetes.io/hostname", name);
        labels.put("zone", "z" + rnd.nextInt(3));
        List<Taint> taints = switch (rnd.nextInt(5)) {
            case 0 -> List.of(DEDICATED);
            case 1 -> List.of(PREFER);
            default -> List.of();
        };
        return new NodeInfo(name, Pool.values()[rnd.nextInt(3)], labels, taints, b, "test", b == null ? null : b.name(), 0);
    }

    private static Allocator cluster(Random rnd, int nodes) {
        ClusterState s = new ClusterState();
        for (int i = 0; i < nodes; i++) s.upsert(randomNode("n" + i, rnd));
        Allocator a = new Allocator(s, PackerConfig.defaults());
        for (int i = 0; i < nodes; i++) {
            NodeInfo n = s.node(i);
            long held = 0;
            for (int g = 0; g < n.gpuCount(); g++) if (rnd.nextInt(3) == 0) held |= 1L << g;
            if (held != 0) a.adopt(new Reservation("h" + i, n.name(), held, 1000, 0, 1, null, 0, false));
        }
        for (int i = 0; i < nodes / 10; i++) s.remove("n" + rnd.nextInt(nodes)); // holes, groups that shrink
        for (int i = 0; i < nodes / 10; i++) s.upsert(randomNode("n" + rnd.nextInt(nodes), rnd)); // re-added, relabelled
        return a;
    }

    private static NodeConstraints randomConstraints(Random rnd) {
        Map<String, String> sel = rnd.nextBoolean() ? Map.of() : Map.of("zone", "z" + rnd.nextInt(3));
        List<Toleration> tol = rnd.nextBoolean() ? List.of() : List.of(TOLERATE);
        return new NodeConstraints(sel, List.of(), tol);
    }

    private static PlacementRequest randomRequest(Random rnd, int id) {
        int gpus = new int[]{1, 2, 4, 8, 16}[rnd.nextInt(5)];
        List<Pool> pools = new ArrayList<>(List.of(Pool.values()));
        java.util.Collections.shuffle(pools, rnd);
        pools = pools.subList(0, 1 + rnd.nextInt(3));
        if (gpus == 1 && rnd.nextInt(4) == 0) {
            return new PlacementRequest("r" + id, WorkloadClass.UNKNOWN, 1, 500, 1, pools, randomConstraints(rnd), 0, null);
        }
        return PlacementRequest.whole("r" + id, WorkloadClass.INFERENCE, gpus, rnd.nextBoolean() ? gpus : 1, pools, randomConstraints(rnd));
    }

    @Test
    void the_reasons_counted_per_index_group_are_the_reasons_of_every_node() {
        Random rnd = new Random(10);
        for (int round = 0; round < 20; round++) {
            Allocator a = cluster(rnd, 300);
            for (int q = 0; q < 25; q++) {
                PlacementRequest r = randomRequest(rnd, q);
                boolean clique = r.wantsClique() && rnd.nextBoolean();
                PlacementResult.Unschedulable fast = IndexReasons.explain(a.state(), a.packer().index(), r, clique);
                PlacementResult.Unschedulable slow = nodeByNode(a.state(), r, clique);
                assertEquals(slow.nodesConsidered(), fast.nodesConsidered());
                assertEquals(asMap(slow), asMap(fast), r + " clique=" + clique);
            }
        }
    }

    @Test
    void a_pool_is_open_to_a_pod_exactly_when_one_of_its_gpu_nodes_allows_it() {
        Random rnd = new Random(11);
        for (int round = 0; round < 20; round++) {
            Allocator a = cluster(rnd, 200);
            for (int q = 0; q < 30; q++) {
                NodeConstraints c = randomConstraints(rnd);
                Pool pool = rnd.nextInt(4) == 0 ? null : Pool.values()[rnd.nextInt(3)];
                boolean taints = rnd.nextBoolean();
                boolean expected = false;
                for (int i = 0; i < a.state().capacity(); i++) {
                    NodeInfo n = a.state().node(i);
                    if (n == null || n.gpuCount() == 0 || (pool != null && n.pool() != pool)) continue;
                    if (c.selects(n.labels()) && (!taints || c.toleratesAll(n.taints()))) expected = true;
                }
                assertEquals(expected, a.packer().anyAllowed(pool, c, taints), pool + " " + c + " taints=" + taints);
            }
        }
    }

    @Test
    void the_largest_allowed_clique_of_a_pool_equals_the_node_by_node_maximum() {
        Random rnd = new Random(13);
        for (int round = 0; round < 20; round++) {
            Allocator a = cluster(rnd, 200);
            for (int q = 0; q < 30; q++) {
                NodeConstraints c = randomConstraints(rnd);
                Pool pool = Pool.values()[rnd.nextInt(3)];
                int expected = 0;
                for (int i = 0; i < a.state().capacity(); i++) {
                    NodeInfo n = a.state().node(i);
                    if (n == null || n.gpuCount() == 0 || n.pool() != pool) continue;
                    if (c.selects(n.labels()) && c.toleratesAll(n.taints())) expected = Math.max(expected, n.board().largestClique());
                }
                assertEquals(expected, a.packer().largestClique(pool, c), pool + " " + c);
            }
        }
    }

    @Test
    void free_8_cliques_counted_per_board_state_equal_the_node_by_node_count() {
        Random rnd = new Random(12);
        Allocator a = cluster(rnd, 500);
        int expected = 0;
        for (int i = 0; i < a.state().capacity(); i++) {
            NodeInfo n = a.state().node(i);
            if (n != null && n.pool() == Pool.INFERENCE) expected += PoolStats.freeCliques(n, a.state().freeMask(i), 8);
        }
        assertTrue(expected > 0);
        assertEquals(expected, a.packer().freeCliques(Pool.INFERENCE, 8));
    }

    @Test
    void a_board_whose_last_node_leaves_takes_its_group_and_score_tables_with_it() {
        ClusterState s = new ClusterState();
        for (int i = 0; i < 10; i++) s.upsert(Boards.node("h" + i, Pool.INFERENCE, Boards.HGX_H100));
        s.upsert(Boards.node("d0", Pool.INFERENCE, Boards.DGX1));
        Packer p = new Packer(s, PackerConfig.defaults());
        assertEquals(2, p.index().groupCount());
        assertEquals(2, p.index().scorerCount());
        s.remove("d0");
        assertEquals(1, p.index().groupCount());
        assertEquals(1, p.index().scorerCount());
        // a node moving pool leaves its old group empty: dropped, while the board's scorer stays for the new group
        for (int i = 0; i < 10; i++) s.upsert(Boards.node("h" + i, Pool.GENERAL, Boards.HGX_H100));
        assertEquals(1, p.index().groupCount());
        assertEquals(1, p.index().scorerCount());
    }

    private static Map<String, Integer> asMap(PlacementResult.Unschedulable u) {
        Map<String, Integer> m = new LinkedHashMap<>();
        for (PlacementResult.ReasonCount rc : u.reasons()) m.merge(rc.code() + "/" + rc.detail(), rc.nodes(), Integer::sum);
        return new java.util.TreeMap<>(m);
    }

    /** The walk the packer did before issue 10: the first failing filter of every node. */
    private static PlacementResult.Unschedulable nodeByNode(ClusterState state, PlacementRequest r, boolean clique) {
        Map<ReasonCode, Map<String, Integer>> counts = new EnumMap<>(ReasonCode.class);
        int considered = 0;
        for (int i = 0; i < state.capacity(); i++) {
            NodeInfo n = state.node(i);
            if (n == null) continue;
            considered++;
            ReasonCode code;
            String detail = "";
            if (!r.constraints().selects(n.labels())) {
                code = ReasonCode.NOT_SELECTED;
            } else if (!r.pools().contains(n.pool())) {
                code = ReasonCode.WRONG_POOL; detail = n.pool().label();
            } else if (!r.constraints().toleratesAll(n.taints())) {
                code = ReasonCode.UNTOLERATED_TAINT;
            } else if (n.gpuCount() == 0) {
                code = ReasonCode.NO_GPUS;
            } else if (n.gpuCount() < r.gpus()) {
                code = ReasonCode.TOO_FEW_GPUS; detail = Integer.toString(r.gpus());
            } else if (clique && n.board().largestClique() < r.gpus()) {
                code = ReasonCode.NO_CLIQUE_ON_BOARD; detail = Integer.toString(r.gpus());
            } else if (r.isShare()) {
                code = ReasonCode.NO_GPU_SHARE; detail = Integer.toString(r.milliPerGpu());
            } else if (Long.bitCount(state.freeMask(i)) < r.gpus()) {
                code = ReasonCode.TOO_FEW_FREE_GPUS; detail = Integer.toString(r.gpus());
            } else {
                code = ReasonCode.NO_FREE_CLIQUE; detail = Integer.toString(r.gpus());
            }
            counts.computeIfAbsent(code, c -> new LinkedHashMap<>()).merge(detail, 1, Integer::sum);
        }
        List<PlacementResult.ReasonCount> reasons = new ArrayList<>();
        counts.forEach((code, byDetail) -> byDetail.forEach((detail, c) -> reasons.add(new PlacementResult.ReasonCount(code, detail, c))));
        return new PlacementResult.Unschedulable(considered, reasons);
    }
}
