package dev.ace.binpacker.bench;

import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.PackerConfig;
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
 * One placement decision on a busy cluster. {@code decide} is the packer alone (read-only);
 * {@code placeAndRelease} is what admission does: decide, reserve atomically, and (to keep the
 * state steady) release again. Run with {@code bench/jmh.sh} (see docs/performance.md).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PlacementBenchmark {
    /** 1213 = the openb cluster's node count (mixed boards); 12500 = a 100,000-GPU HGX fleet. */
    @Param({"1213", "12500"})
    public int nodes;

    @Param({"1", "2", "4", "8"})
    public int tp;

    /** packed: filled by ACE itself (few distinct board states); fragmented: random GPUs held on every node (all states occur). */
    @Param({"packed", "fragmented"})
    public String fill;

    private Allocator allocator;
    private PlacementRequest request;
    private PlacementRequest constrained;

    @Setup(Level.Trial)
    public void setUp() {
        ClusterState state = nodes == 12500 ? SyntheticClusters.hgxFleet(nodes, 42) : SyntheticClusters.mixed(nodes, 42);
        allocator = new Allocator(state, PackerConfig.defaults());
        if (fill.equals("packed")) SyntheticClusters.fill(allocator, 0.55, 42);
        else SyntheticClusters.fragment(allocator, 0.55, 42);
        request = SyntheticClusters.tpRequest("bench", tp);
        constrained = PlacementRequest.whole("bench-c", WorkloadClass.INFERENCE, tp, tp, List.of(Pool.INFERENCE),
                new NodeConstraints(Map.of("topology.kubernetes.io/zone", "zone-b"), List.of(), List.of()));
    }

    @Benchmark
    public PlacementResult decide() {
        return allocator.packer().decide(request);
    }

    @Benchmark
    public PlacementResult decideWithNodeSelector() {
        return allocator.packer().decide(constrained);
    }

    @Benchmark
    public boolean placeAndRelease() {
        return SyntheticClusters.placeAndRelease(allocator, request);
    }
}
