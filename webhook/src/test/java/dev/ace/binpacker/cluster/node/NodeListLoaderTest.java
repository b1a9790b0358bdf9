package dev.ace.binpacker.cluster.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.bench.Inventories;
import io.fabric8.kubernetes.api.model.Node;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeListLoaderTest {
    @TempDir
    Path dir;

    @Test
    void a_yaml_inventory_over_snakeyamls_default_3_mib_loads() throws Exception {
        // 2,000 annotated nodes are 5 MiB; 12,500 (32 MiB) load the same way, in the benchmarks and the load run
        Path f = Inventories.write(2000, 42, dir.resolve("nodes.yaml"));
        assertTrue(Files.size(f) > 3 * 1024 * 1024, "the file must exceed the default limit to prove anything");
        List<Node> nodes = NodeListLoader.load(f);
        assertEquals(2000, nodes.size());
        assertTrue(nodes.get(0).getMetadata().getAnnotations().containsKey("ace.dev/topology"));
    }

    @Test
    void a_12500_node_json_inventory_loads() throws Exception {
        Path f = Inventories.write(12500, 42, dir.resolve("nodes.json"));
        List<Node> nodes = NodeListLoader.load(f);
        assertEquals(12500, nodes.size());
        assertEquals(nodes.get(12499).getMetadata().getName(), NodeListLoader.load(f).get(12499).getMetadata().getName());
    }

    @Test
    void several_yaml_documents_of_single_nodes_load_as_one_inventory() throws Exception {
        Path f = dir.resolve("two.yaml");
        Files.writeString(f, "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: b}\n");
        assertEquals(List.of("a", "b"), NodeListLoader.load(f).stream().map(n -> n.getMetadata().getName()).toList());
    }

    @Test
    void a_document_that_is_not_a_node_list_names_the_file_and_what_it_found() throws Exception {
        Path f = dir.resolve("pod.yaml");
        Files.writeString(f, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n");
        IOException e = assertThrows(IOException.class, () -> NodeListLoader.load(f));
        assertTrue(e.getMessage().contains("pod.yaml") && e.getMessage().contains("Pod"), e.getMessage());
    }
}
