package dev.ace.binpacker.cluster;

import dev.ace.binpacker.placement.Holding;
import dev.ace.binpacker.placement.Ledger;
import dev.ace.binpacker.placement.Reservation;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which GPUs of a node's pods ACE's entries do not cover (DESIGN "Truth and trust"). A pod is
 * covered by the ACE entry on its node tied to its UID, or, before the leader ties it, by the untied
 * entry its annotation names when that entry was made for a pod of its namespace and name. Anything
 * else bound there counts from its request: exempt and warn/audit pods, pods admitted while ACE was
 * down, pods older than the install, DaemonSets, and a pod whose annotation names an entry tied to
 * another pod (a copy).
 */
final class NodeUsage {
    /** The node's uncovered holdings, and the pods that carry an entry tied to another pod. */
    record Result(List<Holding> holdings, List<PodFacts> copies) {}

    private NodeUsage() {}

    /** Call with the allocator lock held ({@code Allocator.read}). */
    static Result of(String node, List<PodFacts> pods, Ledger ledger) {
        List<Reservation> entries = ledger.onNode(node).stream().filter(Reservation::isAce).toList();
        List<Holding> holdings = new ArrayList<>();
        List<PodFacts> copies = new ArrayList<>();
        for (PodFacts p : pods) {
            if (!p.holdsGpus() || !node.equals(p.nodeName())) continue;
            Optional<Reservation> cover = covering(p, entries);
            int uncovered = p.gpus() - cover.map(Reservation::gpuCount).orElse(0);
            if (uncovered > 0) holdings.add(new Holding(p.uid(), uncovered, cover.isEmpty() && node.equals(p.reservationNode()) ? p.reservationMask() : 0L));
            if (cover.isEmpty() && p.reservationId() != null) {
                ledger.get(p.reservationId()).filter(e -> e.owner().podUid() != null && !e.owner().podUid().equals(p.uid()))
                        .ifPresent(e -> copies.add(p));
            }
        }
        return new Result(holdings, copies);
    }

    static Optional<Reservation> covering(PodFacts p, List<Reservation> entries) {
        for (Reservation e : entries) {
            if (p.uid().equals(e.owner().podUid())) return Optional.of(e);
        }
        for (Reservation e : entries) {
            if (e.owner().podUid() == null && e.id().equals(p.reservationId()) && p.ownedBy(e.owner())) return Optional.of(e);
        }
        return Optional.empty();
    }
}
