package dev.ace.binpacker.truth.dra;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A node as ACE sees it through a GPU driver's ResourceSlices, joined to a board ({@link DraJoin}).
 *
 * @param state       served (devices joined to GPU indices), held (the driver serves it but ACE cannot place on it,
 *                    {@code reason} says why) or not served (no GPU driver lists a GPU for it)
 * @param board       the board's links: the agent's matrix, or the catalog board for the product; empty unless served
 * @param source      where the board came from: {@code matrix}, {@code catalog:<board>}, or {@code none}
 * @param gpus        per GPU index, the whole-GPU device the driver publishes for it; null where it publishes none
 *                    (the GPU is in MIG mode, or its device disappeared)
 * @param fenced      GPUs whose device, or one of whose MIG devices, carries a NoSchedule/NoExecute taint (unhealthy: held)
 * @param missing     GPUs the node agent lists that the driver publishes no device of (gone from the slice: held)
 * @param mig         GPUs the driver publishes MIG devices of
 * @param reason      why the node is held or not served; for a served node, how the join went
 */
public record DraNode(String node, State state, Optional<GpuBoard> board, String source, List<DraDevice> gpus,
                      long fenced, long missing, long mig, String reason) {
    public enum State { SERVED, HELD, NOT_SERVED }

    public DraNode {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(board, "board");
        Objects.requireNonNull(source, "source");
        gpus = Collections.unmodifiableList(new ArrayList<>(gpus));
        Objects.requireNonNull(reason, "reason");
    }

    static DraNode held(String node, String reason) {
        return new DraNode(node, State.HELD, Optional.empty(), "none", List.of(), 0, 0, 0, reason);
    }

    static DraNode notServed(String node, String reason) {
        return new DraNode(node, State.NOT_SERVED, Optional.empty(), "none", List.of(), 0, 0, 0, reason);
    }

    public boolean served() { return state == State.SERVED; }

    /** GPUs ACE must not hand out on this node: fenced, missing, or offered only as MIG devices. */
    public long held() {
        long none = 0;
        for (int i = 0; i < gpus.size(); i++) if (gpus.get(i) == null) none |= 1L << i;
        return fenced | missing | mig | none;
    }

    /**
     * The whole-GPU devices of the GPUs in {@code mask}, in index order, for a claim that names them. Throws
     * {@link IllegalArgumentException} naming the first GPU the driver offers no whole device for.
     */
    public List<DraDevice> devices(long mask) {
        if (!served()) throw new IllegalArgumentException("node " + node + " is not served by a GPU driver: " + reason);
        List<DraDevice> out = new ArrayList<>();
        for (int i : GpuBoard.indices(mask)) {
            DraDevice d = i < gpus.size() ? gpus.get(i) : null;
            if (d == null) throw new IllegalArgumentException("node " + node + " has no whole-GPU device for GPU " + i);
            out.add(d);
        }
        return out;
    }
}
