package dev.ace.binpacker.cluster.dra;

import dev.ace.binpacker.truth.dra.DraDevice;
import dev.ace.binpacker.truth.dra.DraSlice;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumption;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A {@code resource.k8s.io/v1} ResourceSlice (fabric8's model) as the pure {@link DraSlice} the inventory reads.
 * Attribute names are the NVIDIA DRA driver's (see {@link DraDevice}); an attribute is found under its bare name or
 * qualified by the driver's domain ({@code gpu.nvidia.com/uuid}: the same attribute, KEP 4381). Bad input is refused
 * with the slice's name: a slice without a driver, a pool or a pool generation is not one the API server serves.
 */
public final class ResourceSlices {
    /** Kubernetes' standard attribute domain ({@code k8s.io/dynamic-resource-allocation/deviceattribute}). */
    static final String STANDARD = "resource.kubernetes.io/";

    private ResourceSlices() {}

    public static DraSlice of(ResourceSlice s) {
        String name = s.getMetadata() == null ? null : s.getMetadata().getName();
        ResourceSliceSpec spec = s.getSpec();
        if (name == null || spec == null) throw new IllegalArgumentException("ResourceSlice " + name + " has no metadata.name or spec");
        if (spec.getDriver() == null || spec.getPool() == null || spec.getPool().getName() == null) {
            throw new IllegalArgumentException("ResourceSlice " + name + " has no spec.driver or spec.pool.name");
        }
        long generation = spec.getPool().getGeneration() == null ? 0 : spec.getPool().getGeneration();
        long count = spec.getPool().getResourceSliceCount() == null ? 1 : spec.getPool().getResourceSliceCount();
        List<DraDevice> devices = new ArrayList<>();
        if (spec.getDevices() != null) for (Device d : spec.getDevices()) devices.add(device(name, spec.getDriver(), d));
        return new DraSlice(name, spec.getDriver(), spec.getPool().getName(), generation, count, spec.getNodeName(), devices);
    }

    static DraDevice device(String slice, String driver, Device d) {
        if (d.getName() == null || d.getName().isBlank()) throw new IllegalArgumentException("ResourceSlice " + slice + " has a device without a name");
        Map<String, DeviceAttribute> a = d.getAttributes() == null ? Map.of() : d.getAttributes();
        List<String> counterSets = new ArrayList<>();
        if (d.getConsumesCounters() != null) {
            for (DeviceCounterConsumption c : d.getConsumesCounters()) if (c.getCounterSet() != null) counterSets.add(c.getCounterSet());
        }
        List<DraDevice.Taint> taints = new ArrayList<>();
        if (d.getTaints() != null) {
            for (DeviceTaint t : d.getTaints()) if (t.getKey() != null) taints.add(new DraDevice.Taint(t.getKey(), t.getValue(), t.getEffect()));
        }
        Long numa = integer(a, driver, STANDARD + "numaNode");
        return new DraDevice(d.getName(), DraDevice.Kind.of(string(a, driver, "type")), string(a, driver, "uuid"),
                string(a, driver, "parentUUID"), string(a, driver, "productName"), string(a, driver, STANDARD + "pcieRoot"),
                string(a, driver, STANDARD + "pciBusID"), numa == null ? -1 : numa.intValue(), counterSets, taints);
    }

    private static DeviceAttribute attribute(Map<String, DeviceAttribute> a, String driver, String name) {
        DeviceAttribute v = a.get(name);
        return v != null || name.contains("/") ? v : a.get(driver + "/" + name);
    }

    private static String string(Map<String, DeviceAttribute> a, String driver, String name) {
        DeviceAttribute v = attribute(a, driver, name);
        return v == null ? null : v.getString();
    }

    private static Long integer(Map<String, DeviceAttribute> a, String driver, String name) {
        DeviceAttribute v = attribute(a, driver, name);
        return v == null ? null : v.getInt();
    }
}
