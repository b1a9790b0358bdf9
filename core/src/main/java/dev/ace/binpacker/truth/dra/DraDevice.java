package dev.ace.binpacker.truth.dra;

import java.util.List;
import java.util.Objects;

/**
 * One device of a GPU driver's ResourceSlice ({@code resource.k8s.io/v1} {@code spec.devices[]}), with the
 * attributes ACE reads. Names are those of the NVIDIA DRA driver (NVIDIA/k8s-dra-driver-gpu,
 * {@code cmd/gpu-kubelet-plugin/deviceinfo.go} {@code GpuInfo.Attributes}, {@code mig.go} {@code CommonAttributesMig}):
 * {@code type} ({@code gpu} or {@code mig}), {@code uuid}, {@code parentUUID} (MIG), {@code productName};
 * {@code resource.kubernetes.io/pcieRoot} and {@code resource.kubernetes.io/pciBusID} (Kubernetes'
 * {@code deviceattribute} package, set where the driver found them). The driver publishes no GPU index (removed
 * in its commit 36fc80ab, 2025-09) and no NUMA node for GPUs; {@code numaNode} is read where a driver sets
 * {@code resource.kubernetes.io/numaNode}, else -1.
 *
 * @param name         the device name in the slice ({@code gpu-0}, {@code gpu-0-mig-1g10gb-19-0})
 * @param kind         what the {@code type} attribute says
 * @param uuid         {@code GPU-...} or {@code MIG-...}; "" when absent
 * @param parentUuid   the GPU a MIG device lives on; "" otherwise
 * @param counterSets  the shared counter sets the device consumes (partitionable devices), e.g. {@code gpu-0-counter-set}
 * @param taints       the device's taints as the driver publishes them (health events)
 */
public record DraDevice(String name, Kind kind, String uuid, String parentUuid, String productName, String pcieRoot,
                        String pciBusId, int numaNode, List<String> counterSets, List<Taint> taints) {
    /** The {@code type} attribute: a whole GPU, a MIG device, or anything else (vfio, a driver's other kinds). */
    public enum Kind {
        GPU, MIG, OTHER;

        public static Kind of(String type) {
            if ("gpu".equals(type)) return GPU;
            if ("mig".equals(type)) return MIG;
            return OTHER;
        }
    }

    /**
     * A device taint ({@code spec.devices[].taints[]}). The NVIDIA driver taints on health events:
     * {@code gpu.nvidia.com/xid} (NoSchedule, or None for a non-fatal XID), {@code gpu.nvidia.com/gpu-lost}
     * (NoSchedule), {@code gpu.nvidia.com/unmonitored} (None) ({@code cmd/gpu-kubelet-plugin/device_health.go}).
     */
    public record Taint(String key, String value, String effect) {
        public Taint {
            Objects.requireNonNull(key, "key");
            value = value == null ? "" : value;
            effect = effect == null ? "" : effect;
        }

        /** NoSchedule and NoExecute keep new claims off the device; None only informs. */
        public boolean fences() { return "NoSchedule".equals(effect) || "NoExecute".equals(effect); }

        @Override
        public String toString() { return key + (value.isEmpty() ? "" : "=" + value) + ":" + effect; }
    }

    public DraDevice {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        uuid = uuid == null ? "" : uuid;
        parentUuid = parentUuid == null ? "" : parentUuid;
        productName = productName == null ? "" : productName;
        pcieRoot = pcieRoot == null ? "" : pcieRoot;
        pciBusId = pciBusId == null ? "" : pciBusId;
        counterSets = counterSets == null ? List.of() : List.copyOf(counterSets);
        taints = taints == null ? List.of() : List.copyOf(taints);
    }

    /** The device carries a taint that keeps new claims off it (the GPU is unhealthy: ACE holds it). */
    public boolean fenced() { return taints.stream().anyMatch(Taint::fences); }
}
