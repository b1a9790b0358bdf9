package dev.ace.binpacker.placement;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Fragmentation in the sense of FGD (Weng et al., ATC'23), learned online: the packer tells it
 * every request it sees; the most popular request shapes covering a share of them are the target
 * workload. A node's fragmentation is the free milli-GPU the target cannot use there (all of it
 * for a shape that may not use the node or does not fit its GPUs or CPU; otherwise the GPUs with
 * less free than the shape's share). {@link #delta} is how much a choice adds: the packer adds it
 * to the TP damage scaled by {@link #tpWeight()} ({@link #TP_FIRST} in production), so among choices that keep the same NVLink
 * capacity, work lands where it wastes the least for what usually comes next.
 *
 * <p>On a node whose GPUs are wholly free or wholly taken (every node the webhook sees: it places
 * whole GPUs and does not count CPU) the measure depends only on how many GPUs are free and which
 * shapes the node admits, so {@link #wholeDelta} answers in one pass over the shapes, with no
 * per-GPU work; the packer's index uses it.
 *
 * <p>Counting memory ({@link #countingMemory}, the production setting), a shape also carries the mean memory its
 * pods asked for, and a node whose CPU is tracked and whose memory left no longer holds it wastes all its free milli
 * for that shape, as for a shape whose CPU does not fit.
 *
 * <p>The target keeps at most {@link #TARGET_SHAPES} shapes in production ({@link #TARGET_SHAPES_BEFORE}
 * before) and the counts at most {@value #MAX_TRACKED} distinct shapes (older counts are halved
 * away), so a long-running webhook that sees many distinct node selectors neither slows down nor grows. Not thread-safe: the
 * packer runs under the {@link Allocator} lock.
 */
public final class FragmentationScorer {
    /**
     * TP damage is multiplied by this before the fragmentation term is added (the production
     * setting): TP capacity decides, and fragmentation (at most 64,000 milli-GPU on one node) only
     * orders choices that destroy the same NVLink capacity. Weighed at {@link #TP_PER_GPU} instead,
     * FGD's term outbid a whole free 8-clique: after a TP 4 was seen, a lone GPU split a clean
     * 8-GPU domain rather than use the free half of a used one (ShapesAndCapTest).
     */
    public static final double TP_FIRST = 1.0e6;
    /**
     * TP damage in milli-GPU, on the fragmentation term's scale: how a GPU share weighs breaking a
     * whole GPU's single-GPU capacity, and, for all capacity, the sim's {@code ace-frag-equal} row.
     */
    public static final double TP_PER_GPU = 1000;

    /** What a GPU share pays, below the NVLink capacity it breaks, for taking a wholly free GPU. */
    public enum ShareOnWholeGpu {
        /** The fragmentation it adds, as FGD scores it (the production rule since issue 20's share lists). */
        FRAGMENTATION,
        /**
         * Also the GPU's single-GPU capacity on fragmentation's scale ({@link #TP_PER_GPU} per unit):
         * the rule before, which kept shares off whole GPUs where FGD would break one (sim variant
         * {@code ace-share-single}).
         */
        SINGLE_GPU_COST
    }

    private final double coverage;
    private final boolean byGpu;
    private final double tpWeight;
    private final boolean coarse;
    private final ShareOnWholeGpu shareOnWholeGpu;
    private final int maxShapes;
    /** True: a shape whose mean memory request a node no longer holds cannot use its GPUs ({@link #countingMemory}). */
    private final boolean memoryAware;

    private record Shape(int gpus, int milli, long cpu, String model, NodeConstraints constraints) {}

    /**
     * Shapes in the target at most, the production setting: the tail beyond carries little
     * probability and costs time per decision. 64 ({@link #TARGET_SHAPES_BEFORE}) cut off 11-14 % of
     * the pods on the openb lists that pin GPU models (300-330 distinct shapes: a pinned pod's CPU,
     * share and model list make a shape of their own), so the GPUs those pods need counted as free
     * for nobody; 160 covers at least 96 % of the pods of every openb list (FGD's target covers 95 %).
     */
    public static final int TARGET_SHAPES = 160;
    /** The cap before (sim variant {@code ace-shapes-64} and the older variants). */
    public static final int TARGET_SHAPES_BEFORE = 64;
    /** Distinct shapes counted at most before old counts are halved away. */
    static final int MAX_TRACKED = 4096;

    /** What was seen of one shape: its count (by pod or by GPU) and the memory its pods asked for. */
    private static final class Tally {
        long count;
        long pods;
        long memory; // milli-bytes, summed over the pods

        /** Halves the count; the pods and their memory halve together, so the mean memory stays. */
        boolean halve() {
            count /= 2;
            if (pods > 1) { pods /= 2; memory /= 2; }
            return count == 0;
        }

        long meanMemory() { return memory / pods; }
    }

    private final Map<Shape, Tally> counts = new HashMap<>();
    /** The shapes' mean memory request (milli-bytes, 0 = none), in target order. */
    private long[] shapeMemory = new long[0];
    /** The memory left on a node when its fragmentation was remembered ({@link #current}). */
    private long[] memoryAt = new long[0];
    private long version;
    private long allowedFor = -1;
    private ClusterState cachedState;
    private long cachedTarget = -1;
    private long cachedMembership = -1;
    private boolean[] known = new boolean[0];
    private double[] fragOf = new double[0];
    private int seen;
    private long mass;
    private int rebuildAt = 1;
    private Shape[] shapes = new Shape[0];
    private PlacementRequest[] probes = new PlacementRequest[0];
    private double[] p = new double[0];
    private byte[][] allowed = new byte[0][];  // [shape][node]: 0 unknown, 1 yes, 2 no
    private int[] free = new int[64];

    /** FGD's setting: shapes by pod count, 95 % coverage. */
    public FragmentationScorer() { this(0.95, false); }

    /**
     * @param coverage share of the observed demand the target workload covers (0..1]
     * @param byGpu    weigh shapes by the GPU milli they ask for instead of by pod count, so rare
     *                 large requests (8 whole GPUs) stay in the target
     */
    public FragmentationScorer(double coverage, boolean byGpu) {
        this(coverage, byGpu, TP_FIRST);
    }

    /** @param tpWeight what one unit of TP damage weighs against one milli-GPU of fragmentation */
    public FragmentationScorer(double coverage, boolean byGpu, double tpWeight) {
        this(coverage, byGpu, tpWeight, false);
    }

    /**
     * @param coarse rank by FGD's own integer score ({@link #cost}) with ties to the lowest node
     *               index, instead of by the exact milli-GPU added with ties to the fuller node
     */
    public FragmentationScorer(double coverage, boolean byGpu, double tpWeight, boolean coarse) {
        this(coverage, byGpu, tpWeight, coarse, ShareOnWholeGpu.SINGLE_GPU_COST);
    }

    /** @param shareOnWholeGpu what a share pays for a wholly free GPU below its NVLink damage */
    public FragmentationScorer(double coverage, boolean byGpu, double tpWeight, boolean coarse, ShareOnWholeGpu shareOnWholeGpu) {
        this(coverage, byGpu, tpWeight, coarse, shareOnWholeGpu, TARGET_SHAPES_BEFORE);
    }

    /** @param maxShapes shapes in the target at most ({@link #TARGET_SHAPES} in production) */
    public FragmentationScorer(double coverage, boolean byGpu, double tpWeight, boolean coarse, ShareOnWholeGpu shareOnWholeGpu, int maxShapes) {
        this(coverage, byGpu, tpWeight, coarse, shareOnWholeGpu, maxShapes, false);
    }

    /** @param memoryAware a shape whose memory a node no longer holds cannot use its GPUs ({@link #countingMemory}) */
    private FragmentationScorer(double coverage, boolean byGpu, double tpWeight, boolean coarse, ShareOnWholeGpu shareOnWholeGpu, int maxShapes,
                                boolean memoryAware) {
        this.memoryAware = memoryAware;
        if (maxShapes < 1) throw new IllegalArgumentException("the target needs at least one shape");
        this.maxShapes = maxShapes;
        this.shareOnWholeGpu = shareOnWholeGpu;
        this.coverage = coverage;
        this.byGpu = byGpu;
        this.tpWeight = tpWeight;
        this.coarse = coarse;
    }

    /** What one unit of TP damage weighs against one milli-GPU of fragmentation when the packer adds them. */
    public double tpWeight() { return tpWeight; }

    /** What a GPU share pays, below its NVLink damage, for taking a wholly free GPU. */
    public ShareOnWholeGpu shareOnWholeGpu() { return shareOnWholeGpu; }

    /** A fresh scorer with these settings and another share rule (no learned state: call at configuration time). */
    public FragmentationScorer with(ShareOnWholeGpu rule) { return new FragmentationScorer(coverage, byGpu, tpWeight, coarse, rule, maxShapes, memoryAware); }

    /** A fresh scorer with these settings and at most {@code n} shapes in the target (call at configuration time). */
    public FragmentationScorer withTargetShapes(int n) { return new FragmentationScorer(coverage, byGpu, tpWeight, coarse, shareOnWholeGpu, n, memoryAware); }

    /**
     * A fresh scorer with these settings that counts memory as FGD counts CPU ({@code aware}) or not: each target shape
     * carries the mean memory its requests asked for, and on a node that reports allocatable memory and has less left
     * (allocatable less the requests booked there, {@link ClusterState#used}) every free GPU is fragmented for that
     * shape, as for a shape whose CPU no longer fits. A choice that would leave a node's GPUs without the memory their
     * usual pods need then costs what it strands. Requests without memory, and nodes that report none or whose CPU is
     * not tracked (the webhook's: it counts neither), are unchanged.
     */
    public FragmentationScorer countingMemory(boolean aware) {
        return new FragmentationScorer(coverage, byGpu, tpWeight, coarse, shareOnWholeGpu, maxShapes, aware);
    }

    /** True when target shapes carry memory and a node's memory left is compared with it ({@link #countingMemory}). */
    public boolean countsMemory() { return memoryAware; }

    /** Shapes in the target at most. */
    public int maxShapes() { return maxShapes; }

    /** True when choices are ranked by FGD's integer score and equal scores go to the lowest node index. */
    public boolean coarse() { return coarse; }

    /**
     * What the packer adds to the weighted TP damage for a choice that adds {@code delta} milli-GPU
     * of fragmentation. Coarse: FGD's score {@code int(100 sigmoid(-delta / 1000))} turned into a
     * cost, {@code 100 - score} (0..100): changes of a few milli-GPU tie, and a tie goes to the
     * lowest node index, so work fills nodes in order and the later nodes stay whole, as FGD does
     * with its ties to the smallest node name. Exact: {@code delta} itself.
     */
    public double cost(double delta) {
        if (!coarse) return delta;
        return 100 - (long) (100.0 / (1.0 + Math.exp(delta / 1000.0)));
    }

    /** The lowest {@link #cost} taking {@code k} whole GPUs can have (it lowers fragmentation by at most 1,000 k milli). */
    public double lowestCost(int k) { return cost(-1000.0 * k); }

    /** Counts a request's shape; the target is rebuilt as the count doubles, then every 1,024 requests. */
    public void observe(PlacementRequest r) {
        if (counts.size() >= MAX_TRACKED) forgetOld();
        int w = byGpu ? r.gpus() * r.milliPerGpu() : 1;
        Tally t = counts.computeIfAbsent(new Shape(r.gpus(), r.milliPerGpu(), r.cpuMilli(), r.gpuModel(), r.constraints()), k -> new Tally());
        t.count += w;
        t.pods++;
        t.memory += memoryOf(r);
        mass += w;
        if (++seen >= rebuildAt) {
            rebuild();
            rebuildAt = seen < 1024 ? seen * 2 : seen + 1024;
        }
    }

    /** Shapes in the current target workload. */
    public int targetSize() { return shapes.length; }

    /** Changes whenever the target is rebuilt. */
    public long version() { return version; }

    NodeConstraints shapeConstraints(int s) { return shapes[s].constraints(); }

    long shapeCpu(int s) { return shapes[s].cpu(); }

    String shapeModel(int s) { return shapes[s].model(); }

    /**
     * {@link #wholeDelta} for every free count 0..{@code gpus} on nodes that admit exactly the
     * shapes marked in {@code admitted}: what the index uses for a group whose members all admit
     * the same shapes.
     */
    double[] wholeDeltas(boolean[] admitted, int k, int gpus) {
        double[] out = new double[gpus + 1];
        for (int free = k; free <= gpus; free++) {
            int after = free - k;
            double before = 0, later = 0;
            for (int s = 0; s < shapes.length; s++) {
                if (!admitted[s]) {
                    before += p[s];
                    later += p[s];
                } else {
                    int g = shapes[s].gpus();
                    if (free < g) before += p[s];
                    if (after < g) later += p[s];
                }
            }
            out[free] = free == 0 ? 0 : 1000.0 * (after * later - free * before);
        }
        return out;
    }

    private void forgetOld() {
        mass = 0;
        counts.values().removeIf(Tally::halve);
        for (Tally t : counts.values()) mass += t.count;
    }

    private void rebuild() {
        List<Map.Entry<Shape, Tally>> sorted = new ArrayList<>(counts.entrySet());
        sorted.sort((a, b) -> Long.compare(b.getValue().count, a.getValue().count));
        double need = coverage * mass, cum = 0;
        int k = 0;
        while (cum < need && k < sorted.size() && k < maxShapes) cum += sorted.get(k++).getValue().count;
        shapes = new Shape[k];
        probes = new PlacementRequest[k];
        p = new double[k];
        allowed = new byte[k][];
        shapeMemory = new long[k];
        for (int i = 0; i < k; i++) {
            shapeMemory[i] = memoryAware ? sorted.get(i).getValue().meanMemory() : 0;
            Shape s = sorted.get(i).getKey();
            shapes[i] = s;
            probes[i] = new PlacementRequest("probe", WorkloadClass.UNKNOWN, s.gpus(), s.milli(), 1, null, s.constraints(), s.cpu(), s.model());
            p[i] = sorted.get(i).getValue().count / cum;
            allowed[i] = new byte[0];
        }
        version++;
    }

    /**
     * Fragmentation added by taking {@code milli} on every GPU of {@code mask} and {@code cpu} on a
     * node (negative when the choice uses up milli that was fragmented anyway).
     */
    public double delta(ClusterState state, int node, long mask, int milli, long cpu) { return delta(state, node, mask, milli, cpu, 0); }

    /**
     * As {@link #delta(ClusterState, int, long, int, long)}, the choice also taking {@code memory} (milli-bytes; a
     * request's {@link #memoryOf}, read once per decision, not per candidate).
     */
    public double delta(ClusterState state, int node, long mask, int milli, long cpu, long memory) {
        if (shapes.length == 0) return 0;
        NodeInfo n = state.node(node);
        int g = n.gpuCount();
        long cpuLeft = n.cpuMilli() > 0 ? state.cpuFree(node) : Long.MAX_VALUE;
        long memLeft = memoryLeft(state, node, n);
        double before = current(state, node, n, g, cpuLeft, memLeft);
        fill(state, node, g);
        for (long rest = mask; rest != 0; rest &= rest - 1) free[Long.numberOfTrailingZeros(rest)] -= milli;
        return frag(state, node, n, g, cpuLeft - cpu, memLeft == Long.MAX_VALUE ? memLeft : memLeft - memory) - before;
    }

    /**
     * The memory a node has left for pods (allocatable less what is requested there), when this scorer counts memory and
     * the node reports it beside its CPU (memory is counted where CPU is: a node whose CPU the engine tracks, as the
     * simulator's; the webhook counts neither); else unbounded.
     */
    private long memoryLeft(ClusterState state, int node, NodeInfo n) {
        if (!memoryAware || n.cpuMilli() <= 0) return Long.MAX_VALUE;
        long allocatable = n.allocatable().get(Resources.MEMORY);
        return allocatable == 0 ? Long.MAX_VALUE : allocatable - state.used(node).get(Resources.MEMORY);
    }

    /** The memory of {@code r} that {@link #delta(ClusterState, int, long, int, long, long)} weighs: 0 unless memory is counted. */
    public long memoryOf(PlacementRequest r) { return memoryAware ? r.needs().get(Resources.MEMORY) : 0; }

    /**
     * A node's fragmentation now, remembered until its capacity changes ({@link #nodeChanged}), the
     * target is rebuilt or nodes change: a trace-replay decision reads it for every node, and for
     * a share once per candidate GPU.
     */
    private double current(ClusterState state, int node, NodeInfo n, int g, long cpuLeft, long memLeft) {
        if (cachedState != state || cachedTarget != version || cachedMembership != state.membershipVersion()) {
            cachedState = state;
            cachedTarget = version;
            cachedMembership = state.membershipVersion();
            known = new boolean[state.capacity()];
            fragOf = new double[state.capacity()];
            memoryAt = new long[state.capacity()];
        }
        if (node >= known.length) {
            known = java.util.Arrays.copyOf(known, state.capacity());
            fragOf = java.util.Arrays.copyOf(fragOf, state.capacity());
            memoryAt = java.util.Arrays.copyOf(memoryAt, state.capacity());
        }
        // requests booked on a node (ClusterState#setUsed) tell no listener: its memory left is compared instead
        if (!known[node] || memoryAt[node] != memLeft) {
            fill(state, node, g);
            fragOf[node] = frag(state, node, n, g, cpuLeft, memLeft);
            memoryAt[node] = memLeft;
            known[node] = true;
        }
        return fragOf[node];
    }

    /** Told by the packer of every capacity change: that node's remembered fragmentation is stale. */
    void nodeChanged(ClusterState state, int node) {
        if (state == cachedState && node < known.length) known[node] = false;
    }

    private void fill(ClusterState state, int node, int g) {
        if (free.length < g) free = new int[g];
        for (int i = 0; i < g; i++) free[i] = state.milliFree(node, i);
    }

    /**
     * {@link #delta} of taking {@code k} whole free GPUs on a node with {@code free} free GPUs and
     * no shared GPU ({@link ClusterState#wholeGpusOnly}), for a request that takes no CPU: a shape
     * the node admits wastes all free milli when fewer than its GPU count are free, nothing
     * otherwise; a shape it does not admit wastes all of it.
     */
    public double wholeDelta(ClusterState state, int node, int free, int k) {
        if (shapes.length == 0 || free == 0) return 0;
        NodeInfo n = state.node(node);
        long cpuLeft = n.cpuMilli() > 0 ? state.cpuFree(node) : Long.MAX_VALUE;
        long memLeft = memoryLeft(state, node, n);
        int after = free - k;
        double before = 0, later = 0;
        for (int s = 0; s < shapes.length; s++) {
            if (cpuLeft < shapes[s].cpu() || memLeft < shapeMemory[s] || !allowed(state, s, node, n)) {
                before += p[s];
                later += p[s];
            } else {
                int g = shapes[s].gpus();
                if (free < g) before += p[s];
                if (after < g) later += p[s];
            }
        }
        return 1000.0 * (after * later - free * before);
    }

    private double frag(ClusterState state, int node, NodeInfo n, int g, long cpuLeft, long memLeft) {
        int total = 0;
        for (int i = 0; i < g; i++) total += free[i];
        if (total == 0) return 0;
        double f = 0;
        for (int s = 0; s < shapes.length; s++) {
            Shape sh = shapes[s];
            if (cpuLeft < sh.cpu() || memLeft < shapeMemory[s] || !allowed(state, s, node, n)) {
                f += p[s] * total;
                continue;
            }
            int fit = 0, below = 0;
            for (int i = 0; i < g; i++) {
                if (free[i] >= sh.milli()) fit++;
                else below += free[i];
            }
            f += p[s] * (fit >= sh.gpus() ? below : total);
        }
        return f;
    }

    private boolean allowed(ClusterState state, int s, int node, NodeInfo n) {
        if (allowedFor != state.membershipVersion()) {
            // a node was added, relabelled or removed: what each shape admits is read again
            for (int i = 0; i < allowed.length; i++) allowed[i] = new byte[0];
            allowedFor = state.membershipVersion();
        }
        byte[] a = allowed[s];
        if (node >= a.length) {
            a = java.util.Arrays.copyOf(a, Math.max(node + 1, a.length * 2));
            allowed[s] = a;
        }
        if (a[node] == 0) a[node] = Packer.staticallyAllowedIgnoringPool(n, probes[s]) ? (byte) 1 : (byte) 2;
        return a[node] == 1;
    }
}
