package dev.ace.binpacker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.ReservationStore;
import dev.ace.binpacker.workload.Pods;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Fracturing shapes are refused whatever the class label says; a namespace's pending reservations are capped. */
class ShapesAndCapTest {

    static Pod labelled(Pod pod, String cls) {
        Map<String, String> labels = pod.getMetadata().getLabels() == null ? new HashMap<>() : new HashMap<>(pod.getMetadata().getLabels());
        labels.put(AceKeys.WORKLOAD_CLASS, cls);
        pod.getMetadata().setLabels(labels);
        return pod;
    }

    @ParameterizedTest(name = "{1} GPUs labelled {0}")
    @CsvSource({"inference,3", "inference,5", "inference,6", "inference,7", "embedding,3", "embedding,6", "batch,5", "interactive,7"})
    void a_size_that_is_no_aligned_block_fractures_in_every_class(String cls, int gpus) {
        EngineFixture f = EngineFixture.small();
        AdmissionResult r = f.mutate(labelled(PodPolicyTest.tp(gpus), cls));
        assertFalse(r.allowed(), cls + " " + gpus);
        assertTrue(r.message().contains(gpus + " GPUs") && r.message().contains("would fracture the 8-GPU NVLink domains"), r.message());
        assertTrue(r.message().contains("changes the class, not the allowed shapes"), r.message());
        assertEquals(0, f.allocator.ledger().size());
    }

    @ParameterizedTest(name = "TP {0} inference server")
    @CsvSource({"2", "4", "8"})
    void aligned_blocks_are_placed(int gpus) {
        EngineFixture f = EngineFixture.small();
        assertTrue(f.mutate(PodPolicyTest.tp(gpus)).patch() != null);
        assertEquals(1, f.allocator.ledger().size());
    }

    @Test
    void an_llm_server_asking_for_3_gpus_is_refused_too_without_any_label() {
        EngineFixture f = EngineFixture.small();
        AdmissionResult r = f.mutate(PodPolicyTest.tp(3));
        assertFalse(r.allowed());
        assertTrue(r.message().startsWith("3 GPUs inference server would fracture"), r.message());
    }

    @Test
    void three_gpus_on_pcie_only_nodes_fracture_no_nvlink_domain() {
        EngineFixture f = EngineFixture.small();
        Pod pod = Pods.gpuPod(PodPolicyTest.VLLM, "[--tp, '3']", "3", "nodeSelector: {nvidia.com/gpu.product: NVIDIA-L40S}");
        AdmissionResult r = f.mutate(pod);
        assertTrue(r.allowed());
        assertTrue(f.patched(pod, r).getMetadata().getAnnotations().get(AceKeys.RESERVATION).contains("l40s-0"));
    }

    @Test
    void a_jobs_lone_gpu_labelled_inference_may_fill_a_used_domain_but_not_split_a_clean_one() {
        EngineFixture f = EngineFixture.small();
        AdmissionResult clean = f.mutate(labelled(BackgroundAndModesTest.job(1, null), "inference"));
        assertFalse(clean.allowed());
        assertTrue(clean.message().contains("would split a clean 8-GPU NVLink domain"), clean.message());
        f.mutate(PodPolicyTest.tp(4));
        AdmissionResult hole = f.mutate(labelled(BackgroundAndModesTest.job(1, null), "inference"));
        assertTrue(hole.allowed(), hole.message());
        assertEquals(2, f.allocator.ledger().size());
    }

    @Test
    void a_real_one_gpu_inference_server_still_gets_a_whole_gpu_on_a_clean_fleet() {
        EngineFixture f = EngineFixture.small();
        assertTrue(f.mutate(PodPolicyTest.tp(1)).patch() != null);
        assertEquals(1, f.allocator.ledger().size());
    }

    /** An inference-pool HGX with one GPU cut into MIG slices (mig.strategy mixed): it offers whole GPUs and 1g.10gb. */
    static dev.ace.binpacker.placement.NodeInfo hgxWithMig(String name) {
        var n = EngineFixture.hgx(name);
        var labels = new HashMap<>(n.labels());
        labels.put("nvidia.com/mig.strategy", "mixed");
        labels.put("nvidia.com/mig-1g.10gb.count", "7");
        return new dev.ace.binpacker.placement.NodeInfo(name, n.pool(), labels, n.taints(), n.board(), "test", n.gpuModel(), 0);
    }

    static final String MIG_INIT = BackgroundAndModesTest.H100 + """

            initContainers:
            - name: prep
              image: busybox
              resources: {limits: {nvidia.com/mig-1g.10gb: 1}}
            """;

    @Test
    void whole_gpus_are_policed_whatever_slices_the_pod_also_asks_for() {
        EngineFixture f = new EngineFixture(EngineFixture.hgx("hgx-0"), hgxWithMig("hgx-mig-0"));
        AdmissionResult r = f.mutate(BackgroundAndModesTest.job(3, MIG_INIT));
        assertFalse(r.allowed());
        assertTrue(r.message().contains("3 GPUs batch job would fracture"), r.message());
    }

