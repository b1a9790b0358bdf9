package dev.ace.binpacker.sim;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Protocol A's arrival sequence, as the FGD authors' simulator builds it: seed the RNG, shuffle
 * the trace, then append pods sampled with replacement until the total requested GPU reaches the
 * target share of capacity (stopping at the first sample whose per-GPU milli would overshoot, as
 * theirs does), or drop random pods while the trace asks for more.
 */
public final class Arrivals {
    private Arrivals() {}

    public static List<SimPod> sequence(List<SimPod> trace, long seed, double ratio, long capacityMilli) {
        Random rnd = new Random(seed);
        List<SimPod> pods = new ArrayList<>(trace);
        Collections.shuffle(pods, rnd);
        long total = 0;
        for (SimPod p : pods) total += p.gpuMilli();
        double target = ratio * capacityMilli;
        if (total > target) {
            while (total > target && !pods.isEmpty()) total -= pods.remove(rnd.nextInt(pods.size())).gpuMilli();
            return pods;
        }
        while (true) {
            SimPod p = trace.get(rnd.nextInt(trace.size()));
            if (total + p.milli() > target) break;
            total += p.gpuMilli();
            pods.add(p);
        }
        return pods;
    }
}
