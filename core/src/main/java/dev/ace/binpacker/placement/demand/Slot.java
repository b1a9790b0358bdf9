package dev.ace.binpacker.placement.demand;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.ArrayList;
import java.util.List;

/** A node demand may place waiters on: a real one, one a signal will bring, or one to buy. Mutable, local to one computation. */
final class Slot {
    enum Origin { SUPPLY, SIGNAL, BOUGHT }

    final String where;
    final String pool;
    final String type;
    final GpuBoard board;
    final String domain;
    final Origin origin;
    /** The group a ProvisioningRequest brings this node for; null when any waiter may use it. */
    final String reservedFor;
    /** Price per node-hour of its type, 0 for a real node of no configured type: a tie-break only. */
    final double price;
    long free;
    final List<String> waiters = new ArrayList<>();
    int largestClique;

    Slot(String where, String pool, String type, GpuBoard board, long free, String domain, Origin origin, String reservedFor, double price) {
        this.where = where;
        this.pool = pool;
        this.type = type;
        this.board = board;
        this.free = free;
        this.domain = domain;
        this.origin = origin;
        this.reservedFor = reservedFor;
        this.price = price;
    }

    boolean serves(Waiter w) {
        return pool.equals(w.pool()) && (w.type() == null || type.equals(w.type()))
                && (reservedFor == null || reservedFor.equals(w.id()));
    }

    boolean wholeFree() { return free == board.allGpus(); }

    /** Takes a clique of {@code k} GPUs for waiter {@code id}; false, and nothing taken, when none is free. */
    boolean take(String id, int k) {
        long m = pick(board, free, k);
        if (m == 0) return false;
        free &= ~m;
        waiters.add(id);
        largestClique = Math.max(largestClique, k);
        return true;
    }

    /**
     * The packer's preference, on the board's own clique tables: an aligned block first (a PCIe pair, a NUMA half,
     * which keeps the next larger block whole), else the first free clique; on boards too big to enumerate and all
     * to all, the lowest free GPUs.
     */
    static long pick(GpuBoard b, long free, int k) {
        if (Long.bitCount(free) < k) return 0;
        for (long m : b.alignedBlocks(k)) if ((free & m) == m) return m;
        for (long m : b.cliques(k)) if ((free & m) == m) return m;
        if (b.gpuCount() > GpuBoard.ENUMERATION_LIMIT && b.isAllToAll()) {
            long m = 0;
            for (long rest = free; rest != 0 && Long.bitCount(m) < k; rest &= rest - 1) m |= Long.lowestOneBit(rest);
            return m;
        }
        return 0;
    }
}
