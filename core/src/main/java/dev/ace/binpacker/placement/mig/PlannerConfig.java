package dev.ace.binpacker.placement.mig;

/**
 * How slowly the planner moves.
 *
 * @param margin        a new layout must serve more than {@code (1 + margin)} times the compute
 *                      slices of persisted demand the current one serves (0.25: a quarter more)
 * @param windowSeconds demand must persist this long before it changes a layout
 * @param budget        most nodes in change (drained, being reconfigured) at once
 */
public record PlannerConfig(double margin, long windowSeconds, int budget) {
    public PlannerConfig {
        if (!(margin >= 0) || margin > 10) throw new IllegalArgumentException("the planner's margin must be in [0, 10], got " + margin);
        if (windowSeconds < 0) throw new IllegalArgumentException("the planner's window cannot be negative: " + windowSeconds);
        if (budget < 1) throw new IllegalArgumentException("the planner's budget must allow at least one node in change, got " + budget);
    }

    /** Two hours of persistence, a quarter more, one node at a time. */
    public static PlannerConfig defaults() { return new PlannerConfig(0.25, 7200, 1); }
}