    @Test
    void a_pod_asking_for_a_mig_slice_beside_whole_gpus_is_pinned_only_to_a_node_that_offers_the_slice() {
        EngineFixture f = new EngineFixture(EngineFixture.hgx("hgx-0"), hgxWithMig("hgx-mig-0"));
        Pod pod = BackgroundAndModesTest.job(2, MIG_INIT);
        AdmissionResult r = f.mutate(pod);
        assertTrue(r.allowed(), r.message());
        assertTrue(f.patched(pod, r).getMetadata().getAnnotations().get(AceKeys.RESERVATION).contains("\"node\":\"hgx-mig-0\""));
        EngineFixture noMig = new EngineFixture(EngineFixture.hgx("hgx-0"), EngineFixture.hgx("hgx-1"));
        AdmissionResult there = noMig.mutate(BackgroundAndModesTest.job(2, MIG_INIT));
        assertTrue(there.allowed() && there.patch() == null, "no node offers the slice: not pinned anywhere");
        assertEquals(0, noMig.allocator.ledger().size());
        Pod control = BackgroundAndModesTest.job(2, BackgroundAndModesTest.H100);
        AdmissionResult c = noMig.mutate(control);
        assertTrue(noMig.patched(control, c).getMetadata().getAnnotations().get(AceKeys.RESERVATION).contains("\"node\":\"hgx-"),
                "the same job without the slice is placed there");
    }

    @Test
    void past_the_cap_of_pending_reservations_a_namespace_is_told_why_and_others_are_not_affected() {
        EngineFixture f = new EngineFixture(Map.of("ace.policy.max-pending-per-namespace", "2"),
                EngineFixture.hgx("hgx-0"), EngineFixture.hgx("hgx-1"));
        String first = null;
        for (int i = 0; i < 2; i++) {
            Pod pod = OwnOutputsTest.named(PodPolicyTest.tp(1), "p" + i);
            AdmissionResult r = f.mutate(pod);
            assertTrue(r.patch() != null);
            if (first == null) first = ReservationJson.read(f.mapper, f.patched(pod, r).getMetadata().getAnnotations().get(AceKeys.RESERVATION), 0).orElseThrow().id();
        }
        AdmissionResult third = f.mutate(OwnOutputsTest.named(PodPolicyTest.tp(1), "p2"));
        assertFalse(third.allowed());
        assertTrue(third.message().contains("namespace ml already has 2 GPU reservations waiting for their pods"), third.message());
        assertEquals(2, f.allocator.pendingIn("ml"), "the refused request keeps nothing");
        assertTrue(f.engine.mutate(f.request(OwnOutputsTest.named(PodPolicyTest.tp(1), "q"), "other", false)).patch() != null);
        EngineFixture.tieToPod(f.allocator, first);
        assertTrue(f.mutate(OwnOutputsTest.named(PodPolicyTest.tp(1), "p3")).patch() != null, "a pod that appeared frees a slot");
    }

    @Test
    void a_tp_pod_refused_by_the_cap_is_refused_before_anything_is_written_to_the_shared_ledger() {
        List<String> written = new java.util.ArrayList<>();
        List<String> removed = new java.util.ArrayList<>();
        ReservationStore store = new ReservationStore() {
            @Override public List<Reservation> commit(Reservation r) { written.add(r.id()); return List.of(); }

            @Override public void remove(Reservation r) { removed.add(r.id()); }
        };
        EngineFixture f = new EngineFixture(Map.of("ace.policy.max-pending-per-namespace", "1"), store,
                EngineFixture.hgx("hgx-0"), EngineFixture.hgx("hgx-1"));
        assertTrue(f.mutate(OwnOutputsTest.named(PodPolicyTest.tp(2), "p0")).patch() != null);
        assertEquals(1, written.size(), "the first is committed");
        AdmissionResult second = f.mutate(OwnOutputsTest.named(PodPolicyTest.tp(2), "p1"));
        assertFalse(second.allowed());
        assertTrue(second.message().contains("namespace ml already has 1 GPU reservations waiting for their pods"), second.message());
        assertEquals(1, written.size(), "the refused one never reached the store");
        assertEquals(List.of(), removed, "so nothing had to be taken back");
        assertEquals(1, f.allocator.pendingIn("ml"));
        AdmissionResult dry = f.engine.mutate(f.request(OwnOutputsTest.named(PodPolicyTest.tp(2), "p2"), "ml", true));
        assertTrue(dry.allowed(), "a dry run reserves nothing, so the cap does not refuse it: " + dry.message());
    }

    @Test
    void the_cap_counts_multi_gpu_batch_reservations_too() {
        EngineFixture f = new EngineFixture(Map.of("ace.policy.max-pending-per-namespace", "1"),
                EngineFixture.hgx("hgx-0"), EngineFixture.hgx("hgx-1"), EngineFixture.hgx("hgx-2"));
        assertTrue(f.mutate(BackgroundAndModesTest.job(2, null)).patch() != null);
        AdmissionResult second = f.mutate(BackgroundAndModesTest.job(2, null));
        assertFalse(second.allowed());
        assertTrue(second.message().contains("the most ACE allows per namespace (1)"), second.message());
        assertEquals(1, f.allocator.ledger().size());
    }
}
