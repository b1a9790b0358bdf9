package dev.ace.binpacker.placement;


/**
 * The share of demand (in GPUs) that each block size takes: sizes 1, 2, 4, 8, 16, 32, 64.
 * Starts from a configured prior and, when learning, follows what the packer is asked for with an
 * exponential moving average, so the score protects the blocks the cluster actually needs.
 * Weights are quantised and versioned: board score tables are rebuilt only when a weight moves.
 */
public final class DemandMix {
    public static final int[] SIZES = {1, 2, 4, 8, 16, 32, 64};
    private static final double QUANTUM = 0.02;

    private final double[] ewma;
    private final double alpha;
    private final boolean learning;
    private double[] weights;
    private long version;
    /** GPUs per request the EWMA has seen (the scale of the GPU-weighted shares); starts at the prior's mean. */
    private double gpuMass;
    /** True: a request weighs its GPU count (the share of GPU demand); false: every request weighs one. */
    private final boolean byGpu;
    /** Which choices count their damage net of their own footprint ({@link #beyondFootprint}). */
    private Footprint footprintRule = Footprint.GROSS;
    /** True: a GPU share counts as demand for a single GPU ({@link #observeShare}). */
    private boolean countsShares;
    private double[] footprint = new double[0];
    private long footprintVersion = -1;

    /**
     * @param prior    share of GPU demand per size in {@link #SIZES} order (normalised here)
     * @param alpha    EWMA step per observed request (0 freezes the prior)
     */
    public DemandMix(double[] prior, double alpha) { this(prior, alpha, true); }

    /** @param byGpu weigh each request by its GPUs (true, the default) or count requests (the mix before issue 20) */
    public DemandMix(double[] prior, double alpha, boolean byGpu) {
        this.byGpu = byGpu;
        if (prior.length != SIZES.length) throw new IllegalArgumentException("prior needs " + SIZES.length + " entries");
        this.ewma = normalise(prior.clone());
        this.alpha = alpha;
        this.learning = alpha > 0;
        this.weights = quantise(ewma);
        double perGpu = 0;
        for (int s = 0; s < SIZES.length; s++) perGpu += ewma[s] / SIZES[s];
        this.gpuMass = 1 / perGpu;
    }

    /** The mission's assumed inference mix (BENCHMARK.md protocol B): mostly small, TP2/TP4 common, TP8 rarer. */
    public static DemandMix inferenceDefault() {
        return new DemandMix(new double[]{0.15, 0.25, 0.30, 0.25, 0.05, 0, 0}, 0.01);
    }

    /** {@link #inferenceDefault()} learning the share of requests instead of GPUs (the engine before issue 20). */
    public static DemandMix inferenceDefaultByRequest() {
        return new DemandMix(new double[]{0.15, 0.25, 0.30, 0.25, 0.05, 0, 0}, 0.01, false);
    }

    public static DemandMix frozen(double[] prior) { return new DemandMix(prior, 0); }

    /**
     * This mix, counting a choice's damage net of its own footprint ({@link #beyondFootprint}).
     * Returns {@code this}; call before the mix is used.
     */
    public DemandMix netOfFootprint() {
        this.footprintRule = Footprint.NET_ANY_SET;
        return this;
    }

    /** Which choices are counted net of their own footprint. */
    enum Footprint {
        /** Every choice gross: the capacity the pod itself occupies counts as destroyed. */
        GROSS,
        /** Net for a set of any GPUs (a pod that is not a TP replica), gross for a clique: the default. */
        NET_ANY_SET,
        /** Net for every choice, cliques included (the {@code ace-net-all} variant). */
        NET_ALL;

        boolean net(boolean clique) { return this == NET_ALL || (this == NET_ANY_SET && !clique); }
    }

    /**
     * This mix, counting the damage of clique choices (TP replicas) net of their footprint too. Not the default:
     * every candidate of a TP k replica uses one k-clique, so gross damage already ranks them by what they destroy
     * beyond it, and the floor at 0 of {@link #beyondFootprint} would erase those differences (protocol B waited
     * more with it). Returns {@code this}; the {@code ace-net-all} variant of the simulator.
     */
    public DemandMix netForCliquesToo() {
        this.footprintRule = Footprint.NET_ALL;
        return this;
    }

    /** Whether a choice of GPUs, an NVLink clique when {@code clique}, is counted net of its footprint. */
    boolean netFor(boolean clique) { return footprintRule.net(clique); }

