package dev.ace.binpacker.realapi;

import static dev.ace.binpacker.realapi.Refusals.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The opt-in gpu-device-guard (webhook-config/gpu-device-guard), installed as docs/webhook.md says, on the
 * real API server: a tenant's pod that reaches GPUs without asking the device plugin for one is refused, each
 * trick beside its control (the same pod asking for a GPU, or without the trick); the namespaces it exempts
 * and ordinary pods pass. The real server type-checks the policy against the Pod schema and runs the
 * ephemeral-container subresource, which the CEL library test ({@code GpuDeviceGuardCelTest}) cannot.
 * Removed again afterwards: it is opt-in, and the other scenarios run without it.
 */
@RealApiTest
class GpuDeviceGuardIT {
    private static final String POLICY = "ace-guard-gpu-devices";
    private static final String IMAGE = "nvcr.io/nvidia/cuda:12.4.0-base-ubuntu22.04";
    private static final io.fabric8.kubernetes.client.dsl.base.PatchContext MERGE =
            io.fabric8.kubernetes.client.dsl.base.PatchContext.of(io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE);

    @Test
    @DisplayName("gpu-device-guard: NVIDIA_VISIBLE_DEVICES/NVIDIA_DRIVER_CAPABILITIES, privileged and /dev/nvidia* hostPaths without a GPU request are refused; with a GPU request, in an exempt namespace, and ordinary pods pass")
    void deviceAccessWithoutAGpuRequestIsRefused(RealCluster c, TestNamespace ns) throws Exception {
        List<HasMetadata> objects = AceInstall.render(c.controlPlane(), Path.of("webhook-config", "gpu-device-guard").toString());
        assertEquals(List.of("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"), objects.stream().map(HasMetadata::getKind).toList());
        String suffix = UUID.randomUUID().toString().substring(0, 4);
        // An ACE-exempt namespace (ACE leaves its pods as written: a lone-GPU control is not ACE's business here) that
        // the guard still covers, and one the guard exempts by name (the GPU operator's).
        String aceExempt = c.createNamespace("vap-dev", Map.of(AceKeys.POLICY, "exempt"));
        String operatorNs = "gpu-operator";
        c.admin().namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata().withName(operatorNs)
                .withLabels(Map.of(AceKeys.POLICY, "exempt")).endMetadata().build()).serverSideApply();
        try {
            objects.forEach(o -> c.admin().resource(o).forceConflicts().serverSideApply());
            KubernetesClient tenant = Tenants.editor(c, ns.name(), "eve-" + suffix);
            KubernetesClient tenantAceExempt = Tenants.editor(c, aceExempt, "eve-" + suffix + "-x");
            KubernetesClient operator = Tenants.editor(c, operatorNs, "gpu-operator-" + suffix);

            typeChecksCleanly(c);
            Conditions.await("the gpu-device-guard is in force", Duration.ofMinutes(1), () -> {
                try {
                    dryRun(tenant, pod(ns.name(), "probe", b -> b.editSpec().editFirstContainer().withNewSecurityContext().withPrivileged(true).endSecurityContext().endContainer().endSpec()));
                    return false;
                } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                    return e.getCode() == 403 && e.getMessage().contains("is privileged without requesting a GPU");
                }
            });

