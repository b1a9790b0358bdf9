package dev.ace.binpacker.placement.demand;

import java.util.Objects;

/**
 * One waiting unit of demand from the gated queue: a single TP pod ({@code ranks == 1}) or a whole group.
 *
 * @param type         the instance type or board the pods select (from their node selector), null when any of the pool's
 * @param ranks        pods of the unit; a group is bought whole or not at all
 * @param gpusPerRank  GPUs each pod needs in one NVLink clique
 * @param domainLabel  for a group that must sit in one multi-node NVLink domain on whole trays (TP >= 16 on NVL72):
 *                     the label naming the domain; null otherwise
 */
public record Waiter(String id, String pool, String type, int ranks, int gpusPerRank, String domainLabel) {
    public Waiter {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(pool, "pool");
        if (ranks < 1) throw new IllegalArgumentException("waiter " + id + ": ranks must be >= 1, not " + ranks);
        if (gpusPerRank < 1 || gpusPerRank > 64) {
            throw new IllegalArgumentException("waiter " + id + ": GPUs per rank must be 1..64, not " + gpusPerRank);
        }
    }

    public static Waiter single(String id, String pool, String type, int tp) { return new Waiter(id, pool, type, 1, tp, null); }

    public static Waiter group(String id, String pool, String type, int ranks, int gpusPerRank, String domainLabel) {
        return new Waiter(id, pool, type, ranks, gpusPerRank, domainLabel);
    }

    public boolean isGroup() { return ranks > 1 || domainLabel != null; }

    public int gpus() { return ranks * gpusPerRank; }
}
