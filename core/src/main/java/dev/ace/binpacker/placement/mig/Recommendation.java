package dev.ace.binpacker.placement.mig;

/**
 * One layout change the planner would make: set {@code nvidia.com/mig.config=to} on {@code node}.
 *
 * @param node   node name
 * @param from   the config it has
 * @param to     the config the planner picks
 * @param reason why, in figures
 */
public record Recommendation(String node, String from, String to, String reason) {}
