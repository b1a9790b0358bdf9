package dev.ace.binpacker.bench;

import dev.ace.binpacker.admission.AdmissionEngine;
import dev.ace.binpacker.admission.AdmissionRequest;
import dev.ace.binpacker.admission.AdmissionResult;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.PlacementResult;
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
 * A TP decision on an inventory loaded the production way ({@link ProductionFleet}: YAML,
 * NodeListLoader, NodeMapper, every NVLink node with an {@code ace.dev/topology} annotation).
 * {@code decide}: the packer alone. {@code mutate}: one dry-run {@code /mutate} call of a vLLM TP pod through
 * production's admission wiring ({@code AdmissionWiring} with the packaged settings, as {@code serve} builds it):
 * classify, the pools and shape question, the packer's decision and the lone-GPU check under one lock hold, the patch.
 * No HTTP and no JSON decode of the review (the pod arrives as the model object); dry run, so nothing is reserved and
 * the fleet stays as filled.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ProductionPathBenchmark {
    @Param({"1213", "12500"})
    public int nodes;

    @Param({"2", "4", "8"})
    public int tp;

    /** packed: filled by ACE itself; fragmented: random GPUs held on every node (every free-mask state occurs). */
    @Param({"packed", "fragmented"})
    public String fill;

    private Allocator allocator;
    private PlacementRequest request;
    private AdmissionEngine engine;
    private AdmissionRequest review;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        allocator = ProductionFleet.load(nodes);
        if (fill.equals("packed")) SyntheticClusters.fill(allocator, 0.55, 42);
        else SyntheticClusters.fragment(allocator, 0.55, 42);
        request = SyntheticClusters.tpRequest("bench", tp);
        if (!(allocator.packer().decide(request) instanceof PlacementResult.Placed)) {
            throw new IllegalStateException("the placed-path benchmark must place: " + allocator.packer().decide(request));
        }
        ProductionAdmission production = ProductionAdmission.of(allocator, tp);
        engine = production.engine();
        review = production.review();
        AdmissionResult first = engine.mutate(review);
        if (!first.allowed() || first.patch() == null) throw new IllegalStateException("the dry-run TP pod must be placed: " + first);
    }

    @Benchmark
    public PlacementResult decide() {
        return allocator.packer().decide(request);
    }

    @Benchmark
    public AdmissionResult mutate() {
        return engine.mutate(review);
    }
}