            // 1. NVIDIA_VISIBLE_DEVICES=all: the NVIDIA runtime would hand the container every GPU of its node.
            UnaryOperator<PodBuilder> visible = b -> b.editSpec().editFirstContainer().addNewEnv().withName("NVIDIA_VISIBLE_DEVICES").withValue("all").endEnv().endContainer().endSpec();
            refused(403, "container main of pod all-gpus sets NVIDIA_VISIBLE_DEVICES or NVIDIA_DRIVER_CAPABILITIES without requesting a GPU",
                    () -> dryRun(tenant, pod(ns.name(), "all-gpus", visible)));
            refused(403, "sets NVIDIA_VISIBLE_DEVICES", () -> dryRun(tenant, pod(ns.name(), "from-cm", b -> b.editSpec().editFirstContainer().addNewEnv()
                    .withName("NVIDIA_VISIBLE_DEVICES").withNewValueFrom().withNewConfigMapKeyRef("k", "c", false).endValueFrom().endEnv().endContainer().endSpec())));
            // ... in an init container, and on a pod that names its node itself (no scheduler in between).
            refused(403, "container init of pod init-gpus sets NVIDIA_VISIBLE_DEVICES", () -> dryRun(tenant, pod(ns.name(), "init-gpus",
                    b -> b.editSpec().addNewInitContainer().withName("init").withImage(IMAGE).addNewEnv().withName("NVIDIA_VISIBLE_DEVICES")
                            .withValue("0,1,2,3").endEnv().endInitContainer().endSpec())));
            refused(403, "sets NVIDIA_VISIBLE_DEVICES", () -> dryRun(tenant, pod(ns.name(), "pinned",
                    b -> visible.apply(b).editSpec().withNodeName("hgx-h100-0").endSpec())));
            // 2. NVIDIA_DRIVER_CAPABILITIES.
            refused(403, "container main of pod caps sets NVIDIA_VISIBLE_DEVICES or NVIDIA_DRIVER_CAPABILITIES", () -> dryRun(tenant, pod(ns.name(), "caps",
                    b -> b.editSpec().editFirstContainer().addNewEnv().withName("NVIDIA_DRIVER_CAPABILITIES").withValue("compute,utility").endEnv().endContainer().endSpec())));
            // 3. privileged: every /dev device of the node.
            UnaryOperator<PodBuilder> privileged = b -> b.editSpec().editFirstContainer().withNewSecurityContext().withPrivileged(true).endSecurityContext().endContainer().endSpec();
            refused(403, "container main of pod priv is privileged without requesting a GPU",
                    () -> dryRun(tenant, pod(ns.name(), "priv", privileged)));
            // 4. a hostPath of /dev/nvidia0 (and of /dev) mounted into the container.
            UnaryOperator<PodBuilder> hostDev = b -> b.editSpec().editFirstContainer().addNewVolumeMount().withName("dev").withMountPath("/host-dev").endVolumeMount()
                    .endContainer().endSpec().editSpec().addNewVolume().withName("dev").withNewHostPath().withPath("/dev/nvidia0").endHostPath().endVolume().endSpec();
            refused(403, "container main of pod host-dev mounts the host /dev or its GPU devices without requesting a GPU",
                    () -> dryRun(tenant, pod(ns.name(), "host-dev", hostDev)));
            refused(403, "mounts the host /dev", () -> dryRun(tenant, pod(ns.name(), "host-all", b -> b.editSpec().editFirstContainer().addNewVolumeMount()
                    .withName("dev").withMountPath("/host-dev").endVolumeMount().endContainer().endSpec().editSpec().addNewVolume().withName("dev")
                    .withNewHostPath().withPath("/dev").endHostPath().endVolume().endSpec())));

            // Controls: the same pods asking the device plugin for a GPU pass (in a namespace ACE leaves alone, so only the
            // guard speaks), and so do ordinary pods, a hostPath elsewhere and NVIDIA_VISIBLE_DEVICES=void.
            UnaryOperator<PodBuilder> gpu = b -> b.editSpec().editFirstContainer().withNewResources()
                    .withLimits(Map.of(AceKeys.GPU, new Quantity("1"))).endResources().endContainer().endSpec();
            for (UnaryOperator<PodBuilder> trick : List.of(visible, privileged, hostDev)) {
                assertNotNull(dryRun(tenantAceExempt, pod(aceExempt, "with-gpu", b -> gpu.apply(trick.apply(b)))));
                refused(403, "without requesting a GPU", () -> dryRun(tenantAceExempt, pod(aceExempt, "without-gpu", trick)));
            }
            assertNotNull(dryRun(tenant, pod(ns.name(), "plain", b -> b)));
            assertNotNull(dryRun(tenant, pod(ns.name(), "void", b -> b.editSpec().editFirstContainer().addNewEnv().withName("NVIDIA_VISIBLE_DEVICES")
                    .withValue("void").endEnv().endContainer().endSpec())));
            assertNotNull(dryRun(tenant, pod(ns.name(), "logs", b -> b.editSpec().editFirstContainer().addNewVolumeMount().withName("logs").withMountPath("/logs")
                    .endVolumeMount().endContainer().endSpec().editSpec().addNewVolume().withName("logs").withNewHostPath().withPath("/var/log").endHostPath()
                    .endVolume().endSpec())));
            // An exempt namespace (the GPU operator's device plugin and DCGM reach GPUs by design): every trick passes.
            for (UnaryOperator<PodBuilder> trick : List.of(visible, privileged, hostDev)) {
                assertNotNull(dryRun(operator, pod(operatorNs, "device-plugin", trick)));
            }

