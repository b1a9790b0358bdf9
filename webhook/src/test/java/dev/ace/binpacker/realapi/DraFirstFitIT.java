package dev.ace.binpacker.realapi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ace.binpacker.cluster.dra.ClaimRender;
import dev.ace.binpacker.cluster.dra.ResourceSlices;
import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.truth.dra.DraJoin;
import dev.ace.binpacker.truth.dra.DraNode;
import dev.ace.binpacker.truth.dra.DraPools;
import dev.ace.binpacker.topology.GpuBoard;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The DRA baseline of issue 32 on the real v1.36.2 control plane (default gates: DRAExtendedResource is beta and on,
 * resource.k8s.io/v1 served), ACE not involved (a namespace ACE exempts): the test publishes the NVIDIA driver's
 * ResourceSlice of 8 H100s for one node (tests/fixtures/dra/h100-8gpu-slice.yaml, taints and owner left out: no
 * driver and no kubelet run) and the DeviceClass its chart ships ({@code extendedResourceName: nvidia.com/gpu}).
 * (a) With gpu-0 held by an allocated claim, a pod asking {@code nvidia.com/gpu: 2} gets the claim kube-scheduler
 * generates ({@code status.extendedResourceClaimStatus}) with the first two free devices, gpu-1 and gpu-2: first
 * fit. (b) A claim rendered by {@link ClaimRender} for GPUs 4 and 5 gets exactly gpu-4 and gpu-5.
 */
@RealApiTest
class DraFirstFitIT {
    private static final String NODE = "dra-h100-0";
    private static final String TAINT = "realapi.ace.dev/dra";
    private static final PatchContext MERGE = PatchContext.of(PatchType.JSON_MERGE);

    @Test
    @DisplayName("Without ACE kube-scheduler hands out DRA GPUs first fit (gpu-1, gpu-2 beside a taken gpu-0); a claim ACE renders gets exactly the GPUs it names")
    void firstFitAndRenderedClaim(RealCluster c) throws Exception {
        KubernetesClient admin = c.admin();
        String ns = c.createNamespace("dra-base", Map.of(AceKeys.POLICY, "exempt"));
        ResourceSlice fixture = Serialization.unmarshal(Files.readString(Path.of("tests/fixtures/dra/h100-8gpu-slice.yaml")), ResourceSlice.class);
        ResourceSlice slice = new ResourceSliceBuilder(fixture).editMetadata().withName(NODE + "-gpu.nvidia.com").withOwnerReferences(List.of()).endMetadata()
                .editSpec().withNodeName(NODE).editPool().withName(NODE).endPool().endSpec().build();
        slice.getSpec().getDevices().forEach(d -> d.setTaints(null));
        DeviceClass cls = Serialization.unmarshal(Files.readString(Path.of("tests/fixtures/dra/deviceclass-gpu.yaml")), DeviceClass.class);
        var claims = admin.resources(ResourceClaim.class).inNamespace(ns);
        try {
            admin.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).addToLabels("kubernetes.io/hostname", NODE).endMetadata()
                    .withNewSpec().endSpec().build()).create();
            c.nodes().ready(NODE, 0); // no nvidia.com/gpu allocatable: its GPUs are served through DRA only
            // Only this test's pods go there (ready() waits for a node without taints, so the taint comes after).
            admin.nodes().withName(NODE).edit(n -> new NodeBuilder(n).editSpec().addNewTaint().withKey(TAINT).withValue("true")
                    .withEffect("NoSchedule").endTaint().endSpec().build());
            admin.resources(ResourceSlice.class).resource(slice).create();
            if (admin.resources(DeviceClass.class).withName(cls.getMetadata().getName()).get() == null) admin.resources(DeviceClass.class).resource(cls).create();

            // gpu-0 is taken: a claim allocated to it, its status written as kube-scheduler writes it.
            claims.resource(new ResourceClaimBuilder().withNewMetadata().withName("taken").endMetadata().withNewSpec().withNewDevices()
                    .addNewRequest().withName("gpu").withNewExactly().withDeviceClassName("gpu.nvidia.com").withAllocationMode("ExactCount")
                    .withCount(1L).endExactly().endRequest().endDevices().endSpec().build()).create();
            claims.withName("taken").subresource("status").patch(MERGE, "{\"status\":{\"allocation\":{\"devices\":{\"results\":[{\"request\":\"gpu\","
                    + "\"driver\":\"gpu.nvidia.com\",\"pool\":\"" + NODE + "\",\"device\":\"gpu-0\"}]},\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchFields\":"
                    + "[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[\"" + NODE + "\"]}]}]}}}}");

