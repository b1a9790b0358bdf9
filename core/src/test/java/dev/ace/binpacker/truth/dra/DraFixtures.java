package dev.ace.binpacker.truth.dra;

import java.util.ArrayList;
import java.util.List;

/** Devices and slices shaped as the NVIDIA DRA driver publishes them (see tests/fixtures/dra/SOURCES.md). */
final class DraFixtures {
    static final String DRIVER = "gpu.nvidia.com";
    static final String H100 = "NVIDIA H100 80GB HBM3";

    private DraFixtures() {}

    static String uuid(int node, int i) { return String.format("GPU-%08x-0000-4000-8000-%012x", node, i); }

    static DraDevice gpu(int node, int i, DraDevice.Taint... taints) {
        return new DraDevice("gpu-" + i, DraDevice.Kind.GPU, uuid(node, i), "", H100, "pci0000:" + (i / 2),
                String.format("0000:%02x:00.0", 0x10 + i), -1, List.of(), List.of(taints));
    }

    static DraDevice mig(int node, int parent, int start) {
        return new DraDevice("gpu-" + parent + "-mig-3g40gb-9-" + start, DraDevice.Kind.MIG, String.format("MIG-%08x-%04x", node, start),
                uuid(node, parent), H100, "", String.format("0000:%02x:00.0", 0x10 + parent), -1, List.of(), List.of());
    }

    static List<DraDevice> gpus(int node, int n) {
        List<DraDevice> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(gpu(node, i));
        return out;
    }

    static List<String> uuids(int node, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(uuid(node, i));
        return out;
    }

    static DraSlice slice(String name, String node, long generation, long count, List<DraDevice> devices) {
        return new DraSlice(name, DRIVER, node, generation, count, node, devices);
    }
}
