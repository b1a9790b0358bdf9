package dev.ace.binpacker.realapi;

import static dev.ace.binpacker.realapi.Refusals.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.FileInputStream;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Issue 9: what ACE would refuse, refused when it is applied; a dry run decides without reserving. */
@RealApiTest
class ApplyTimeIT {
    @Test
    @DisplayName("kubectl apply of the demo's fracturing Job, or a CronJob of it, is refused by validate-workloads.ace.dev with the pod's reason")
    void fracturingWorkloadsRefusedAtApply(RealCluster c, TestNamespace ns) throws Exception {
        KubernetesClient tenant = Tenants.editor(c, ns.name(), "frank");
        Job job;
        try (FileInputStream in = new FileInputStream("k8s/demo/fracturing-job.yaml")) {
            List<HasMetadata> items = c.admin().load(in).items();
            job = (Job) items.get(0);
        }
        job.getMetadata().setNamespace(ns.name());
        final Job j = job;
        refused(403, "admission webhook \"validate-workloads.ace.dev\" denied the request: 3 GPUs batch job would fracture the 8-GPU NVLink domains",
                () -> tenant.batch().v1().jobs().inNamespace(ns.name()).resource(j).create());
        var cron = new CronJobBuilder().withNewMetadata().withName("nightly-ft").withNamespace(ns.name()).endMetadata()
                .withNewSpec().withSchedule("0 3 * * *").withNewJobTemplate().withSpec(job.getSpec()).endJobTemplate().endSpec().build();
        refused(403, "would fracture the 8-GPU NVLink domains", () -> tenant.batch().v1().cronjobs().inNamespace(ns.name()).resource(cron).create());
        assertEquals(List.of(), tenant.batch().v1().jobs().inNamespace(ns.name()).list().getItems());
        assertEquals(List.of(), c.ledgers().entries(ns.name()));
    }

    @Test
    @DisplayName("A server-side dry run of a TP pod gets ACE's decision in its answer and leaves no reservation in any GpuLedger")
    void dryRunLeavesNoReservation(RealCluster c, TestNamespace ns) throws Exception {
        KubernetesClient tenant = Tenants.editor(c, ns.name(), "grace");
        int before = c.ledgers().entries().size();
        Pod answer = tenant.pods().inNamespace(ns.name()).resource(TpPods.vllm(ns.name(), "llama-dry", 4)).dryRun().create();
        assertNotNull(TpPods.annotation(answer, AceKeys.DECISION), "the dry run's answer carries ACE's decision");
        assertEquals(List.of(), c.ledgers().entries(ns.name()), "a dry run reserves nothing");
        assertEquals(before, c.ledgers().entries().size());
        assertEquals(List.of(), c.admin().pods().inNamespace(ns.name()).list().getItems());
        // The same pod for real is reserved: the dry run did not make ACE skip it.
        tenant.pods().inNamespace(ns.name()).resource(TpPods.vllm(ns.name(), "llama-dry", 4)).create();
        TpPods.awaitPinnedBound(c.admin(), ns.name(), 1, java.time.Duration.ofMinutes(2));
        assertEquals(1, c.ledgers().entries(ns.name()).size());
    }
}
