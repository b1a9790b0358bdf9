package dev.ace.binpacker.sim;

import dev.ace.binpacker.placement.mig.SlicePlacer;
import dev.ace.binpacker.topology.MigGeometry;
import dev.ace.binpacker.topology.MigLayout;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalInt;

/** Protocol C's slicers without layouts: whole GPUs, MPS shares, MIG instances made per pod. */
final class SimpleSlicers {
    private SimpleSlicers() {}

    /** Every pod takes a whole GPU. */
    static Slicer whole(int gpus) {
        return new Slicer() {
            int free = gpus;
            final Map<String, Boolean> running = new HashMap<>();

            public boolean place(SlicingTrace.Pod p, double now) {
                if (free == 0) return false;
                free--;
                running.put(p.id(), true);
                return true;
            }

            public void release(String id) { if (running.remove(id) != null) free++; }
        };
    }

    /** MPS: a pod takes its share of a GPU's compute (no memory isolation), on the fullest GPU it fits. */
    static Slicer mps(int gpus) {
        return new Slicer() {
            final int[] used = new int[gpus];
            final Map<String, int[]> running = new HashMap<>();

            public boolean place(SlicingTrace.Pod p, double now) {
                int best = -1;
                for (int g = 0; g < gpus; g++) {
                    if (used[g] + p.milli() <= 1000 && (best < 0 || used[g] > used[best])) best = g;
                }
                if (best < 0) return false;
                used[best] += p.milli();
                running.put(p.id(), new int[]{best, p.milli()});
                return true;
            }

            public void release(String id) {
                int[] r = running.remove(id);
                if (r != null) used[r[0]] -= r[1];
            }
        };
    }

    /**
     * MIG instances made per pod, as NVIDIA's DRA DynamicMIG does. {@code keepRoom} false: the first
     * GPU and the first start that fit (the scheduler takes the first listed placement); true: the
     * fullest GPU it fits on, at the start that keeps the most room ({@link SlicePlacer#keepRoom}).
     */
    static Slicer dynamic(int gpus, boolean keepRoom) {
        return new Slicer() {
            final MigLayout[] gpu = new MigLayout[gpus];
            final Map<String, Object[]> running = new HashMap<>();

            {
                for (int g = 0; g < gpus; g++) gpu[g] = MigLayout.empty(MigGeometry.H100_80GB);
            }

            public boolean place(SlicingTrace.Pod p, double now) {
                int best = -1;
                OptionalInt start = OptionalInt.empty();
                for (int g = 0; g < gpus; g++) {
                    OptionalInt s = keepRoom ? SlicePlacer.keepRoom(gpu[g], p.profile()) : SlicePlacer.firstFit(gpu[g], p.profile());
                    if (s.isEmpty()) continue;
                    if (best < 0 || keepRoom && gpu[g].computeUsed() > gpu[best].computeUsed()) {
                        best = g;
                        start = s;
                    }
                    if (!keepRoom) break;
                }
                if (best < 0) return false;
                gpu[best] = gpu[best].with(p.profile(), start.getAsInt());
                running.put(p.id(), new Object[]{best, new MigLayout.Instance(p.profile(), start.getAsInt())});
                return true;
            }

            public void release(String id) {
                Object[] r = running.remove(id);
                if (r != null) gpu[(int) r[0]] = gpu[(int) r[0]].without((MigLayout.Instance) r[1]);
            }
        };
    }
}