            // (a) the extended resource, served by DRA: first fit.
            admin.pods().inNamespace(ns).resource(pod("tp2-first-fit", 2)).create();
            Pod placed = awaitScheduled(admin, ns, "tp2-first-fit",
                    p -> p.getStatus() != null && p.getStatus().getExtendedResourceClaimStatus() != null);
            String generated = placed.getStatus().getExtendedResourceClaimStatus().getResourceClaimName();
            assertEquals(List.of("gpu-1", "gpu-2"), allocated(claims.withName(generated).get()),
                    "kube-scheduler's own claim takes the first free devices in slice order, whatever the NVLink shape");

            // (b) the claim ACE renders for GPUs 4 and 5 (joined by the fixture's UUIDs), created by the test in ACE's place.
            var devices = DraPools.byNode(List.of(ResourceSlices.of(slice)), Set.of("gpu.nvidia.com")).get(NODE);
            DraNode node = DraJoin.join(devices, Files.readAllLines(Path.of("tests/fixtures/dra/h100-uuids.txt")), Optional.empty());
            ClaimRender.Rendered r = ClaimRender.render(pod("tp2-ace", 2), node.devices(GpuBoard.mask(4, 5)), "gpu.nvidia.com", "gpu.nvidia.com", "tp2-ace-gpus");
            // No resourceclaim-controller runs in this control plane: the test makes the claim the template would give.
            claims.resource(new ResourceClaimBuilder().withNewMetadata().withName("tp2-ace-gpus").endMetadata()
                    .withSpec(r.template().getSpec().getSpec()).build()).create();
            Pod rendered = new PodBuilder(r.pod()).editMetadata().withAnnotations(Map.of()).endMetadata() // ace.dev/ keys are ACE's own
                    .editSpec().editFirstResourceClaim().withResourceClaimTemplateName(null).withResourceClaimName("tp2-ace-gpus").endResourceClaim().endSpec().build();
            admin.pods().inNamespace(ns).resource(rendered).create();
            awaitScheduled(admin, ns, "tp2-ace", p -> true);
            Conditions.await("claim tp2-ace-gpus allocated", Duration.ofMinutes(1), () -> !allocated(claims.withName("tp2-ace-gpus").get()).isEmpty());
            assertEquals(List.of("gpu-4", "gpu-5"), allocated(claims.withName("tp2-ace-gpus").get()));
        } finally {
            // No kubelet confirms the pods' deaths and no resourceclaim-controller lifts the claims' delete-protection
            // finalizer that kube-scheduler set: both are done here, or the namespace never goes.
            admin.pods().inNamespace(ns).withGracePeriod(0).delete();
            for (ResourceClaim rc : claims.list().getItems()) {
                claims.withName(rc.getMetadata().getName()).patch(MERGE, "{\"metadata\":{\"finalizers\":null}}");
            }
            c.deleteNamespace(ns);
            admin.resources(ResourceSlice.class).withName(slice.getMetadata().getName()).delete();
            admin.resources(DeviceClass.class).withName(cls.getMetadata().getName()).delete();
            admin.nodes().withName(NODE).delete();
        }
    }

    private static Pod pod(String name, int gpus) {
        return new PodBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
                .addToNodeSelector("kubernetes.io/hostname", NODE).addNewToleration().withKey(TAINT).withOperator("Exists").endToleration()
                .addNewContainer().withName("vllm").withImage("vllm/vllm-openai:v0.8.5")
                .withNewResources().addToLimits(AceKeys.GPU, new io.fabric8.kubernetes.api.model.Quantity(Integer.toString(gpus))).endResources()
                .endContainer().endSpec().build();
    }

    private static Pod awaitScheduled(KubernetesClient admin, String ns, String name, java.util.function.Predicate<Pod> also) {
        Conditions.await(() -> "pod " + ns + "/" + name + " scheduled to " + NODE + ": " + admin.pods().inNamespace(ns).withName(name).get().getStatus(),
                Duration.ofMinutes(2), () -> {
                    Pod p = admin.pods().inNamespace(ns).withName(name).get();
                    return p != null && NODE.equals(p.getSpec().getNodeName()) && also.test(p);
                });
        return admin.pods().inNamespace(ns).withName(name).get();
    }

    private static List<String> allocated(ResourceClaim claim) {
        if (claim == null || claim.getStatus() == null || claim.getStatus().getAllocation() == null) return List.of();
        return claim.getStatus().getAllocation().getDevices().getResults().stream().map(d -> d.getDevice()).sorted().toList();
    }
}
