package dev.ace.binpacker.placement.mig;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * MIG instances the pool's small pods wanted (running plus waiting, by profile), sampled over
 * time. The planner acts on what persisted: per profile the least wanted over a whole window, so a
 * burst shorter than the window changes no layout. A level that persisted is remembered for
 * {@code memorySeconds} more: the planner provisions for the highest persisted level of that
 * time, so demand that comes back every few hours does not wait for the window each time, and a
 * drop does not recut nodes at once. Until the samples cover a whole window there is no persisted
 * demand at all.
 */
public final class DemandWindow {
    private record Sample(long at, Map<String, Integer> wanted) {}

    private final long windowSeconds;
    private final long memorySeconds;
    private final Deque<Sample> samples = new ArrayDeque<>();

    /** A window with no memory: what persisted over the last window only. */
    public DemandWindow(long windowSeconds) { this(windowSeconds, 0); }

    public DemandWindow(long windowSeconds, long memorySeconds) {
        if (windowSeconds < 0 || memorySeconds < 0) {
            throw new IllegalArgumentException("the demand window and memory cannot be negative: " + windowSeconds + ", " + memorySeconds);
        }
        this.windowSeconds = windowSeconds;
        this.memorySeconds = memorySeconds;
    }

    /** Records what was wanted at {@code at} seconds; samples must come in time order. */
    public void record(long at, Map<String, Integer> wanted) {
        if (!samples.isEmpty() && at < samples.peekLast().at()) {
            throw new IllegalArgumentException("demand sample at " + at + " s is older than the last one at " + samples.peekLast().at() + " s");
        }
        for (var e : wanted.entrySet()) {
            if (e.getValue() < 0) throw new IllegalArgumentException("negative demand for " + e.getKey());
        }
        samples.addLast(new Sample(at, Map.copyOf(wanted)));
        // keep the newest sample at or before the window's start: it says what held at that start
        while (samples.size() > 1 && secondOldest().at() <= at - windowSeconds - memorySeconds) samples.pollFirst();
    }

    /**
     * Per profile the highest, over the memory, of the least wanted over a window; empty until the
     * samples cover one window.
     */
    public Optional<Map<String, Integer>> persisted() {
        if (samples.isEmpty()) return Optional.empty();
        long last = samples.peekLast().at();
        if (samples.peekFirst().at() > last - windowSeconds) return Optional.empty();
        List<Sample> all = new ArrayList<>(samples);
        Map<String, Integer> out = new TreeMap<>();
        for (int end = all.size() - 1; end >= 0 && all.get(end).at() >= last - memorySeconds; end--) {
            long from = all.get(end).at() - windowSeconds;
            if (all.get(0).at() > from) break;
            Map<String, Integer> min = new TreeMap<>(all.get(end).wanted());
            for (int i = end - 1; i >= 0; i--) {
                for (var e : min.entrySet()) e.setValue(Math.min(e.getValue(), all.get(i).wanted().getOrDefault(e.getKey(), 0)));
                if (all.get(i).at() <= from) break;
            }
            min.forEach((k, v) -> { if (v > 0) out.merge(k, v, Math::max); });
        }
        return Optional.of(Map.copyOf(out));
    }

    private Sample secondOldest() {
        var it = samples.iterator();
        it.next();
        return it.next();
    }
}
