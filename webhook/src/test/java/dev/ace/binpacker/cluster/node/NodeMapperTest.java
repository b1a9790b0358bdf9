package dev.ace.binpacker.cluster.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.Pool;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class NodeMapperTest {

    private static Map<String, NodeInfo> demo() throws Exception {
        NodeMapper m = NodeMapper.standard();
        return NodeListLoader.demo().stream().map(m::map).collect(Collectors.toMap(NodeInfo::name, n -> n));
    }

    @Test
    void the_demo_inventory_maps_to_the_boards_its_comment_promises() throws Exception {
        Map<String, NodeInfo> nodes = demo();
        assertEquals(8, nodes.size());
        NodeInfo h100 = nodes.get("hgx-h100-0");
        assertEquals(Pool.INFERENCE, h100.pool());
        assertEquals(8, h100.board().largestClique());
        assertTrue(h100.boardSource().startsWith("catalog:"), h100.boardSource());
        assertEquals(8, nodes.get("hgx-h200-0").board().largestClique());
        NodeInfo a100 = nodes.get("a100-pcie-0");
        assertEquals("annotation", a100.boardSource());
        assertEquals(Pool.GENERAL, a100.pool());
        assertEquals(2, a100.board().largestClique());
        assertEquals(2, a100.board().nvlinkDomains().size());
        assertEquals(1, nodes.get("l40s-0").board().largestClique());
        NodeInfo mig = nodes.get("h100-mig-0");
        assertEquals(Pool.SLICING, mig.pool());
        assertEquals("NoSchedule", mig.taints().get(0).effect());
    }

    @Test
    void an_unknown_product_becomes_a_pcie_only_board_of_the_labelled_count() {
        Node n = new NodeBuilder().withNewMetadata().withName("mystery").withLabels(Map.of(
                "nvidia.com/gpu.product", "NVIDIA-Future-GPU-999", "nvidia.com/gpu.count", "4")).endMetadata().build();
        NodeInfo info = NodeMapper.standard().map(n);
        assertEquals(4, info.gpuCount());
        assertEquals(1, info.board().largestClique());
        assertTrue(info.boardSource().startsWith("unknown:"), info.boardSource());
    }

    @Test
    void a_bad_topology_annotation_falls_back_to_the_catalog() {
        Node n = new NodeBuilder().withNewMetadata().withName("h").withAnnotations(Map.of("ace.dev/topology", "garbage"))
                .withLabels(Map.of("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count", "8")).endMetadata().build();
        NodeInfo info = NodeMapper.standard().map(n);
        assertEquals(8, info.board().largestClique());
        assertTrue(info.boardSource().startsWith("catalog:"));
    }

    @Test
    void a_node_without_gpus_has_no_board() {
        Node n = new NodeBuilder().withNewMetadata().withName("cpu").endMetadata().build();
        assertNull(NodeMapper.standard().map(n).board());
    }
}