    /**
     * The TP capacity a choice of {@code k} GPUs destroys beyond what any placement of {@code k}
     * GPUs must use: {@code raw} less the value of a free all-to-all board of exactly {@code k}
     * GPUs, never below 0. A 4-GPU pod that takes a whole free NVLink quad uses the quad for what
     * it is worth and destroys nothing beyond it, like the same pod on half of a PCIe node; a lone
     * GPU that breaks a free clique destroys the clique. Raw when every choice is counted gross.
     */
    public double beyondFootprint(double raw, int k) {
        if (footprintRule == Footprint.GROSS) return raw;
        if (footprintVersion != version || footprint.length == 0) {
            footprint = new double[65];
            footprintVersion = version;
        }
        if (k < 1 || k >= footprint.length) return raw;
        if (footprint[k] == 0) {
            double v = 0;
            for (int s = 0; s < SIZES.length; s++) v += weights[s] * SIZES[s] * (k / SIZES[s]);
            footprint[k] = v * (1 + BoardScorer.ALIGNED_BONUS);
        }
        double beyond = raw - footprint[k];
        // the two sides are summed in different orders: a rounding residue is no damage (the packer
        // scales damage by 10^6, so 10^-15 would otherwise outrank a fragmentation tie)
        return beyond < 1e-9 ? 0 : beyond;
    }

    /**
     * No opinion: every block size an 8-GPU board holds (1, 2, 4, 8) weighed alike, learning at the
     * default rate. The default prior is protocol B's assumed mix; this one shows what the prior
     * is worth (issue 10).
     */
    public static DemandMix neutral() {
        return new DemandMix(new double[]{0.25, 0.25, 0.25, 0.25, 0, 0, 0}, 0.01);
    }

    /**
     * Records a request for {@code gpus} whole GPUs (rounded up to the next block size). By GPU:
     * every share decays by the step and the request's size gains {@code step x gpus}, so the mix
     * is the share of GPU demand per size (8-GPU requests, 8-11 % of openb's whole-GPU requests,
     * carry 30-39 % of its GPUs).
     */
    public void observe(int gpus) { observe(slotOf(gpus), Math.max(1, gpus)); }

    /**
     * Records a GPU share of {@code milli} (1..999) milli-GPU as demand for single GPUs, when this
     * mix counts shares ({@link #countingShares}); else nothing. By GPU it weighs its fraction of a
     * GPU, by request one: on a list where most GPU demand is shares the mix then says so, and
     * NVLink pairs, quads and domains nobody asks for stop outranking where a share fragments least.
     */
    public void observeShare(int milli) {
        if (!countsShares) return;
        observe(0, Math.min(1000, Math.max(1, milli)) / 1000.0);
    }

    /**
     * This mix, counting GPU shares as single-GPU demand ({@link #observeShare}); without it shares
     * are not demand at all (the mix before). Returns {@code this}; call before the mix is used.
     */
    public DemandMix countingShares() {
        this.countsShares = true;
        return this;
    }

    /** True when GPU shares count as single-GPU demand. */
    public boolean countsShares() { return countsShares; }

    /** One request for size slot {@code slot} carrying {@code gpus} GPUs (a fraction for a share). */
    private void observe(int slot, double gpus) {
        if (!learning) return;
        double mass = 0;
        if (!byGpu) {
            for (int s = 0; s < ewma.length; s++) {
                double target = s == slot ? 1 : 0;
                ewma[s] += alpha * (target - ewma[s]);
                mass += ewma[s];
            }
        } else {
            // GPU-weighted: the request adds its GPUs to its size's share, every share decays by
            // alpha per request, so an 8-GPU request moves the mix eight times as far as a 1-GPU one
            for (int s = 0; s < ewma.length; s++) {
                ewma[s] = (1 - alpha) * gpuMass * ewma[s] + (s == slot ? alpha * gpus : 0);
                mass += ewma[s];
            }
            gpuMass = mass;
        }
        boolean moved = false;
        for (int s = 0; s < ewma.length; s++) {
            ewma[s] /= mass;
            // Hysteresis: publish only when a share has moved a whole quantum from the published
            // weight. Plain rounding flaps at a boundary under a steady mix, and every flap makes
            // the packer rebuild its board tables (seen in the admission load run's allocation profile).
            if (Math.abs(ewma[s] - weights[s]) >= QUANTUM) moved = true;
        }
        if (moved) {
            weights = quantise(ewma);
            version++;
        }
    }

    /** Weight per size in {@link #SIZES} order. */
    public double weight(int slot) { return weights[slot]; }

    /** Changes whenever a weight changes. */
    public long version() { return version; }

    public static int slotOf(int gpus) {
        for (int s = 0; s < SIZES.length; s++) if (gpus <= SIZES[s]) return s;
        return SIZES.length - 1;
    }

    private static double[] normalise(double[] v) {
        double sum = 0;
        for (double x : v) sum += Math.max(0, x);
        if (sum <= 0) throw new IllegalArgumentException("a demand mix needs some weight");
        for (int i = 0; i < v.length; i++) v[i] = Math.max(0, v[i]) / sum;
        return v;
    }

    private static double[] quantise(double[] v) {
        double[] q = new double[v.length];
        for (int i = 0; i < v.length; i++) q[i] = Math.round(v[i] / QUANTUM) * QUANTUM;
        return q;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("DemandMix{");
        for (int s = 0; s < SIZES.length; s++) {
            if (weights[s] > 0) b.append(SIZES[s]).append('=').append(String.format("%.2f", weights[s])).append(' ');
        }
        return b.append('}').toString();
    }
}
