package dev.ace.binpacker.cluster.view;

import dev.ace.binpacker.cluster.pod.PodFacts;
import dev.ace.binpacker.placement.Holding;
import dev.ace.binpacker.placement.Ledger;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.truth.NodeReport;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Which GPUs of a node's pods ACE's entries do not cover (DESIGN "Truth and trust"). A pod is
 * covered by the ACE entry on its node tied to its UID, or, before the leader ties it, by the untied
 * entry its annotation names when that entry was made for a pod of its namespace and name. Anything
 * else bound there counts from its request: exempt and warn/audit pods, pods admitted while ACE was
 * down, pods older than the install, DaemonSets, and a pod whose annotation names an entry tied to
 * another pod (a copy). With the node agent's report, each such pod is charged to the GPUs the node
 * says it holds, and a pod the report shows holding whole GPUs that no informer event shows on the
 * node (it requests them under another resource name, or its events lag) is counted there too.
 */
public final class NodeUsage {
    /** The node's uncovered holdings, and the pods that carry an entry tied to another pod. */
    public record Result(List<Holding> holdings, List<PodFacts> copies) {}

    private NodeUsage() {}

    /** Call with the allocator lock held ({@code Allocator.read}). */
    public static Result of(String node, List<PodFacts> pods, Ledger ledger, NodeReport report) {
        List<Reservation> entries = ledger.onNode(node).stream().filter(Reservation::isAce).toList();
        List<Holding> holdings = new ArrayList<>();
        List<PodFacts> copies = new ArrayList<>();
        Set<String> known = new HashSet<>();
        for (PodFacts p : pods) {
            if (!node.equals(p.nodeName())) continue;
            known.add(p.key());
            if (!p.holdsGpus()) continue;
            Optional<Reservation> cover = covering(p, entries);
            int uncovered = p.gpus() - cover.map(Reservation::gpuCount).orElse(0);
            long real = report == null ? 0 : report.pod(p.namespace(), p.name()).map(NodeReport.PodDevices::gpus).orElse(0L);
            long told = node.equals(p.reservationNode()) ? p.reservationMask() : 0L;
            if (uncovered > 0) holdings.add(new Holding(p.uid(), uncovered, cover.isPresent() ? 0L : real != 0 ? real : told));
            if (cover.isEmpty() && p.reservationId() != null) {
                ledger.get(p.reservationId()).filter(e -> e.owner().podUid() != null && !e.owner().podUid().equals(p.uid()))
                        .ifPresent(e -> copies.add(p));
            }
        }
        if (report != null) {
            for (NodeReport.PodDevices d : report.pods()) {
                if (d.gpus() == 0 || known.contains(d.key()) || entries.stream().anyMatch(e -> names(e, d))) continue;
                holdings.add(new Holding(UNSEEN + d.key(), Long.bitCount(d.gpus()), d.gpus()));
            }
        }
        return new Result(holdings, copies);
    }

    /** Key prefix of the holding of a pod only the node's report shows. */
    public static final String UNSEEN = "report:";

    private static boolean names(Reservation e, NodeReport.PodDevices d) {
        return d.namespace().equals(e.owner().namespace()) && d.name().equals(e.owner().podName());
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
