package dev.ace.binpacker.bench;

import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.PackerConfig;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.WorkloadClass;
import java.util.List;
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
 * What one admission costs while a TP 8 replica waits for a clique (its earmark, {@code placement.Earmarks}, is
 * kept up to date on every decision), against the same admission with nobody waiting: a TP {@code tp} place and
 * release on the packed fleet. Run with {@code bench/jmh.sh EarmarkBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class EarmarkBenchmark {
    @Param({"1213", "12500"})
    public int nodes;

    @Param({"1", "4"})
    public int tp;

    @Param({"false", "true"})
    public boolean waiting;

    private Allocator allocator;
    private PlacementRequest request;

    @Setup(Level.Trial)
    public void setUp() {
        ClusterState state = nodes == 12500 ? SyntheticClusters.hgxFleet(nodes, 42) : SyntheticClusters.mixed(nodes, 42);
        allocator = new Allocator(state, PackerConfig.defaults());
        SyntheticClusters.fill(allocator, 0.55, 42);
        request = SyntheticClusters.tpRequest("bench", tp);
        if (waiting) {
            allocator.awaiting("waiting-tp8",
                    PlacementRequest.whole("waiting-tp8", WorkloadClass.INFERENCE, 8, 8, List.of(Pool.INFERENCE), NodeConstraints.NONE));
        }
    }

    @Benchmark
    public boolean placeAndRelease() {
        return SyntheticClusters.placeAndRelease(allocator, request);
    }
}
