package dev.ace.binpacker.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ace.binpacker.admission.AdmissionEngine;
import dev.ace.binpacker.admission.AdmissionRequest;
import dev.ace.binpacker.admission.AdmissionResult;
import dev.ace.binpacker.admission.Json;
import dev.ace.binpacker.admission.NamespaceMode;
import dev.ace.binpacker.admission.NamespacePolicies;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.admission.ReviewCodec;
import dev.ace.binpacker.cluster.AdmissionWiring;
import dev.ace.binpacker.cluster.OfflineConfig;
import dev.ace.binpacker.cluster.node.NodeListLoader;
import dev.ace.binpacker.cluster.node.NodeMapper;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.PackerConfig;
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
 * What a hostile pod costs one /mutate call, body to answer (JSON parse, decode, classify, decide; no
 * HTTP), by its size up to the 7 MiB limit (issue 17: 200,000 {@code '} after {@code --tp} once cost 9 s).
 * Linear means the time per MiB stays flat as {@code mib} grows. Shapes: {@code quotes}, one argument of
 * quotes after {@code --tp} inside a shell script; {@code words}, a script of one-letter words (the most
 * tokens per byte); {@code env}, thousands of environment variables; {@code annotation}, a 7 MiB
 * {@code ace.dev/tensor-parallel} value quoted in the denial. Run with {@code bench/jmh.sh WorstCasePodBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 4, time = 2)
@Fork(1)
public class WorstCasePodBenchmark {
    @Param({"1", "3", "7"})
    public int mib;

    @Param({"quotes", "words", "env", "annotation"})
    public String shape;

    private ReviewCodec codec;
    private AdmissionEngine engine;
    private byte[] body;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        ObjectMapper mapper = Json.newMapper();
        codec = new ReviewCodec(mapper);
        ClusterState s = new ClusterState();
        NodeMapper nodes = NodeMapper.standard();
        NodeListLoader.demo().forEach(n -> s.upsert(nodes.map(n)));
        Allocator allocator = new Allocator(s, PackerConfig.defaults());
        engine = AdmissionWiring.of(OfflineConfig.packaged(), AdmissionWiring.Edge.standalone(() -> allocator, new PendingDemand(Metrics.NOOP), mapper,
                NamespacePolicies.always(NamespaceMode.WARN), () -> 0L)).engine();
        body = review(mapper, shape, mib * 1024 * 1024 - 4096);
        if (body.length > 7 * 1024 * 1024) throw new IllegalStateException("over the 7 MiB limit: " + body.length);
    }

    /** A dry-run review of a 3-GPU Job (denied as fracturing, reserving nothing) carrying {@code bytes} of the shape. */
    static byte[] review(ObjectMapper mapper, String shape, int bytes) throws Exception {
        ObjectNode r = mapper.createObjectNode().put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
        ObjectNode req = r.putObject("request").put("uid", "bench").put("operation", "CREATE").put("namespace", "ml").put("dryRun", true);
        req.putObject("kind").put("group", "").put("version", "v1").put("kind", "Pod");
        req.putObject("resource").put("group", "").put("version", "v1").put("resource", "pods");
        ObjectNode pod = req.putObject("object").put("apiVersion", "v1").put("kind", "Pod");
        ObjectNode meta = pod.putObject("metadata").put("generateName", "ft-").put("namespace", "ml");
        meta.putObject("labels").put("batch.kubernetes.io/job-name", "ft");
        ObjectNode c = pod.putObject("spec").putArray("containers").addObject().put("name", "main").put("image", "vllm/vllm-openai");
        c.putObject("resources").putObject("limits").put("nvidia.com/gpu", 3);
        ArrayNode args = c.putArray("args");
        switch (shape) {
            case "quotes" -> args.add("sh").add("-c").add("vllm serve m --tp " + "'".repeat(bytes) + " x");
            case "words" -> args.add("sh").add("-c").add("a ".repeat(bytes / 2));
            case "env" -> {
                ArrayNode env = c.putArray("env");
                // ~47 bytes of JSON per variable: bytes / 48 keeps a 7 MiB pod under the limit (bytes / 40 did not)
                for (int i = 0; i < bytes / 48; i++) env.addObject().put("name", "TP_SIZE").put("value", "'''''''" + i);
            }
            case "annotation" -> meta.putObject("annotations").put("ace.dev/tensor-parallel", "'".repeat(bytes));
            default -> throw new IllegalArgumentException(shape);
        }
        return mapper.writeValueAsBytes(r);
    }

    @Benchmark
    public AdmissionResult mutate() throws Exception {
        JsonNode tree = codec.mapper().readTree(body);
        AdmissionRequest request = codec.decode(tree);
        return engine.mutate(request);
    }
}
