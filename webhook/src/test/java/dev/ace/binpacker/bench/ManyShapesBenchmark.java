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
 * A decision when the learned demand has many distinct shapes (here 400 node selectors, as a cluster of many teams, or
 * a tenant who varies its selector to make decisions expensive, would teach it): the fragmentation target keeps at most
 * {@code shapes} of them ({@code FragmentationScorer.TARGET_SHAPES}, 160 in production; 64 before), so the cost per
 * decision is bounded by the cap, not by what tenants send. 12,500 HGX nodes, 55 % filled by ACE.
 * Run: {@code bench/jmh.sh ManyShapesBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ManyShapesBenchmark {
    static final int DISTINCT = 400;

    @Param({"64", "160"})
    public int shapes;

    @Param({"1", "8"})
    public int tp;

    private Allocator allocator;
    private PlacementRequest request;

    @Setup(Level.Trial)
    public void setUp() {
        ClusterState state = SyntheticClusters.hgxFleet(12_500, 42);
        allocator = new Allocator(state, PackerConfig.defaults().withTargetShapes(shapes));
        int[] sizes = {1, 2, 4, 8};
        for (int round = 0; round < 8; round++) {
            for (int i = 0; i < DISTINCT; i++) {
                NodeConstraints c = new NodeConstraints(Map.of("example.com/team", "team-" + i), List.of(), List.of());
                int g = sizes[i % sizes.length];
                allocator.packer().observe(PlacementRequest.whole("learn-" + round + "-" + i, WorkloadClass.INFERENCE, g, g,
                        List.of(Pool.INFERENCE), c));
            }
        }
        SyntheticClusters.fill(allocator, 0.55, 42);
        request = SyntheticClusters.tpRequest("bench", tp);
        if (!(allocator.packer().decide(request) instanceof PlacementResult.Placed)) throw new IllegalStateException("must place");
    }

    @Benchmark
    public PlacementResult decide() {
        return allocator.packer().decide(request);
    }

    /** Admission's reserve and release: each placement is learned, so the mix (and, in 2 % steps, the tables) move. */
    @Benchmark
    public boolean placeAndRelease() {
        return SyntheticClusters.placeAndRelease(allocator, request);
    }
}
