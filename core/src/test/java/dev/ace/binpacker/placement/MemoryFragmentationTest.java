package dev.ace.binpacker.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Memory counted as FGD counts CPU (issue 20, the multigpu and share lists): a node that keeps free GPUs but not the
 * memory their usual pods ask for strands them, so the fragmentation measure counts those GPUs as fragmented, and a
 * choice that would strand them costs what it strands.
 */
class MemoryFragmentationTest {
    private static final long GI = 1024L * 1024 * 1024;

    private static Resources memory(long gi) { return new Resources(Map.of("memory", gi * GI * 1000)); }

    /** A 2-GPU PCIe node with 64 cores ({@code cpu} false: CPU not tracked, as the webhook's nodes) and {@code gi} GiB of memory. */
    private static NodeInfo node(String name, long gi, boolean cpu) {
        NodeInfo n = Boards.node(name, Pool.GENERAL, Boards.pcie(2));
        return new NodeInfo(n.name(), n.pool(), n.labels(), n.taints(), n.board(), n.boardSource(), n.gpuModel(), cpu ? 64_000 : 0,
                n.topologyPolicy(), new Resources(Map.of("cpu", 64_000L)).plus(memory(gi)));
    }

    private static PlacementRequest pod(String id, long cpu, long gi) {
        return new PlacementRequest(id, WorkloadClass.UNKNOWN, 1, 1000, 1, List.of(Pool.GENERAL), NodeConstraints.NONE, cpu, null)
                .needing(new Resources(Map.of("cpu", 1000L)).plus(memory(gi)));
    }

    /**
     * Nodes a (64 GiB) and b (128 GiB), alike in GPUs and CPU; the usual pod asks for one GPU and 32 GiB. A 40 GiB pod
     * on a would leave its second GPU with 24 GiB, too little for the usual pod; on b nothing is stranded.
     */
    private static String nodeOfA40GiPod(PackerConfig config, boolean cpuTracked) {
        ClusterState state = new ClusterState();
        state.upsert(node("a", 64, cpuTracked));
        state.upsert(node("b", 128, cpuTracked));
        Allocator al = new Allocator(state, config);
        for (int i = 0; i < 50; i++) al.packer().observe(pod("seen" + i, cpuTracked ? 1000 : 0, 32));
        PlacementResult r = al.place(pod("one", cpuTracked ? 1000 : 0, 40), true, 0).result();
        return assertInstanceOf(PlacementResult.Placed.class, r).node();
    }

    @Test
    void a_pod_goes_where_it_leaves_the_free_gpus_the_memory_their_usual_pods_need() {
        assertTrue(PackerConfig.defaults().fragmentation().countsMemory());
        assertEquals("b", nodeOfA40GiPod(PackerConfig.defaults(), true));
    }

    @Test
    void blind_to_memory_the_tie_goes_to_the_first_node_and_strands_its_second_gpu() {
        PackerConfig blind = PackerConfig.defaults().countingMemory(false);
        assertFalse(blind.fragmentation().countsMemory());
        assertEquals("a", nodeOfA40GiPod(blind, true));
    }

    @Test
    void nodes_whose_cpu_is_not_tracked_are_scored_as_before() {
        // the webhook's nodes (CPU left to kube-scheduler): memory is not counted either, the first node wins the tie
        assertEquals("a", nodeOfA40GiPod(PackerConfig.defaults(), false));
    }

    /** Memory booked on a node after the choice (a bound pod's requests) is read on the next decision, not a stale copy. */
    @Test
    void memory_booked_later_moves_the_next_choice() {
        ClusterState state = new ClusterState();
        state.upsert(node("a", 128, true));
        state.upsert(node("b", 128, true));
        Allocator al = new Allocator(state, PackerConfig.defaults());
        for (int i = 0; i < 50; i++) al.packer().observe(pod("seen" + i, 1000, 32));
        PlacementResult before = al.place(pod("probe", 1000, 40), true, 0).result();
        assertEquals("a", assertInstanceOf(PlacementResult.Placed.class, before).node());
        // 80 GiB of CPU-only pods bound on a: a 40 GiB pod there would leave 8 GiB beside its free GPU
        al.requested("a", memory(80), java.util.Set.of());
        PlacementResult after = al.place(pod("probe", 1000, 40), true, 0).result();
        assertEquals("b", assertInstanceOf(PlacementResult.Placed.class, after).node());
    }
}
