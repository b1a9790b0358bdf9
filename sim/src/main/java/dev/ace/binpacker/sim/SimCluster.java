package dev.ace.binpacker.sim;

import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.Pool;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The static side of a simulated cluster: nodes, their GPU model index and capacities. Each run
 * gets a fresh {@link ClusterState} from {@link #freshState()}, so policies never share capacity.
 */
public final class SimCluster {
    /** Node label carrying the GPU model, matched by the pods' model constraint. */
    public static final String MODEL_LABEL = "ace.dev/gpu-model";

    private final List<OpenbNode> nodes;
    private final Map<String, Integer> modelIndex = new LinkedHashMap<>();
    private final NodeInfo[] infos;
    final int[] modelOf;
    final long[] cpuCap;
    final long[] memCap;
    final int[] gpus;
    final long totalMilli;
    final long totalCpu;
    final long totalMem;

    /** Pods' memory requests are checked against the nodes' memory, by every policy ({@code simulate} on openb, unless {@code --ignore-memory}). */
    final boolean enforcesMemory;

    public SimCluster(List<OpenbNode> nodes, OpenbBoards boards) {
        this(nodes, boards, false);
    }

    /**
     * {@code enforceMemory}: a pod fits a node only where its memory request fits beside the pods there, as
     * kube-scheduler's NodeResourcesFit (and so the FGD authors' simulator) checks it; ACE is told each node's
     * memory as allocatable and each pod's as a request, and filters in its engine as the webhook does.
     */
    public SimCluster(List<OpenbNode> nodes, OpenbBoards boards, boolean enforceMemory) {
        this.enforcesMemory = enforceMemory;
        this.nodes = List.copyOf(nodes);
        int n = nodes.size();
        infos = new NodeInfo[n];
        modelOf = new int[n];
        cpuCap = new long[n];
        memCap = new long[n];
        gpus = new int[n];
        long milli = 0, cpu = 0, mem = 0;
        for (int i = 0; i < n; i++) {
            OpenbNode o = nodes.get(i);
            modelOf[i] = modelIndex.computeIfAbsent(o.model(), k -> modelIndex.size());
            cpuCap[i] = o.cpuMilli();
            memCap[i] = o.memMib();
            gpus[i] = o.gpus();
            milli += 1000L * o.gpus();
            cpu += o.cpuMilli();
            mem += o.memMib();
            infos[i] = new NodeInfo(o.name(), poolOf(o.model()), Map.of(MODEL_LABEL, o.model()), List.of(),
                    boards.board(o.model(), o.gpus()), "openb:" + OpenbBoards.assumption(o.model(), o.gpus()),
                    o.model(), o.cpuMilli());
            if (enforceMemory) infos[i] = infos[i].withAllocatable(memory(o.memMib()));
        }
        totalMilli = milli;
        totalCpu = cpu;
        totalMem = mem;
    }

    /**
     * Memory as the engine's {@link dev.ace.binpacker.placement.Resources} count it (milli-bytes): what a node
     * offers and a pod requests, so ACE's placements pass kube-scheduler's NodeResourcesFit on memory as the
     * baselines' filter does ({@link Baseline#feasible}) and the FGD authors' simulator (its kube-scheduler) does.
     */
    static dev.ace.binpacker.placement.Resources memory(long mib) {
        return new dev.ace.binpacker.placement.Resources(Map.of(dev.ace.binpacker.placement.Resources.MEMORY, mib * 1024L * 1024L * 1000L));
    }

    /** openb nodes are all GENERAL; protocol B names its pools by model: HGX boards are the inference pool, L4 the slicing pool. */
    static Pool poolOf(String model) {
        if (model.startsWith("HGX")) return Pool.INFERENCE;
        if (model.startsWith("L4")) return Pool.SLICING;
        return Pool.GENERAL;
    }

    /** A new state with every node free; node index i is {@code nodes().get(i)}. */
    public ClusterState freshState() {
        ClusterState s = new ClusterState();
        for (NodeInfo info : infos) s.upsert(info);
        return s;
    }

    public Map<String, Integer> modelIndex() { return modelIndex; }

    public List<OpenbNode> nodes() { return nodes; }

    public int size() { return infos.length; }

    public long totalMilli() { return totalMilli; }

    public int modelOf(int i) { return modelOf[i]; }

    public long cpuCap(int i) { return cpuCap[i]; }

    public long memCap(int i) { return memCap[i]; }

    /** Whether pods' memory is checked against the nodes' ({@link #SimCluster(List, OpenbBoards, boolean)}). */
    public boolean enforcesMemory() { return enforcesMemory; }

    /** A pod's memory fits on node {@code i} beside {@code used} MiB already taken there (always, when not enforced). */
    boolean memoryFits(int i, long used, long mib) { return !enforcesMemory || used + mib <= memCap[i]; }

    public int gpus(int i) { return gpus[i]; }

    public String modelName(int index) {
        for (Map.Entry<String, Integer> e : modelIndex.entrySet()) if (e.getValue() == index) return e.getKey();
        return "?";
    }
}