            // 5. kubectl debug: a privileged ephemeral container added to a running pod (pods/ephemeralcontainers).
            // The edit role does not include pods/ephemeralcontainers: granted here, as a platform team grants kubectl debug.
            c.admin().rbac().roles().inNamespace(ns.name()).resource(new io.fabric8.kubernetes.api.model.rbac.RoleBuilder().withNewMetadata()
                    .withName("debug").endMetadata().addNewRule().withApiGroups("").withResources("pods/ephemeralcontainers")
                    .withVerbs("get", "update", "patch").endRule().build()).create();
            c.admin().rbac().roleBindings().inNamespace(ns.name()).resource(new io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder()
                    .withNewMetadata().withName("debug").endMetadata().withNewRoleRef().withApiGroup("rbac.authorization.k8s.io")
                    .withKind("Role").withName("debug").endRoleRef().addNewSubject().withApiGroup("rbac.authorization.k8s.io")
                    .withKind("User").withName("eve-" + suffix).endSubject().build()).create();
            Pod target = tenant.pods().inNamespace(ns.name()).resource(pod(ns.name(), "target", b -> b)).create();
            Conditions.await("RBAC: eve may add ephemeral containers", Duration.ofMinutes(1), () -> {
                try {
                    tenant.pods().inNamespace(ns.name()).withName("target").ephemeralContainers().patch(MERGE, "{}");
                    return true;
                } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                    return false;
                }
            });
            assertNotNull(target);
            var ephemeral = tenant.pods().inNamespace(ns.name()).withName("target").ephemeralContainers();
            refused(403, "container debugger of pod target is privileged without requesting a GPU", () -> ephemeral.patch(MERGE,
                    debugger("\"securityContext\":{\"privileged\":true}")));
            refused(403, "container debugger of pod target sets NVIDIA_VISIBLE_DEVICES", () -> ephemeral.patch(MERGE,
                    debugger("\"env\":[{\"name\":\"NVIDIA_VISIBLE_DEVICES\",\"value\":\"all\"}]")));
            Pod debugged = ephemeral.patch(MERGE, debugger("\"command\":[\"sh\"]"));
            assertEquals(List.of("debugger"), debugged.getSpec().getEphemeralContainers().stream().map(e -> e.getName()).toList());
        } finally {
            for (int i = objects.size() - 1; i >= 0; i--) c.admin().resource(objects.get(i)).delete();
            c.deleteNamespace(aceExempt);
            c.deleteNamespace(operatorNs);
        }
    }

    /**
     * The type-check warnings the API server's status controller writes on the policy (an expression that does not
     * fit the Pod schema errs at run time: with failurePolicy Fail, every pod would be refused). The suite's
     * kube-controller-manager runs without that controller, so the status may be absent; the allowed controls
     * below are what shows the expressions run.
     */
    private static void typeChecksCleanly(RealCluster c) {
        ValidatingAdmissionPolicy p = c.admin().admissionRegistration().v1().validatingAdmissionPolicies().withName(POLICY).get();
        assertNotNull(p, POLICY + " installed");
        if (p.getStatus() == null || p.getStatus().getTypeChecking() == null) return;
        assertEquals(List.of(), p.getStatus().getTypeChecking().getExpressionWarnings(), "type-check warnings of " + POLICY);
    }

    /** A merge patch adding ephemeral container {@code debugger} (what kubectl debug adds) with these fields besides name and image. */
    private static String debugger(String fields) {
        return "{\"spec\":{\"ephemeralContainers\":[{\"name\":\"debugger\",\"image\":\"busybox\"," + fields + "}]}}";
    }

    private static Pod pod(String ns, String name, UnaryOperator<PodBuilder> edit) {
        return edit.apply(new PodBuilder().withNewMetadata().withName(name).withNamespace(ns).endMetadata()
                .withNewSpec().addNewContainer().withName("main").withImage(IMAGE).withArgs("sleep", "3600").endContainer().endSpec()).build();
    }

    /** A server-side dry run: every admission step runs (ACE's webhooks, this policy), nothing is stored or reserved. */
    private static Pod dryRun(KubernetesClient client, Pod p) {
        return client.pods().inNamespace(p.getMetadata().getNamespace()).resource(p).dryRun().create();
    }
}
