package dev.ace.binpacker.cluster.view;

import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The GPUs an allocated DRA ResourceClaim ({@code resource.k8s.io/v1}) holds on its node: the devices of
 * {@code status.allocation.devices.results[]} whose driver is one of the configured GPU drivers, each named
 * by the physical GPU it lives on. The node is the one {@code status.allocation.nodeSelector} names
 * ({@code matchFields metadata.name In [node]}, what kube-scheduler writes for node-local devices), else the
 * pool of the results (the NVIDIA driver names its pool after the node). A MIG device of the NVIDIA driver
 * ({@code gpu-<n>-mig-...}) holds its parent GPU {@code gpu-<n>}: the parent is no longer free for whole-GPU
 * or clique use. Results with {@code adminAccess} (monitoring access to devices in use) hold nothing.
 * A claim not allocated, or with no GPU device, is empty.
 */
public record ClaimGpus(String uid, String key, String node, Set<String> gpus) {
    /** The NVIDIA DRA driver for GPUs (k8s-dra-driver-gpu): whole GPUs {@code gpu-<n>} and MIG devices {@code gpu-<n>-mig-...}. */
    static final String NVIDIA = "gpu.nvidia.com";
    public static final Set<String> DEFAULT_DRIVERS = Set.of(NVIDIA);

    /** A device name of the NVIDIA driver: {@code gpu-<n>} or a MIG device of it, {@code gpu-<n>-mig-<profile>-...}. */
    private static final Pattern NVIDIA_DEVICE = Pattern.compile("gpu-(\\d{1,2})(-mig-.*)?");

    public ClaimGpus {
        gpus = Set.copyOf(gpus);
    }

    boolean empty() { return node == null || gpus.isEmpty(); }

    static ClaimGpus of(ResourceClaim claim, Set<String> drivers) {
        String uid = claim.getMetadata().getUid();
        String key = claim.getMetadata().getNamespace() + "/" + claim.getMetadata().getName();
        AllocationResult a = claim.getStatus() == null ? null : claim.getStatus().getAllocation();
        if (a == null || a.getDevices() == null || a.getDevices().getResults() == null) return new ClaimGpus(uid, key, null, Set.of());
        Set<String> gpus = new LinkedHashSet<>();
        Set<String> pools = new LinkedHashSet<>();
        for (DeviceRequestAllocationResult r : a.getDevices().getResults()) {
            if (r.getDriver() == null || r.getDevice() == null || !drivers.contains(r.getDriver())) continue;
            if (Boolean.TRUE.equals(r.getAdminAccess())) continue;
            gpus.add(parent(r.getDriver(), r.getDevice()));
            if (r.getPool() != null) pools.add(r.getPool());
        }
        String node = nodeOf(a.getNodeSelector()).orElse(pools.size() == 1 ? pools.iterator().next() : null);
        return new ClaimGpus(uid, key, node, gpus);
    }

    /** The physical GPU a device is (or lives on): its parent for a MIG device of the NVIDIA driver, else the device itself. */
    static String parent(String driver, String device) {
        if (NVIDIA.equals(driver)) {
            Matcher m = NVIDIA_DEVICE.matcher(device);
            if (m.matches()) return "gpu-" + m.group(1);
        }
        return device;
    }

    /** The GPU index a device name of the NVIDIA driver gives ({@code gpu-3} -> 3), or -1. */
    static int index(String gpu) {
        Matcher m = NVIDIA_DEVICE.matcher(gpu);
        return m.matches() && m.group(2) == null ? Integer.parseInt(m.group(1)) : -1;
    }

    /** The one node a nodeSelector names by {@code metadata.name} (or {@code kubernetes.io/hostname}), if it names exactly one. */
    static Optional<String> nodeOf(NodeSelector s) {
        if (s == null || s.getNodeSelectorTerms() == null || s.getNodeSelectorTerms().size() != 1) return Optional.empty();
        NodeSelectorTerm t = s.getNodeSelectorTerms().get(0);
        for (NodeSelectorRequirement r : concat(t.getMatchFields(), t.getMatchExpressions())) {
            boolean byName = "metadata.name".equals(r.getKey()) || "kubernetes.io/hostname".equals(r.getKey());
            if (byName && "In".equals(r.getOperator()) && r.getValues() != null && r.getValues().size() == 1) return Optional.of(r.getValues().get(0));
        }
        return Optional.empty();
    }

    private static List<NodeSelectorRequirement> concat(List<NodeSelectorRequirement> a, List<NodeSelectorRequirement> b) {
        List<NodeSelectorRequirement> out = new java.util.ArrayList<>();
        if (a != null) out.addAll(a);
        if (b != null) out.addAll(b);
        return out;
    }
}
