package dev.ace.binpacker.bench;

import dev.ace.binpacker.admission.AdmissionResult;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.PlacementResult;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.WorkloadClass;
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
 * The decision that ends in Unschedulable (the pod is gated): a TP8 request on the production-loaded
 * inventory when no node has 8 free GPUs, so every node's first failing filter is counted for
 * the message. With and without a nodeSelector (the pod's own constraints come from
 * remembered bitsets, not from matching every node's labels). {@code mutate}: the whole dry-run {@code /mutate}
 * call of such a pod through production's wiring ({@link ProductionAdmission}), answered gated.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class UnschedulableBenchmark {
    private ProductionAdmission admission;

    @Param({"1213", "12500"})
    public int nodes;

    private Allocator allocator;
    private PlacementRequest tp8;
    private PlacementRequest tp8InZone;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        allocator = ProductionFleet.load(nodes);
        ProductionFleet.noFullNodes(allocator, 0.4, 42);
        tp8 = SyntheticClusters.tpRequest("bench", 8);
        tp8InZone = PlacementRequest.whole("bench-z", WorkloadClass.INFERENCE, 8, 8, List.of(Pool.INFERENCE),
                new NodeConstraints(Map.of("topology.kubernetes.io/zone", "zone-b"), List.of(), List.of()));
        if (!(allocator.packer().decide(tp8) instanceof PlacementResult.Unschedulable)) {
            throw new IllegalStateException("the unschedulable benchmark must not place");
        }
        admission = ProductionAdmission.of(allocator, 8);
        AdmissionResult first = admission.engine().mutate(admission.review());
        if (!first.allowed() || first.patch() == null || !first.warnings().toString().contains("gated")) {
            throw new IllegalStateException("the dry-run TP 8 pod must be answered gated: " + first);
        }
    }

    @Benchmark
    public PlacementResult decide() {
        return allocator.packer().decide(tp8);
    }

    @Benchmark
    public PlacementResult decideWithNodeSelector() {
        return allocator.packer().decide(tp8InZone);
    }

    /** One dry-run {@code /mutate} of a TP 8 vLLM pod through production's wiring: no clique is free, so it is answered gated. */
    @Benchmark
    public AdmissionResult mutate() {
        return admission.engine().mutate(admission.review());
    }
}
