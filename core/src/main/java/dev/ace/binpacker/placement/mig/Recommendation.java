package dev.ace.binpacker.placement.mig;

/**
 * One layout change the planner would make: set {@code nvidia.com/mig.config=to} on {@code node}.
 *
 * @param node       node name
 * @param from       the config it has
 * @param to         the config the planner picks
 * @param drainFirst the node still runs pods: cordon it and change it only once they have finished
 *                   (nothing is evicted); false for an idle node, which may change now
 * @param reason     why, in figures
 */
public record Recommendation(String node, String from, String to, boolean drainFirst, String reason) {}
