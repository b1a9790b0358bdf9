package dev.ace.binpacker.truth.dra;

import java.util.List;
import java.util.Objects;

/**
 * One ResourceSlice ({@code resource.k8s.io/v1}) as ACE reads it: which driver and pool it belongs to, the pool's
 * generation and slice count ({@code spec.pool.generation}, {@code spec.pool.resourceSliceCount}), the node it
 * serves ({@code spec.nodeName}; null for slices of several nodes, {@code allNodes} or a {@code nodeSelector}:
 * they do not describe one node's GPUs) and its devices.
 */
public record DraSlice(String name, String driver, String pool, long generation, long sliceCount, String node,
                       List<DraDevice> devices) {
    public DraSlice {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(driver, "driver");
        Objects.requireNonNull(pool, "pool");
        if (generation < 0) throw new IllegalArgumentException("slice " + name + ": pool generation " + generation + " is negative");
        if (sliceCount < 1) throw new IllegalArgumentException("slice " + name + ": resourceSliceCount " + sliceCount + " is not at least 1");
        devices = devices == null ? List.of() : List.copyOf(devices);
    }
}
