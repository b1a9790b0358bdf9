package dev.ace.binpacker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.Taint;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 34: a non-TP GPU pod is decided by every node it can really reach as it is, not by the first rule that
 * matches. These are the cases the random property test ({@link ReachPropertyTest}) cannot meet on the demo inventory:
 * a node whose hostname label is not its name, an inference node with a NoSchedule taint, and an embedding pod, each
 * beside its control.
 */
class ReachRulesTest {
    /** hgx-0 registered with a hostname label that is not its name (the kubelet's --hostname-override, cloud providers). */
    private static NodeInfo hgxNamedOtherwise() {
        NodeInfo n = EngineFixture.hgx("hgx-0");
        Map<String, String> labels = new HashMap<>(n.labels());
        labels.put(AceKeys.HOSTNAME, "ip-10-0-0-7.internal");
        return new NodeInfo(n.name(), n.pool(), labels, n.taints(), n.board(), n.boardSource(), n.gpuModel(), 0);
    }

    private static EngineFixture fleet(NodeInfo inference) {
        return new EngineFixture(inference, EngineFixture.pcieNode("l40s-0", 4), EngineFixture.migNode("mig-0"));
    }

    @Test
    void spec_node_name_is_the_nodes_name_whatever_its_hostname_label_says() {
        EngineFixture f = fleet(hgxNamedOtherwise());
        AdmissionResult r = f.mutate(BackgroundAndModesTest.job(1, "nodeName: hgx-0"));
        assertFalse(r.allowed(), "bound to an inference board: refused, not left untouched");
        assertTrue(r.message().contains("bound by spec.nodeName to hgx-0"), r.message());
        AdmissionResult control = f.mutate(BackgroundAndModesTest.job(1, "nodeName: l40s-0"));
        assertTrue(control.allowed() && control.patch() == null, "bound to pool general: left as it is");
    }

    @Test
    void match_fields_metadata_name_is_the_nodes_name_whatever_its_hostname_label_says() {
        EngineFixture f = fleet(hgxNamedOtherwise());
        Pod pod = BackgroundAndModesTest.job(1, """
                affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [
                  {matchFields: [{key: metadata.name, operator: In, values: [hgx-0]}]},
                  {matchFields: [{key: metadata.name, operator: In, values: [l40s-0]}]}]}}}""");
        AdmissionResult r = f.mutate(pod);
        assertTrue(r.allowed(), r.message());
        String reservation = f.patched(pod, r).getMetadata().getAnnotations().get(AceKeys.RESERVATION);
        assertTrue(reservation.contains("\"node\":\"l40s-0\""), "placed off the inference board it could reach: " + reservation);
        Pod control = BackgroundAndModesTest.job(1, """
                affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [
                  {matchFields: [{key: metadata.name, operator: In, values: [l40s-0]}]}]}}}""");
        AdmissionResult c = f.mutate(control);
        assertTrue(c.allowed() && c.patch() == null, "only pool general: left as it is");
    }

    @Test
    void a_no_schedule_taint_does_not_keep_a_pod_bound_by_node_name_off_its_node() {
        NodeInfo h = EngineFixture.hgx("hgx-0");
        NodeInfo tainted = new NodeInfo(h.name(), Pool.INFERENCE, h.labels(), List.of(new Taint("dedicated", "llm", "NoSchedule")),
                h.board(), h.boardSource(), h.gpuModel(), 0);
        EngineFixture f = fleet(tainted);
        AdmissionResult bound = f.mutate(BackgroundAndModesTest.job(1, "nodeName: hgx-0"));
        assertFalse(bound.allowed(), "the kubelet admits it there: " + bound.message());
        AdmissionResult selected = f.mutate(BackgroundAndModesTest.job(1, "nodeSelector: {kubernetes.io/hostname: hgx-0}"));
        assertTrue(selected.allowed() && selected.patch() == null,
                "the control: kube-scheduler keeps a pod that selects it off the tainted node, so it is left as it is");
        assertEquals(0, f.allocator.ledger().size());
    }

    @Test
    void an_embedding_pod_kept_off_pool_slicing_is_reserved_where_the_packer_says_never_left_to_kube_scheduler() {
        EngineFixture f = fleet(EngineFixture.hgx("hgx-0"));
        Pod pod = BackgroundAndModesTest.job(1, "nodeSelector: {ace.dev/pool: inference}");
        pod.getMetadata().setLabels(Map.of(AceKeys.WORKLOAD_CLASS, "embedding"));
        AdmissionResult r = f.mutate(pod);
        assertTrue(r.allowed(), r.message());
        assertTrue(f.patched(pod, r).getMetadata().getAnnotations().get(AceKeys.RESERVATION).contains("\"node\":\"hgx-0\""),
                "an embedding server's lone GPU, reserved and pinned");
        Pod job = BackgroundAndModesTest.job(1, "nodeSelector: {ace.dev/pool: inference}");
        job.getMetadata().setLabels(Map.of(AceKeys.WORKLOAD_CLASS, "embedding", "batch.kubernetes.io/job-name", "embed"));
        EngineFixture clean = fleet(EngineFixture.hgx("hgx-0"));
        AdmissionResult j = clean.mutate(job);
        assertFalse(j.allowed(), "a Job's pod labelled embedding still obeys the lone-GPU rule on a clean board");
        assertTrue(j.message().startsWith("1 GPU of a Job's pod would split a clean 8-GPU NVLink domain on hgx-0"), j.message());
        AdmissionResult hole = f.mutate(job);
        assertTrue(hole.allowed(), "beside the server's GPU, in a used domain, it may fill a hole: " + hole.message());
    }
}
