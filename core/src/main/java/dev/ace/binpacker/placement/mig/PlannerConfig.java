package dev.ace.binpacker.placement.mig;

/**
 * How slowly the planner moves.
 *
 * @param margin        a new layout must serve more than {@code (1 + margin)} times the compute
 *                      slices of persisted demand the current one serves (0.25: a quarter more)
 * @param windowSeconds demand must persist this long before it changes a layout
 * @param budget        most nodes in change (drained, being reconfigured) at once
 * @param drain         whether a node with running pods may be named, to be cordoned and changed
 *                      once they have finished (protocol C: with pods of up to a day this holds
 *                      capacity out for hours, and costs more than it gains)
 */
public record PlannerConfig(double margin, long windowSeconds, int budget, boolean drain) {
    public PlannerConfig {
        if (!(margin >= 0) || margin > 10) throw new IllegalArgumentException("the planner's margin must be in [0, 10], got " + margin);
        if (windowSeconds < 0) throw new IllegalArgumentException("the planner's window cannot be negative: " + windowSeconds);
        if (budget < 1) throw new IllegalArgumentException("the planner's budget must allow at least one node in change, got " + budget);
    }

    /** Two hours of persistence, a quarter more, one node at a time. */
    /** Idle nodes only. */
    public PlannerConfig(double margin, long windowSeconds, int budget) { this(margin, windowSeconds, budget, false); }

    /** Two hours of persistence, a quarter more, one node at a time, idle nodes only. */
    public static PlannerConfig defaults() { return new PlannerConfig(0.25, 7200, 1, false); }
}
