package dev.ace.binpacker.topology;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The GPU instances one MIG GPU holds: each a profile at a start slot. Built only when the GPU can
 * hold it: every start is one the profile may take, no two instances share a slot, compute slices
 * add up to at most {@value MigGeometry#COMPUTE}, and no profile exceeds its maximum count.
 *
 * @param geometry  the GPU model's geometry
 * @param instances the instances, sorted by start
 */
public record MigLayout(MigGeometry geometry, List<Instance> instances) {

    /** One GPU instance: a profile at a start slot. */
    public record Instance(String profile, int start) {}

    public MigLayout {
        List<Instance> sorted = new ArrayList<>(instances);
        sorted.sort(Comparator.comparingInt(Instance::start));
        instances = List.copyOf(sorted);
        int used = 0, compute = 0;
        Map<String, Integer> counts = new TreeMap<>();
        for (Instance i : instances) {
            MigGeometry.Shape s = geometry.require(i.profile());
            if (!s.starts().contains(i.start())) {
                throw new IllegalArgumentException(geometry.model() + ": " + i.profile() + " may start at slots " + s.starts() + ", not " + i.start());
            }
            int mask = s.mask(i.start());
            if ((used & mask) != 0) throw new IllegalArgumentException(geometry.model() + ": " + i.profile() + " at slot " + i.start() + " overlaps another instance");
            used |= mask;
            compute += s.profile().computeSlices();
            int n = counts.merge(i.profile(), 1, Integer::sum);
            if (n > s.profile().maxCount()) throw new IllegalArgumentException(geometry.model() + " holds at most " + s.profile().maxCount() + " x " + i.profile());
        }
        if (compute > MigGeometry.COMPUTE) throw new IllegalArgumentException(geometry.model() + ": " + compute + " compute slices exceed " + MigGeometry.COMPUTE);
    }

    public static MigLayout empty(MigGeometry g) { return new MigLayout(g, List.of()); }

    /** Slots in use, as a bit mask of {@value MigGeometry#SLOTS} bits. */
    public int usedMask() {
        int used = 0;
        for (Instance i : instances) used |= geometry.require(i.profile()).mask(i.start());
        return used;
    }

    public int computeUsed() {
        int c = 0;
        for (Instance i : instances) c += geometry.require(i.profile()).profile().computeSlices();
        return c;
    }

    /** Whether {@code profile} may be added at {@code start}. */
    public boolean fits(String profile, int start) {
        MigGeometry.Shape s = geometry.require(profile);
        if (!s.starts().contains(start) || (usedMask() & s.mask(start)) != 0) return false;
        if (computeUsed() + s.profile().computeSlices() > MigGeometry.COMPUTE) return false;
        return count(profile) < s.profile().maxCount();
    }

    /** The starts at which {@code profile} may be added now, ascending. */
    public List<Integer> freeStarts(String profile) {
        List<Integer> out = new ArrayList<>();
        for (int s : geometry.require(profile).starts()) if (fits(profile, s)) out.add(s);
        return out;
    }

    public long count(String profile) {
        return instances.stream().filter(i -> i.profile().equals(profile)).count();
    }

    public MigLayout with(String profile, int start) {
        List<Instance> l = new ArrayList<>(instances);
        l.add(new Instance(profile, start));
        return new MigLayout(geometry, l);
    }

    public MigLayout without(Instance instance) {
        List<Instance> l = new ArrayList<>(instances);
        if (!l.remove(instance)) throw new IllegalArgumentException("no " + instance + " on this GPU");
        return new MigLayout(geometry, l);
    }

    /** The longest run of free slots. */
    public int largestFreeRun() {
        int free = ~usedMask() & ((1 << MigGeometry.SLOTS) - 1), best = 0, run = 0;
        for (int s = 0; s < MigGeometry.SLOTS; s++) {
            run = (free >> s & 1) == 1 ? run + 1 : 0;
            best = Math.max(best, run);
        }
        return best;
    }

    /** Compute slices of the largest profile that could still be added (0 when none). */
    public int largestPlaceable() {
        int best = 0;
        for (MigGeometry.Shape s : geometry.shapes()) {
            if (!freeStarts(s.profile().name()).isEmpty()) best = Math.max(best, s.profile().computeSlices());
        }
        return best;
    }

    /** Instances per profile. */
    public Map<String, Integer> counts() {
        Map<String, Integer> out = new TreeMap<>();
        for (Instance i : instances) out.merge(i.profile(), 1, Integer::sum);
        return out;
    }
}
