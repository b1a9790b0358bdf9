package dev.ace.binpacker.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.ace.binpacker.cluster.node.NodeListLoader;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.KubernetesListBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Seeded node inventories shaped like {@code kubectl get nodes -o yaml} of a real fleet, for the
 * benchmarks and the load run: the demo inventory's GFD label sets as templates, and every
 * NVLink node (all inference nodes, the bridged A100 PCIe nodes) carrying the node agent's
 * {@code ace.dev/topology} annotation, copied from the real {@code nvidia-smi topo -m} fixtures.
 * The production path then reads them back with {@link NodeListLoader} and maps them with
 * {@link dev.ace.binpacker.cluster.node.NodeMapper}, so interning and indexing are exercised as they
 * are in a cluster.
 *
 * <p>{@code java -cp ... dev.ace.binpacker.bench.Inventories 12500 /tmp/nodes-12500.yaml} writes one
 * (YAML, or JSON when the file name ends in .json).
 */
public final class Inventories {
    static final Path FIXTURES = Path.of("tests/fixtures/topology");

    /** Share of nodes per template: openb's node count as an enterprise mix; the large fleet mostly HGX. */
    private record Kind(String template, String topology, String pool, double share) {}

    private static final List<Kind> MIXED = List.of(
            new Kind("hgx-h100-0", "h100-sxm-8gpu-stas00.txt", null, 0.45),
            new Kind("hgx-h200-0", "hgx-h200-8gpu.txt", null, 0.10),
            new Kind("a100-pcie-0", "a100-pcie-4gpu-nvlink-bridge-pairs.txt", null, 0.20),
            new Kind("l40s-0", null, null, 0.10),
            new Kind("h100-mig-0", null, null, 0.15));
    private static final List<Kind> FLEET = List.of(
            new Kind("hgx-h100-0", "h100-sxm-8gpu-stas00.txt", null, 0.90),
            new Kind("hgx-h200-0", "hgx-h200-8gpu.txt", null, 0.05),
            new Kind("h100-mig-0", null, null, 0.05));

    private Inventories() {}

    /** 1,213 nodes (openb's count) of five kinds, or a fleet of mostly 8-GPU HGX nodes for any other count. */
    public static List<Node> nodes(int count, long seed) throws IOException {
        List<Kind> kinds = count == 1213 ? MIXED : FLEET;
        Map<String, Node> templates = new LinkedHashMap<>();
        for (Node n : NodeListLoader.demo()) templates.put(n.getMetadata().getName(), n);
        Map<String, String> topology = new LinkedHashMap<>();
        for (Kind k : kinds) if (k.topology() != null) topology.put(k.template(), Files.readString(FIXTURES.resolve(k.topology())));
        Random rnd = new Random(seed);
        List<Node> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Kind kind = pick(kinds, rnd.nextDouble());
            Node t = templates.get(kind.template());
            String name = String.format("%s-%05d", kind.template().replaceAll("-0$", ""), i);
            Map<String, String> labels = new LinkedHashMap<>(t.getMetadata().getLabels());
            labels.put(AceKeys.HOSTNAME, name);
            labels.put("topology.kubernetes.io/zone", "zone-" + (char) ('a' + rnd.nextInt(3)));
            Map<String, String> annotations = new LinkedHashMap<>();
            if (t.getMetadata().getAnnotations() != null) annotations.putAll(t.getMetadata().getAnnotations());
            if (topology.containsKey(kind.template())) annotations.put(AceKeys.TOPOLOGY, topology.get(kind.template()));
            // spec and status are shared with the template: nothing here or downstream writes them
            Node n = new Node();
            n.setApiVersion("v1");
            n.setKind("Node");
            n.setMetadata(new ObjectMetaBuilder().withName(name).withLabels(labels).withAnnotations(annotations).build());
            n.setSpec(t.getSpec());
            n.setStatus(t.getStatus());
            out.add(n);
        }
        return out;
    }

    private static Kind pick(List<Kind> kinds, double u) {
        double acc = 0;
        for (Kind k : kinds) {
            acc += k.share();
            if (u < acc) return k;
        }
        return kinds.get(kinds.size() - 1);
    }

    /** Writes the inventory as one {@code kind: List}, YAML or (file name ending in .json) JSON. */
    public static Path write(int count, long seed, Path file) throws IOException {
        KubernetesList list = new KubernetesListBuilder().addAllToItems(new ArrayList<>(nodes(count, seed))).build();
        String json = new KubernetesSerialization().asJson(list);
        if (file.toString().endsWith(".json")) {
            Files.writeString(file, json);
        } else {
            // Jackson's YAML writer: fabric8's asYaml takes about a minute for 12,500 nodes
            new ObjectMapper(new YAMLFactory()).writeValue(file.toFile(), new ObjectMapper().readTree(json));
        }
        return file;
    }

    /** The inventory file of {@code count} nodes under target/, written once and reused by benchmarks and load runs. */
    public static Path cached(int count) throws IOException {
        Path f = Path.of("target", "inventory-" + count + ".yaml");
        if (!Files.exists(f)) {
            Files.createDirectories(f.getParent());
            Path tmp = Files.createTempFile(f.getParent(), "inventory", ".yaml");
            write(count, 42, tmp);
            Files.move(tmp, f, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        }
        return f;
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: Inventories NODES FILE.yaml|FILE.json");
            System.exit(2);
        }
        Path f = write(Integer.parseInt(args[0]), 42, Path.of(args[1]));
        System.err.printf("wrote %s (%d bytes)%n", f, Files.size(f));
    }
}
