package dev.ace.binpacker.bench;

import dev.ace.binpacker.admission.Json;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.cluster.node.NodeListLoader;
import dev.ace.binpacker.cluster.report.NodeReportJson;
import dev.ace.binpacker.cluster.report.NodeReportStore;
import dev.ace.binpacker.cluster.view.LocalView;
import dev.ace.binpacker.cluster.view.NodeReports;
import dev.ace.binpacker.cluster.view.PodCache;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.PackerConfig;
import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.TopologyManagerPolicy;
import dev.ace.binpacker.truth.NodeReport;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Node;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What one node's change costs a replica's view, on a 1,000- or 12,500-node HGX fleet whose nodes carry the agent's
 * {@code ace.dev/topology} matrix: {@code reportObject} is what every GPU pod start and stop causes now (the node's
 * GpuNodeReport changed; the Node is not written); {@code reportOnly} is what it caused before GpuNodeReport (only
 * {@code ace.dev/gpu-allocation} changed on the Node: parsed, the node's usage counted again); {@code unchanged} is a
 * kubelet status write ACE reads nothing of; {@code relabelled} changes a label, so the node is mapped
 * (matrix parsed) and upserted again. Run: {@code bench/jmh.sh NodeUpdateBenchmark -p nodes=12500}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class NodeUpdateBenchmark {
    /** Fleet size: 1,000 HGX nodes, or the 12,500 of the design's largest fleet. */
    @Param({"1000", "12500"})
    public int nodes;

    private LocalView view;
    private Node[] reports;
    private Node[] labels;
    private String[] objects;
    private int i;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Allocator allocator = new Allocator(new ClusterState(), PackerConfig.defaults());
        view = new LocalView(() -> allocator, new PodCache(), new PendingDemand(Metrics.NOOP), Metrics.NOOP, Json.newMapper(),
                new NodeReports(120_000, () -> System.nanoTime() / 1_000_000));
        Node template = NodeListLoader.demo().stream().filter(n -> n.getMetadata().getName().equals("hgx-h100-0")).findFirst().orElseThrow();
        String matrix = Files.readString(Path.of("tests/fixtures/topology/h100-sxm-8gpu-stas00.txt"));
        for (int n = 0; n < nodes; n++) view.nodeChanged(node(template, "hgx-" + n, matrix, report(1, 0x0fL), "a"));
        reports = new Node[] {node(template, "hgx-7", matrix, report(2, 0xf0L), "a"), node(template, "hgx-7", matrix, report(3, 0x0fL), "a")};
        objects = new String[] {objectText("hgx-8", 2, 0xf0L), objectText("hgx-8", 3, 0x0fL)};
        view.reportChanged("hgx-8", objectText("hgx-8", 1, 0x0fL));
        labels = new Node[] {node(template, "hgx-9", matrix, report(1, 0x0fL), "b"), node(template, "hgx-9", matrix, report(1, 0x0fL), "a")};
    }

    private static String report(long generation, long gpus) {
        return NodeReportJson.write(new NodeReport(generation, null, TopologyManagerPolicy.NONE, 8, GpuBoard.mask(0, 1, 2, 3, 4, 5, 6, 7),
                List.of(new NodeReport.PodDevices("ml", "vllm-0", gpus, 0, 0)), List.of()));
    }

    /** The spec of a GpuNodeReport object as the informer hands it on (what {@code NodeReportStore.specText} gives). */
    private static String objectText(String node, long generation, long gpus) {
        return NodeReportStore.spec(node, NodeReportJson.read(report(generation, gpus)).orElseThrow()).toString();
    }

    private static Node node(Node template, String name, String matrix, String report, String rack) {
        Node n = Json.newMapper().convertValue(template, Node.class);
        n.getMetadata().setName(name);
        Map<String, String> labels = new HashMap<>(n.getMetadata().getLabels());
        labels.put(AceKeys.HOSTNAME, name);
        labels.put("example.com/rack", rack);
        n.getMetadata().setLabels(labels);
        n.getMetadata().setAnnotations(Map.of(AceKeys.TOPOLOGY, matrix, AceKeys.GPU_ALLOCATION, report));
        n.setStatus(new io.fabric8.kubernetes.api.model.NodeStatusBuilder()
                .addToAllocatable(AceKeys.GPU, new io.fabric8.kubernetes.api.model.Quantity("8")).build());
        return n;
    }

    /** A node agent before GpuNodeReport: the report changes on the Node itself. */
    @Benchmark
    public void reportOnly() { view.nodeChanged(reports[i++ & 1]); }

    /** The node agent's GpuNodeReport changed (what a GPU pod start or stop costs a replica now; the Node is not written). */
    @Benchmark
    public void reportObject() { view.reportChanged("hgx-8", objects[i++ & 1]); }

    @Benchmark
    public void unchanged() { view.nodeChanged(labels[1]); }

    @Benchmark
    public void relabelled() { view.nodeChanged(labels[i++ & 1]); }
}
