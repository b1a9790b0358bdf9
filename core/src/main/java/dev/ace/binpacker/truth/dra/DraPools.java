package dev.ace.binpacker.truth.dra;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The GPU devices each node's ResourceSlices publish, read as the scheduler reads a pool
 * (KEP 4381, {@code resource.k8s.io/v1} {@code ResourcePool}): a pool is the slices of one driver with one
 * {@code spec.pool.name}; only the slices of its highest {@code generation} count (older ones are being replaced);
 * the pool is complete when that many slices as {@code resourceSliceCount} says are there. An incomplete pool,
 * a device listed twice in one pool, or slices of one pool naming different nodes are problems: the node is held
 * until the driver has published it whole. Slices of drivers that are not GPU drivers, and slices that serve no
 * single node ({@code allNodes}, a {@code nodeSelector}), are left out. Pure: no I/O.
 */
public final class DraPools {
    /** A node's devices from every complete GPU-driver pool that serves it, and what kept any pool out. */
    public record NodeDevices(String node, List<DraDevice> devices, List<String> problems) {
        public NodeDevices {
            Objects.requireNonNull(node, "node");
            devices = List.copyOf(devices);
            problems = List.copyOf(problems);
        }
    }

    private DraPools() {}

    /** Every node a configured GPU driver serves, by node name (sorted). */
    public static Map<String, NodeDevices> byNode(List<DraSlice> slices, Set<String> gpuDrivers) {
        Map<String, List<DraSlice>> pools = new TreeMap<>();
        for (DraSlice s : slices) {
            if (!gpuDrivers.contains(s.driver()) || s.node() == null || s.node().isBlank()) continue;
            pools.computeIfAbsent(s.driver() + "/" + s.pool(), k -> new ArrayList<>()).add(s);
        }
        Map<String, List<DraDevice>> devices = new TreeMap<>();
        Map<String, List<String>> problems = new TreeMap<>();
        for (Map.Entry<String, List<DraSlice>> e : pools.entrySet()) {
            String pool = e.getKey();
            long newest = e.getValue().stream().mapToLong(DraSlice::generation).max().orElse(0);
            List<DraSlice> current = e.getValue().stream().filter(s -> s.generation() == newest).toList();
            Set<String> nodes = new java.util.TreeSet<>();
            current.forEach(s -> nodes.add(s.node()));
            if (nodes.size() > 1) {
                for (String n : nodes) problems.computeIfAbsent(n, k -> new ArrayList<>())
                        .add("pool " + pool + " generation " + newest + " has slices for several nodes " + nodes);
                continue;
            }
            String node = nodes.iterator().next();
            devices.computeIfAbsent(node, k -> new ArrayList<>());
            long want = current.stream().mapToLong(DraSlice::sliceCount).max().orElse(1);
            if (current.size() < want) {
                problems.computeIfAbsent(node, k -> new ArrayList<>()).add("pool " + pool + " generation " + newest + " has "
                        + current.size() + " of its " + want + " ResourceSlices (the driver is still publishing it)");
                continue;
            }
            Set<String> names = new HashSet<>();
            List<DraDevice> mine = new ArrayList<>();
            String twice = null;
            for (DraSlice s : current) {
                for (DraDevice d : s.devices()) {
                    if (!names.add(d.name())) twice = d.name();
                    mine.add(d);
                }
            }
            if (twice != null) {
                problems.computeIfAbsent(node, k -> new ArrayList<>()).add("pool " + pool + " lists device " + twice + " twice");
                continue;
            }
            devices.get(node).addAll(mine);
        }
        Map<String, NodeDevices> out = new TreeMap<>();
        Set<String> all = new java.util.TreeSet<>(devices.keySet());
        all.addAll(problems.keySet());
        for (String n : all) out.put(n, new NodeDevices(n, devices.getOrDefault(n, List.of()), problems.getOrDefault(n, List.of())));
        return out;
    }
}
