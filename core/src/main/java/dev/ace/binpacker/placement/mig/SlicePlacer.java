package dev.ace.binpacker.placement.mig;

import dev.ace.binpacker.topology.MigLayout;
import java.util.List;
import java.util.OptionalInt;

/**
 * Where on one GPU a new instance of a profile goes, when instances are made per claim (NVIDIA's
 * DRA DynamicMIG). First fit (the lowest start) can leave a GPU that has the slices but not in the
 * right place (dra-driver issue #933): a 1g.10gb at slot 4 and a new one at slot 0 leave no room for
 * a 3g.40gb, which needs slots 0-3 or 4-7. ACE's choice keeps the most room instead: the start after
 * which the largest profile still fits, then the longest free run, then the fewest free runs, then
 * the lowest start.
 */
public final class SlicePlacer {
    private SlicePlacer() {}

    /** The lowest free start, as a first-fit scheduler takes it. */
    public static OptionalInt firstFit(MigLayout gpu, String profile) {
        List<Integer> starts = gpu.freeStarts(profile);
        return starts.isEmpty() ? OptionalInt.empty() : OptionalInt.of(starts.get(0));
    }

    /** The free start that keeps the most room after it. */
    public static OptionalInt keepRoom(MigLayout gpu, String profile) {
        int best = -1;
        int[] bestScore = null;
        for (int s : gpu.freeStarts(profile)) {
            int[] score = score(gpu.with(profile, s));
            if (bestScore == null || compare(score, bestScore) > 0) {
                best = s;
                bestScore = score;
            }
        }
        return best < 0 ? OptionalInt.empty() : OptionalInt.of(best);
    }

    /** Higher is better: largest placeable profile, longest free run, fewer runs (negated). */
    static int[] score(MigLayout after) {
        return new int[]{after.largestPlaceable(), after.largestFreeRun(), -freeRuns(after.usedMask())};
    }

    static int freeRuns(int used) {
        int runs = 0;
        boolean in = false;
        for (int s = 0; s < dev.ace.binpacker.topology.MigGeometry.SLOTS; s++) {
            boolean free = (used >> s & 1) == 0;
            if (free && !in) runs++;
            in = free;
        }
        return runs;
    }

    private static int compare(int[] a, int[] b) {
        for (int i = 0; i < a.length; i++) if (a[i] != b[i]) return Integer.compare(a[i], b[i]);
        return 0;
    }
}
