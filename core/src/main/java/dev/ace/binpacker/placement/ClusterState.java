package dev.ace.binpacker.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The live free-capacity view of every node: free GPUs as a bitmask, per-GPU free milli-GPU for
 * shared GPUs, free CPU. Node indices are stable for the life of a node; a removed node leaves
 * a hole. Not thread-safe: {@link Allocator} serialises access.
 *
 * <p>Only {@link Ledger} changes capacity, through {@link #take} and {@link #give}, so that free +
 * held always equals capacity. A GPU held twice (the cluster bound a pod onto GPUs ACE had
 * reserved) goes below zero free milli-GPU: over-commit is counted ({@link #overcommit}), never hidden.
 */
public final class ClusterState {
    private NodeInfo[] nodes = new NodeInfo[16];
    private long[] freeMask = new long[16];
    private int[][] milliFree = new int[16][];
    private long[] cpuFree = new long[16];
    private int[] partial = new int[16];
    /** Requests besides whole GPUs in use on each node: pods bound there plus pods ACE pinned there that are not bound yet. */
    private Resources[] used = new Resources[16];
    private int resourceTracked;
    private int size;
    private final Map<String, Integer> byName = new HashMap<>();
    private long membership;
    private final List<Listener> listeners = new ArrayList<>();

    /** Told of every capacity change, so indexes can follow without rescanning. */
    public interface Listener {
        void nodeChanged(int index, long oldFreeMask, long newFreeMask);
    }

    public void addListener(Listener l) { listeners.add(l); }

    /**
     * Adds a node with all capacity free, or replaces the static info of a node of that name. Capacity is
     * kept when the GPU count is unchanged; otherwise it starts free again and {@link Ledger#upsertNode}
     * takes the held GPUs back, so a node whose GPU count changes keeps its reservations. An update
     * that changes nothing ACE reads (the kubelet's status heartbeats, most label edits) is a no-op:
     * no listener fires and caches of node facts stay valid. Boards are interned, so the equality
     * test is cheap.
     */
    public int upsert(NodeInfo info) {
        Integer existing = byName.get(info.name());
        if (existing != null) {
            int i = existing;
            NodeInfo old = nodes[i];
            if (old.equals(info)) return i;
            nodes[i] = info;
            resourceTracked += (info.tracksResources() ? 1 : 0) - (old.tracksResources() ? 1 : 0);
            long before = freeMask[i];
            if (old.gpuCount() != info.gpuCount()) resetCapacity(i, info);
            fire(i, before, freeMask[i]); // pool or board may have changed: indexes regroup the node
            membership++;
            return i;
        }
        if (size == nodes.length) grow();
        int i = size++;
        nodes[i] = info;
        used[i] = Resources.NONE;
        if (info.tracksResources()) resourceTracked++;
        resetCapacity(i, info);
        byName.put(info.name(), i);
        membership++;
        fire(i, 0L, freeMask[i]);
        return i;
    }

    /** Forgets a node; its index is not reused. Reservations on it must be released by the caller first. */
    public boolean remove(String name) {
        Integer i = byName.remove(name);
        if (i == null) return false;
        long before = freeMask[i];
        if (nodes[i].tracksResources()) resourceTracked--;
        nodes[i] = null;
        used[i] = Resources.NONE;
        freeMask[i] = 0;
        milliFree[i] = new int[0];
        cpuFree[i] = 0;
        partial[i] = 0;
        membership++;
        fire(i, before, 0L);
        return true;
    }

    private void resetCapacity(int i, NodeInfo info) {
        int n = info.gpuCount();
        freeMask[i] = n == 0 ? 0 : info.board().allGpus();
        milliFree[i] = new int[n];
        Arrays.fill(milliFree[i], 1000);
        cpuFree[i] = info.cpuMilli();
        partial[i] = 0;
    }

    private void grow() {
        int n = nodes.length * 2;
        nodes = Arrays.copyOf(nodes, n);
        freeMask = Arrays.copyOf(freeMask, n);
        milliFree = Arrays.copyOf(milliFree, n);
        cpuFree = Arrays.copyOf(cpuFree, n);
        partial = Arrays.copyOf(partial, n);
        used = Arrays.copyOf(used, n);
    }

    /** One past the highest node index (holes included). */
    public int capacity() { return size; }

    /** Nodes present now. */
    public int liveNodes() { return byName.size(); }

    /** The node at an index, or null for a hole. */
    public NodeInfo node(int index) { return nodes[index]; }

    public int indexOf(String name) {
        Integer i = byName.get(name);
        return i == null ? -1 : i;
    }

    /** Requests besides whole GPUs in use on the node (pods bound there, pods pinned there not yet bound). */
    public Resources used(int index) {
        Resources u = used[index];
        return u == null ? Resources.NONE : u;
    }

    /** Sets what is in use on the node besides whole GPUs. Fires no listener: the packer's index is keyed on GPUs only. */
    public void setUsed(int index, Resources r) {
        if (nodes[index] != null) used[index] = r == null ? Resources.NONE : r;
    }

    /** Live nodes that reported what they offer besides GPUs. */
    public int resourceTrackedNodes() { return resourceTracked; }

    /**
     * kube-scheduler's NodeResourcesFit for everything but whole GPUs: the first resource of {@code need}
     * that the node's allocatable does not hold at all ({@code free == false}) or does not hold beside what
     * is in use there ({@code free == true}); null when it fits or the node reported no allocatable.
     */
    public String shortOf(int index, Resources need, boolean free) {
        NodeInfo n = nodes[index];
        if (n == null || need.isEmpty() || !n.tracksResources()) return null;
        return (free ? n.allocatable().minus(used(index)) : n.allocatable()).firstShort(need);
    }

    /** GPUs with all 1000 milli free. */
    public long freeMask(int index) { return freeMask[index]; }

    public int milliFree(int index, int gpu) { return milliFree[index][gpu]; }

    public long cpuFree(int index) { return cpuFree[index]; }

    /** True when every GPU of the node is wholly free or wholly taken (no GPU shared): its free mask says everything. */
    public boolean wholeGpusOnly(int index) { return partial[index] == 0; }

    /** Bumped when a node is added, replaced or removed (not on capacity changes): for caches of node facts. */
    public long membershipVersion() { return membership; }

    /** True if every GPU of the mask has {@code milli} free, and the CPU fits. */
    public boolean fits(int index, long mask, int milli, long cpu) {
        if (nodes[index] == null) return false;
        if (cpu > 0 && nodes[index].cpuMilli() > 0 && cpuFree[index] < cpu) return false;
        if (milli == 1000) return (freeMask[index] & mask) == mask;
        long rest = mask;
        int[] m = milliFree[index];
        while (rest != 0) {
            int g = Long.numberOfTrailingZeros(rest);
            rest &= rest - 1;
            if (g >= m.length || m[g] < milli) return false;
        }
        return true;
    }

    /** GPU holdings beyond capacity on a node: a GPU held by two entries counts one. */
    public int overcommit(int index) {
        int[] m = milliFree[index];
        int over = 0;
        for (int v : m) {
            if (v < 0) over += (-v + 999) / 1000;
        }
        return over;
    }

    void take(int index, long mask, int milli, long cpu) { adjust(index, mask, -milli, -cpu); }

    void give(int index, long mask, int milli, long cpu) { adjust(index, mask, milli, cpu); }

    /** Adds {@code milli} to every GPU of the mask (negative to take); a GPU is free when all 1000 are. */
    private void adjust(int index, long mask, int milli, long cpu) {
        long before = freeMask[index];
        int[] m = milliFree[index];
        for (long rest = mask; rest != 0; rest &= rest - 1) {
            int g = Long.numberOfTrailingZeros(rest);
            boolean wasPartial = m[g] > 0 && m[g] < 1000;
            m[g] += milli;
            boolean isPartial = m[g] > 0 && m[g] < 1000;
            if (wasPartial != isPartial) partial[index] += isPartial ? 1 : -1;
            if (m[g] >= 1000) freeMask[index] |= 1L << g;
            else freeMask[index] &= ~(1L << g);
        }
        if (nodes[index].cpuMilli() > 0) cpuFree[index] += cpu;
        fire(index, before, freeMask[index]);
    }

    private void fire(int index, long before, long after) {
        for (Listener l : listeners) l.nodeChanged(index, before, after);
    }
}
