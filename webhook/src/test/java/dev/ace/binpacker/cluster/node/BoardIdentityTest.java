package dev.ace.binpacker.cluster.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.ace.binpacker.bench.Inventories;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.topology.BoardInterner;
import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.TopologyParser;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Issue 10: nodes whose boards come from the node agent's annotation must share boards, or the index multiplies. */
class BoardIdentityTest {
    private static final Path TOPOLOGY = Path.of("tests/fixtures/topology");

    private static Node annotated(String name, String topo) {
        return new NodeBuilder().withNewMetadata().withName(name).withAnnotations(Map.of("ace.dev/topology", topo))
                .withLabels(Map.of("ace.dev/pool", "inference", "nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3",
                        "nvidia.com/gpu.count", "8")).endMetadata().build();
    }

    @Test
    void two_nodes_with_the_same_topology_annotation_get_the_same_board_object() throws Exception {
        String h100 = Files.readString(TOPOLOGY.resolve("h100-sxm-8gpu-stas00.txt"));
        NodeMapper m = NodeMapper.standard();
        NodeInfo a = m.map(annotated("a", h100));
        NodeInfo b = m.map(annotated("b", h100));
        assertEquals("annotation", a.boardSource());
        assertSame(a.board(), b.board());
    }

    @Test
    void the_same_matrix_printed_differently_is_still_one_board() throws Exception {
        String h100 = Files.readString(TOPOLOGY.resolve("h100-sxm-8gpu-stas00.txt"));
        BoardInterner interner = new BoardInterner();
        GpuBoard tabs = interner.intern(TopologyParser.parse(h100.replace("    ", "\t"), "tabs"));
        GpuBoard spaces = interner.intern(TopologyParser.parse(h100, "spaces"));
        assertSame(tabs, spaces);
        assertEquals(1, interner.size());
    }

    @Test
    void different_matrices_stay_different_boards() throws Exception {
        BoardInterner interner = new BoardInterner();
        GpuBoard h100 = interner.intern(TopologyParser.parse(Files.readString(TOPOLOGY.resolve("h100-sxm-8gpu-stas00.txt")), "h100"));
        GpuBoard a100 = interner.intern(TopologyParser.parse(Files.readString(TOPOLOGY.resolve("hgx-a100-8gpu-nv12-4nic.txt")), "a100"));
        assertNotSame(h100, a100);
        assertEquals(2, interner.size());
    }

    @Test
    void a_fleet_of_annotated_nodes_has_as_many_boards_as_kinds_of_machine() throws Exception {
        NodeMapper m = NodeMapper.standard();
        Set<GpuBoard> boards = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (Node n : Inventories.nodes(1213, 7)) {
            NodeInfo info = m.map(n);
            if (info.board() != null) boards.add(info.board());
        }
        // HGX H100 and H200 annotations are the same NV18 matrix with the same affinities only if the fixtures agree;
        // the inventory has five kinds of node: at most five boards, never one per node.
        assertEquals(true, boards.size() <= 5, "boards: " + boards.size());
    }

    @Test
    void a_node_update_that_changes_nothing_is_not_an_event() throws Exception {
        String h100 = Files.readString(TOPOLOGY.resolve("h100-sxm-8gpu-stas00.txt"));
        NodeMapper m = NodeMapper.standard();
        ClusterState s = new ClusterState();
        s.upsert(m.map(annotated("a", h100)));
        long membership = s.membershipVersion();
        int[] events = {0};
        s.addListener((i, before, after) -> events[0]++);
        s.upsert(m.map(annotated("a", h100))); // the kubelet's next status update: same labels, same annotation
        assertEquals(membership, s.membershipVersion());
        assertEquals(0, events[0]);
        Node relabelled = annotated("a", h100);
        relabelled.getMetadata().getLabels().put("example.com/rack", "r7");
        s.upsert(m.map(relabelled));
        assertEquals(membership + 1, s.membershipVersion());
        assertEquals(1, events[0]);
        assertEquals(List.of(0), List.of(s.indexOf("a")));
    }
}
