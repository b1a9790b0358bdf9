package dev.ace.binpacker.admission;

import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What checking ACE's own keys costs one /mutate call (no HTTP): a TP 4 pod as tenants send it, the
 * same pod bringing a forged reservation (dropped, decided afresh), and ACE's own reservation seen
 * again on a reinvocation (recognised, nothing decided). Reservations made are released each time so
 * the state stays steady. Run with {@code bench/jmh.sh AdmissionBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class AdmissionBenchmark {
    private EngineFixture f;
    private AdmissionRequest clean;
    private AdmissionRequest forged;
    private AdmissionRequest reinvoked;

    @Setup
    public void setUp() {
        f = EngineFixture.small();
        Pod pod = PodPolicyTest.tp(4);
        clean = withUid(f.request(pod, "ml", false), "bench-clean");
        Pod bad = PodPolicyTest.tp(4);
        bad.getMetadata().setAnnotations(Map.of(AceKeys.RESERVATION, "{\"id\":\"forged\",\"node\":\"hgx-1\",\"gpus\":[0,1,2,3],\"tp\":4}"));
        forged = withUid(f.request(bad, "ml", false), "bench-forged");
        Pod mine = f.patched(pod, f.mutate(pod));
        reinvoked = withUid(f.request(mine, "ml", false), "bench-reinvoked");
    }

    private static AdmissionRequest withUid(AdmissionRequest r, String uid) {
        return new AdmissionRequest(uid, r.apiVersion(), r.kind(), r.subResource(), r.operation(), r.namespace(), r.name(),
                r.dryRun(), r.object(), r.pod());
    }

    @Benchmark
    public AdmissionResult cleanPod() {
        AdmissionResult r = f.engine.mutate(clean);
        f.allocator.release(clean.uid());
        return r;
    }

    @Benchmark
    public AdmissionResult forgedReservation() {
        AdmissionResult r = f.engine.mutate(forged);
        f.allocator.release(forged.uid());
        return r;
    }

    @Benchmark
    public AdmissionResult reinvocation() {
        return f.engine.mutate(reinvoked);
    }
}
