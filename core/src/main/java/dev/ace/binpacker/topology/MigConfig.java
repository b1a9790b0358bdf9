package dev.ace.binpacker.topology;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A named mig-parted config as the operator lists it ({@code nvidia.com/mig.config=all-balanced}):
 * how many instances of each profile every GPU of the node gets ({@code mig-devices} with
 * {@code devices: all}). {@link #layout(MigGeometry)} finds where they sit, and refuses a config
 * the GPU cannot hold.
 *
 * @param name    the config's name, as in the label
 * @param devices instances per profile on each GPU
 */
public record MigConfig(String name, Map<String, Integer> devices) {
    public MigConfig {
        if (name == null || !name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,62}")) {
            throw new IllegalArgumentException("a mig-parted config name is a label value like all-balanced, got " + name);
        }
        devices = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(devices));
        for (var e : devices.entrySet()) {
            if (!MigProfile.isProfileName(e.getKey())) throw new IllegalArgumentException("config " + name + ": '" + e.getKey() + "' is not a MIG profile");
            if (e.getValue() == null || e.getValue() < 1) throw new IllegalArgumentException("config " + name + ": " + e.getKey() + " needs a count of at least 1");
        }
        if (devices.isEmpty()) throw new IllegalArgumentException("config " + name + " names no MIG devices");
    }

    /** {@code all-1g.10gb}: the most instances of one profile. */
    public static MigConfig all(MigProfile p) { return new MigConfig("all-" + p.name(), Map.of(p.name(), p.maxCount())); }

    /**
     * mig-parted's {@code config-default.yaml} for the model: {@code all-<profile>} for each profile
     * and {@code all-balanced} (two of the small 1g, one 2g, one 3g; the H100 fixture
     * {@code h100-80gb-mig-mixed-nvidia-smi-L.txt} shows it: 3g.40gb, 2g.20gb, 2x 1g.10gb).
     */
    public static List<MigConfig> defaults(MigGeometry g) {
        List<MigConfig> out = new ArrayList<>();
        for (MigGeometry.Shape s : g.shapes()) out.add(all(s.profile()));
        Map<String, Integer> balanced = new LinkedHashMap<>();
        for (MigGeometry.Shape s : g.shapes()) {
            int c = s.profile().computeSlices();
            if (c == 1 && s.id() == 19) balanced.put(s.profile().name(), 2);
            if (c == 2 || c == 3) balanced.put(s.profile().name(), 1);
        }
        out.add(new MigConfig("all-balanced", balanced));
        return List.copyOf(out);
    }

    /** The layout of one GPU, or empty when the GPU cannot hold this config. */
    public Optional<MigLayout> tryLayout(MigGeometry g) {
        List<String> todo = new ArrayList<>();
        for (var e : devices.entrySet()) {
            if (g.shape(e.getKey()).isEmpty()) return Optional.empty();
            for (int i = 0; i < e.getValue(); i++) todo.add(e.getKey());
        }
        // the largest first: they have the fewest starts
        todo.sort(Comparator.comparingInt((String p) -> -g.require(p).size()).thenComparing(p -> p));
        return Optional.ofNullable(search(MigLayout.empty(g), todo, 0));
    }

    /** The layout of one GPU; a config the GPU cannot hold is an error that says so. */
    public MigLayout layout(MigGeometry g) {
        return tryLayout(g).orElseThrow(() -> new IllegalArgumentException("mig-parted config " + name + " " + devices
                + " does not fit one " + g.model() + " GPU (" + MigGeometry.SLOTS + " memory slots, " + MigGeometry.COMPUTE + " compute slices)"));
    }

    /** Instances per GPU of {@code profile} (0 when the config has none). */
    public int count(String profile) { return devices.getOrDefault(profile, 0); }

    private static MigLayout search(MigLayout at, List<String> todo, int k) {
        if (k == todo.size()) return at;
        MigLayout best = null;
        for (int s : at.freeStarts(todo.get(k))) {
            MigLayout r = search(at.with(todo.get(k), s), todo, k + 1);
            if (r != null && (best == null || r.largestFreeRun() > best.largestFreeRun())) best = r;
        }
        return best;
    }
}
