package dev.ace.binpacker.bench;

import dev.ace.binpacker.admission.AdmissionEngine;
import dev.ace.binpacker.admission.AdmissionRequest;
import dev.ace.binpacker.admission.AdmissionResult;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.Resources;
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
 * A committed {@code /mutate} of a vLLM TP pod (not a dry run: the clique is reserved, then given back so the fleet
 * stays as filled) while {@code held} other reservations are held: pending ones, made at admission for pods of 100
 * namespaces that have not appeared yet, each pinning CPU and memory to its node. Issue 31 measured 6-7 ms server-side
 * for this with 2,000-5,600 reservations held, against 0.4-1.1 ms for a dry run: on every committed admission the
 * allocator walked every pinned-but-unbound reservation ({@code refreshUsed}) and every ledger entry (the namespace
 * cap's {@code pendingOf}), under its lock. The cost should not depend on {@code held}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CommittedAdmissionBenchmark {
    @Param({"12500"})
    public int nodes;

    @Param({"0", "1000", "10000", "25000"})
    public int held;

    @Param({"4"})
    public int tp;

    private Allocator allocator;
    private AdmissionEngine engine;
    private AdmissionRequest review;
    private long n;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        allocator = ProductionFleet.load(nodes);
        Resources needs = new Resources(Map.of("cpu", 2_000L, "memory", 8L * 1024 * 1024 * 1024 * 1000));
        for (int i = 0; i < held; i++) {
            PlacementRequest r = PlacementRequest.whole("held-" + i, WorkloadClass.INFERENCE, 1, 1, List.of(Pool.values()), NodeConstraints.NONE)
                    .ownedBy(new Reservation.Owner("held-request-" + i, "tenant-" + (i % 100), "pod-" + i, null))
                    .needing(needs);
            if (!allocator.place(r, false, 0).placed()) throw new IllegalStateException("could not hold reservation " + i + " of " + held);
        }
        ProductionAdmission production = ProductionAdmission.of(allocator, tp, false);
        review = production.review();
        engine = production.engine();
        if (admitOnce().patch() == null) throw new IllegalStateException("the committed TP pod must be placed");
    }

    private AdmissionResult admitOnce() {
        String uid = "bench-" + (n++);
        AdmissionRequest r = new AdmissionRequest(uid, review.apiVersion(), review.kind(), review.subResource(), review.operation(),
                review.namespace(), review.name(), false, review.object(), review.pod());
        AdmissionResult result = engine.mutate(r);
        allocator.heldForRequest(uid).ifPresent(h -> allocator.release(h.id()));
        return result;
    }

    /** One committed admission and the release that keeps the fleet steady. */
    @Benchmark
    public AdmissionResult mutate() {
        return admitOnce();
    }
}
