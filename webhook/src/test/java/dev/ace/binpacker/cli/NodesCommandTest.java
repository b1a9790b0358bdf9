package dev.ace.binpacker.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code nodes}: the onboarding check, on the demo inventory and on nodes built from real GFD label dumps. */
class NodesCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static String run(String stdin, String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new NodesCommand(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)))
                .run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void the_demo_inventory_shows_pool_board_source_domains_and_free_cliques_of_every_node() throws Exception {
        String out = run("");
        assertTrue(out.startsWith("8 nodes from the embedded demo inventory: 8 with GPUs, 0 of them with something ACE does not know"), out);
        assertTrue(out.contains("""
                a100-pcie-0
                  pool:         general
                  gpus:         4 x NVIDIA-A100-80GB-PCIe
                  board:        measured 4-GPU board (bridged pairs; ace.dev/topology annotation (measured))
                  nvlink:       2 domain(s) [0,1] [2,3], largest clique 2
                  free cliques: 2 x 2-GPU
                """), out);
        assertTrue(out.contains("""
                hgx-h100-0
                  pool:         inference
                  gpus:         8 x NVIDIA-H100-80GB-HBM3
                  board:        HGX H100 8-GPU NVSwitch (NVSwitch all-to-all; board catalog, from GFD labels)
                  nvlink:       1 domain(s) [0,1,2,3,4,5,6,7], largest clique 8
                  free cliques: 4 x 2-GPU, 2 x 4-GPU, 1 x 8-GPU
                """), out);
        assertTrue(out.contains("  offers:       nvidia.com/mig-1g.10gb x16, nvidia.com/mig-2g.20gb x8, nvidia.com/mig-3g.40gb x8\n"
                + "  taints:       ace.dev/pool=slicing:NoSchedule\n"), out);
    }

    /** A node list as kubectl prints it, from a real GFD label dump plus two hand-made nodes. */
    private static String nodeList() throws Exception {
        ObjectNode list = JSON.createObjectNode().put("apiVersion", "v1").put("kind", "List");
        ArrayNode items = list.putArray("items");
        ObjectNode mig = items.addObject().put("apiVersion", "v1").put("kind", "Node");
        mig.putObject("metadata").put("name", "mig-untainted")
                .set("labels", JSON.readTree(Path.of("tests/fixtures/nodes/h100-mig-mixed-all-balanced-labels.json").toFile()));
        ((ObjectNode) mig.at("/metadata/labels")).put("ace.dev/pool", "slicing");
        mig.putObject("status").putObject("allocatable").put("nvidia.com/gpu", "0");
        ObjectNode odd = items.addObject().put("apiVersion", "v1").put("kind", "Node");
        odd.putObject("metadata").put("name", "mystery-0").putObject("labels").put("ace.dev/pool", "inference")
                .put("nvidia.com/gpu.product", "NVIDIA-Future-X1").put("nvidia.com/gpu.count", "4");
        odd.putObject("status").putObject("allocatable").put("nvidia.com/gpu", "3");
        items.addObject().put("apiVersion", "v1").put("kind", "Node").putObject("metadata").put("name", "cpu-0");
        return JSON.writeValueAsString(list);
    }

    @Test
    void unknown_products_missing_taints_and_sick_gpus_are_named_with_the_fix() throws Exception {
        String out = run(nodeList(), "-f", "-");
        assertTrue(out.startsWith("3 nodes from -: 2 with GPUs, 2 of them with something ACE does not know"), out);
        assertTrue(out.contains("mystery-0\n  pool:         inference\n  gpus:         4 x NVIDIA-Future-X1\n"), out);
        assertTrue(out.contains("unknown:      product 'NVIDIA-Future-X1' is not in the board catalog"), out);
        assertTrue(out.contains("unknown:      link matrix unknown: treated as PCIe only, so TP pods are never promised NVLink here;"
                + " the node agent (deploy/agent) writes the measured matrix to ace.dev/topology"), out);
        assertTrue(out.contains("unknown:      pool inference, but its GPUs share no NVLink"), out);
        assertTrue(out.contains("unknown:      allocatable nvidia.com/gpu is 3 of 4 GPUs"), out);
        assertTrue(out.contains("unknown:      pool slicing without the taint ace.dev/pool=slicing:NoSchedule"), out);
        assertTrue(out.contains("cpu-0\n  pool:         general\n  gpus:         none\n"), out);
    }

    @Test
    void json_gives_one_object_per_node() throws Exception {
        JsonNode nodes = JSON.readTree(run(nodeList(), "--json", "-"));
        assertEquals(3, nodes.size());
        JsonNode mystery = nodes.get(1);
        assertEquals("mystery-0", mystery.path("name").asText());
        assertEquals("guess: PCIe only", mystery.path("boardSource").asText());
        assertEquals(0, mystery.path("nvlinkDomains").size());
        assertEquals(4, mystery.path("gpus").asInt());
        assertTrue(mystery.path("unknown").size() >= 3, mystery.toString());
    }
}
