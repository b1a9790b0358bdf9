package dev.ace.binpacker.cluster.dra;

import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.truth.dra.ClaimSelector;
import dev.ace.binpacker.truth.dra.DraDevice;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.PodResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The claim that makes kube-scheduler allocate exactly the GPUs ACE reserved on a DRA-served node, and the pod
 * edits that use it. The pod's containers ask {@code nvidia.com/gpu}; each asking container gets one device request
 * of the ResourceClaimTemplate ({@code gpus-0}, {@code gpus-1}... in container order) with {@code count} = what it
 * asked and a CEL selector naming its share of the reserved GPUs by UUID ({@link ClaimSelector}); the extended
 * resource is taken out of its {@code limits} and {@code requests} and {@code resources.claims} names its request.
 * The pod references the template under {@code spec.resourceClaims[name=ace-gpus]} (so the claim kube-controller-
 * manager makes from it is owned by the pod and goes away with it) and records {@code ace.dev/rewritten-from:
 * nvidia.com/gpu=<k>}. Pure: it returns new objects and changes neither input. Refuses, with a reason, a pod whose
 * GPU asks do not add up to the reserved GPUs, an init container asking GPUs, or a pod that already names the claim.
 */
public final class ClaimRender {
    /** The pod's claim entry, and the name each container's {@code resources.claims} uses. */
    public static final String CLAIM = "ace-gpus";

    /** The template and the pod that references it. */
    public record Rendered(ResourceClaimTemplate template, Pod pod) {}

    private ClaimRender() {}

    /**
     * @param devices     the reserved GPUs' whole-GPU devices, in the order they go to containers
     * @param driver      the GPU driver ({@code gpu.nvidia.com})
     * @param deviceClass the DeviceClass of whole GPUs ({@code gpu.nvidia.com}, as the driver's chart ships it)
     * @param template    the template's name (one per reservation)
     */
    public static Rendered render(Pod pod, List<DraDevice> devices, String driver, String deviceClass, String template) {
        Objects.requireNonNull(pod.getSpec(), "pod.spec");
        Objects.requireNonNull(template, "template");
        if (pod.getSpec().getInitContainers() != null) {
            for (Container c : pod.getSpec().getInitContainers()) {
                if (gpus(c) > 0) throw new IllegalArgumentException("init container " + c.getName() + " asks " + AceKeys.GPU + "; ACE writes claims for app containers only");
            }
        }
        if (pod.getSpec().getResourceClaims() != null && pod.getSpec().getResourceClaims().stream().anyMatch(r -> CLAIM.equals(r.getName()))) {
            throw new IllegalArgumentException("the pod already has a resource claim named " + CLAIM);
        }
        Pod out = new PodBuilder(pod).build();
        List<DeviceRequest> requests = new ArrayList<>();
        int next = 0;
        for (Container c : out.getSpec().getContainers()) {
            long k = gpus(c);
            if (k <= 0) continue;
            if (next + k > devices.size()) throw new IllegalArgumentException("the containers ask more than the " + devices.size() + " reserved GPUs");
            String request = "gpus-" + requests.size();
            ClaimSelector sel = ClaimSelector.of(driver, devices.subList(next, (int) (next + k)));
            next += (int) k;
            requests.add(new DeviceRequestBuilder().withName(request).withNewExactly().withDeviceClassName(deviceClass)
                    .withAllocationMode("ExactCount").withCount(sel.count()).addNewSelector().withNewCel()
                    .withExpression(sel.expression()).endCel().endSelector().endExactly().build());
            ResourceRequirements r = c.getResources();
            r.setLimits(without(r.getLimits()));
            r.setRequests(without(r.getRequests()));
            List<io.fabric8.kubernetes.api.model.ResourceClaim> claims = r.getClaims() == null ? new ArrayList<>() : new ArrayList<>(r.getClaims());
            claims.add(new io.fabric8.kubernetes.api.model.ResourceClaim(CLAIM, request));
            r.setClaims(claims);
        }
        if (next != devices.size()) {
            throw new IllegalArgumentException("the containers ask " + next + " " + AceKeys.GPU + ", not the " + devices.size() + " reserved GPUs");
        }
        List<PodResourceClaim> podClaims = out.getSpec().getResourceClaims() == null ? new ArrayList<>() : new ArrayList<>(out.getSpec().getResourceClaims());
        podClaims.add(new PodResourceClaimBuilder().withName(CLAIM).withResourceClaimTemplateName(template).build());
        out.getSpec().setResourceClaims(podClaims);
        Map<String, String> ann = out.getMetadata().getAnnotations() == null ? new HashMap<>() : new HashMap<>(out.getMetadata().getAnnotations());
        ann.put(AceKeys.REWRITTEN_FROM, AceKeys.GPU + "=" + devices.size());
        out.getMetadata().setAnnotations(ann);
        ResourceClaimTemplate t = new ResourceClaimTemplateBuilder().withNewMetadata().withName(template)
                .withNamespace(pod.getMetadata().getNamespace()).addToLabels(AceKeys.MANAGED_BY, AceKeys.MANAGED_BY_ACE).endMetadata()
                .withNewSpec().withNewSpec().withNewDevices().withRequests(requests).endDevices().endSpec().endSpec().build();
        return new Rendered(t, out);
    }

    /** What a container asks of {@code nvidia.com/gpu}: its limit (an extended resource's request equals it), else its request. */
    static long gpus(Container c) {
        ResourceRequirements r = c.getResources();
        if (r == null) return 0;
        Quantity q = r.getLimits() == null ? null : r.getLimits().get(AceKeys.GPU);
        if (q == null && r.getRequests() != null) q = r.getRequests().get(AceKeys.GPU);
        if (q == null) return 0;
        java.math.BigDecimal v = q.getNumericalAmount();
        if (v.signum() < 0 || v.stripTrailingZeros().scale() > 0) throw new IllegalArgumentException("container " + c.getName() + " asks " + q + " " + AceKeys.GPU);
        return v.longValueExact();
    }

    private static Map<String, Quantity> without(Map<String, Quantity> m) {
        if (m == null) return null;
        Map<String, Quantity> out = new java.util.LinkedHashMap<>(m);
        out.remove(AceKeys.GPU);
        return out;
    }
}
