package dev.ace.binpacker.placement.group;

import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.Reservation;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The ranks of one group that still need GPUs, leader first, and where the whole group must sit.
 *
 * @param key         the group's key (namespace, source, name)
 * @param ranks       every rank that needs GPUs, each with the entry it already holds (an earmark, or a half-written
 *                    group a crashed leader left), in release order: the leader first
 * @param topologyKey node label the group must share one value of; null when none is asked
 * @param wholeNodes  each rank takes every GPU of its node (a TP >= 16 group on NVL72 trays)
 * @param domain      the value of {@code topologyKey} the group is already in (ranks running there), null when free to choose
 */
public record GroupRequest(String key, List<Rank> ranks, String topologyKey, boolean wholeNodes, String domain) {
    /** One rank: what it needs, and the entry it holds already if any. */
    public record Rank(PlacementRequest request, Optional<Reservation> held) {
        public Rank {
            Objects.requireNonNull(request, "request");
            held = held == null ? Optional.empty() : held;
        }

        public static Rank fresh(PlacementRequest r) { return new Rank(r, Optional.empty()); }
    }

    public GroupRequest {
        Objects.requireNonNull(key, "key");
        ranks = List.copyOf(ranks);
        if (ranks.isEmpty()) throw new IllegalArgumentException("a group request needs at least one rank");
    }

    public int gpus() { return ranks.stream().mapToInt(r -> r.request().gpus()).sum(); }

    public int held() { return (int) ranks.stream().filter(r -> r.held().isPresent()).count(); }
}
