package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.admission.GateRelease;
import dev.ace.binpacker.admission.NamespaceMode;
import dev.ace.binpacker.cluster.controller.ReconcilerConfig;
import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.workload.Pods;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 34's small finding, "a GPU-less pod in an exempt namespace was once released onto a GPU by the gate keeper":
 * ACE skips exempt namespaces entirely, so a pod created there with ACE's scheduling gate keeps it, and the leader's
 * Pod informer queued every pod carrying the gate, whatever it asked for, as a waiter for {@code max(1, gpus)} GPUs
 * ({@code GateRelease.waitingFor}): the gate keeper then reserved a GPU for it, pinned it and removed the gate. ACE
 * gates only pods that ask for whole GPUs, so a gate on any other pod is not ACE's: it is never queued, nothing is
 * reserved for it, and the pod keeps its gate. The control: a gated pod of the same namespace that asks for a GPU is
 * still released onto one, as before.
 */
class ForeignGateTest {
    private static final ReconcilerConfig CONFIG = new ReconcilerConfig(120_000, 5_000, 3_000, ReconcilerConfig.EMPTY_REPORT_GRACE_MILLIS, 0, 60_000);

    private final FakeCluster c = new FakeCluster(1);
    private final Replica r = new Replica("r0", c.ledger, c.podApi, c.json, CONFIG, c.clock::get, Map.of("tools", NamespaceMode.EXEMPT));
    private final Watch watch = new Watch(c, r.view);

    private Pod gatedInExempt(String name, String gpus) {
        Pod p = Pods.gpuPod("busybox", "[sleep, '3600']", gpus, null);
        p.getMetadata().setName(name);
        p.getMetadata().setNamespace("tools");
        if (gpus.equals("0")) p.getSpec().getContainers().get(0).setResources(null); // no GPU request at all
        p.getSpec().setSchedulingGates(List.of(new PodSchedulingGate(AceKeys.GATE)));
        Pod admitted = r.admit(p, "req-" + name);
        assertSame(p, admitted, "exempt: ACE passes the pod as it came");
        Pod created = c.create(admitted);
        watch.deliverAll();
        return created;
    }

    private void passes(int n) {
        for (int i = 0; i < n; i++) {
            watch.deliverAll();
            r.reconciler.reconcile(() -> true);
            watch.deliverAll();
            c.clock.addAndGet(2_000);
        }
    }

    private Pod live(Pod p) { return c.pods.get(p.getMetadata().getUid()); }

    @Test
    void a_gpu_less_pod_with_aces_gate_in_an_exempt_namespace_is_never_released_onto_a_gpu() {
        c.putNode(TestNodes.hgx("hgx-0", 8));
        watch.deliverAll();
        Pod noGpu = gatedInExempt("no-gpu", "0");
        passes(5);
        Pod after = live(noGpu);
        assertTrue(GateRelease.isGated(after), "ACE did not gate it and does not release it");
        assertTrue(GateRelease.pinnedNode(after).isEmpty(), "not pinned");
        assertNull(after.getMetadata().getAnnotations() == null ? null : after.getMetadata().getAnnotations().get(AceKeys.RESERVATION));
        assertFalse(r.pending.contains(after.getMetadata().getUid()), "not a waiter");
        assertEquals(0, (int) r.allocator.read(a -> a.ledger().size()), "no GPU held for it");

        Pod oneGpu = gatedInExempt("one-gpu", "1");
        passes(5);
        Pod released = live(oneGpu);
        assertFalse(GateRelease.isGated(released), "the control: a gated pod that asks for a GPU is released");
        assertEquals("hgx-0", GateRelease.pinnedNode(released).orElseThrow());
        assertEquals(1, (int) r.allocator.read(a -> a.ledger().size()), "one GPU, the control's");
        assertTrue(GateRelease.isGated(live(noGpu)), "the GPU-less pod still keeps its gate");
    }
}
