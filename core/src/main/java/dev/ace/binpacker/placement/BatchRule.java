package dev.ace.binpacker.placement;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Where a multi-GPU pod that is not a TP replica (a batch or interactive job, an unclassified pod) may go
 * (issue 20, {@link BatchPlacement}): the pools tried in {@code order}, the first that holds it wins; pool
 * inference only as an aligned NVLink clique, only while {@code reserveFree8Cliques} free 8-cliques stay
 * free after it, and, with {@code yieldToWaitingTp}, never while a TP replica waits for a clique.
 *
 * @param order               pools in the order they are tried; a pool left out is never used for such pods
 * @param reserveFree8Cliques free 8-GPU cliques of pool inference such a pod may not take
 * @param yieldToWaitingTp    true: pool inference takes no such pod while a TP replica waits behind the scheduling gate
 */
public record BatchRule(List<Pool> order, int reserveFree8Cliques, boolean yieldToWaitingTp) {
    /**
     * Slicing first, then general, then inference: measured in protocol B (docs/benchmarks.md, chosen on seeds
     * 4-8 at 60 pods/h), data-parallel batch work on the PCIe cards of the slicing pool leaves the bridged pairs
     * of pool general to TP 2 and the HGX boards to TP 4 and TP 8.
     */
    public static final List<Pool> DEFAULT_ORDER = List.of(Pool.SLICING, Pool.GENERAL, Pool.INFERENCE);

    public BatchRule {
        order = List.copyOf(order);
        if (order.isEmpty()) throw new IllegalArgumentException("batch pools: at least one pool");
        if (order.stream().distinct().count() != order.size()) throw new IllegalArgumentException("batch pools: a pool is listed twice: " + order);
        if (reserveFree8Cliques < 0) throw new IllegalArgumentException("reserve of free 8-cliques must be >= 0, got " + reserveFree8Cliques);
    }

    /** The webhook's default: {@link #DEFAULT_ORDER}, a reserve of one free 8-clique, yield to waiting TP replicas. */
    public static BatchRule defaults() { return new BatchRule(DEFAULT_ORDER, 1, true); }

    /** The same rule with pools tried in another order. */
    public BatchRule inOrder(List<Pool> o) { return new BatchRule(o, reserveFree8Cliques, yieldToWaitingTp); }

    /** The same rule with another reserve. */
    public BatchRule withReserve(int r) { return new BatchRule(order, r, yieldToWaitingTp); }

    /** The same rule, yielding to waiting TP replicas or not. */
    public BatchRule yielding(boolean y) { return new BatchRule(order, reserveFree8Cliques, y); }

    /** Pools from their label values ({@code slicing,general,inference}); an unknown name is an error, not a silent general. */
    public static List<Pool> parseOrder(String spec) {
        List<Pool> out = new ArrayList<>();
        for (String part : spec.split(",")) {
            String p = part.trim().toLowerCase(Locale.ROOT);
            if (p.isEmpty()) continue;
            out.add(switch (p) {
                case "inference" -> Pool.INFERENCE;
                case "slicing" -> Pool.SLICING;
                case "general" -> Pool.GENERAL;
                default -> throw new IllegalArgumentException("batch pools: unknown pool '" + part.trim() + "' (inference, slicing, general)");
            });
        }
        return out;
    }

    /** The order as label values, for decision texts: {@code slicing, general, inference}. */
    public String orderText() {
        return String.join(", ", order.stream().map(Pool::label).toList());
    }
}
