package dev.ace.binpacker.admission;

import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.PlacementResult;
import dev.ace.binpacker.placement.ReasonCode;
import dev.ace.binpacker.placement.WorkloadClass;
import dev.ace.binpacker.placement.group.GroupPlacer;
import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.workload.InvalidPodException;
import dev.ace.binpacker.workload.group.GroupIdentity;
import dev.ace.binpacker.workload.group.GroupMembership;
import dev.ace.binpacker.workload.group.GroupResolver;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Optional;

/**
 * DESIGN "Groups are placed whole", at admission: every rank of a multi-pod replica is gated, the leader
 * too, whatever is free now. Nothing is reserved here: the leader-elected reconciler reserves every
 * rank's GPUs in one step once all ranks exist ({@code cluster.GroupKeeper}), so half a group never holds
 * a clique while it waits for its partner. A group key without a size is placed as a single pod, with a
 * warning that says what to add.
 */
final class GroupAdmission {
    static final int DEFAULT_MAX_SIZE = GroupResolver.DEFAULT_MAX_SIZE;

    private final GroupResolver resolver;

    GroupAdmission(int maxSize) { this.resolver = new GroupResolver(maxSize); }

    /** The rank's gated decision, or empty when the pod is not a rank of a sized group (warnings may be added). */
    Optional<Decision> gate(PodPolicy policy, AdmissionRequest req, WorkloadClass c, String what, List<String> warnings,
                            PlacementRequest pr, long now) throws InvalidPodException {
        GroupMembership m = resolver.resolve(req.pod());
        if (m instanceof GroupMembership.Unsized u) {
            warnings.add("pod names " + u.source() + " group " + u.name() + " but ACE cannot tell its size (" + u.hint()
                    + "); placed as a single pod, not as a whole group");
            return Optional.empty();
        }
        if (!(m instanceof GroupMembership.Member member)) return Optional.empty();
        GroupIdentity g = member.id();
        // "Never", not "not now": a rank no node of the inventory could hold, whatever is free, is not gated to wait for
        // ever. It is refused as a single pod would be (enforce denies; warn and audit admit it with the reason).
        Optional<PlacementResult.Unschedulable> nowhere = GroupPlacer.nowhere(policy.allocator(), pr, now);
        if (nowhere.isPresent()) {
            return Optional.of(Decision.deny(c, "group " + g.name() + " (" + g.source().prefix() + ", " + g.size() + " pods) can never be placed: "
                    + "no node can ever hold its " + (g.leader() ? "leader" : "rank " + g.rank()) + " (" + pr.gpus() + " GPUs), whatever is free: "
                    + nowhere.get().message(), warnings, new Why.Placement(nowhere.get().reasons().isEmpty() ? ReasonCode.NO_GPUS
                    : nowhere.get().reasons().get(0).code())));
        }
        Pod out = policy.copy(req.pod());
        PodEdits.addSchedulingGate(out, AceKeys.GATE);
        String text = "waiting for group " + g.name() + " (" + g.source().prefix() + ", " + (g.leader() ? "leader" : "rank " + g.rank())
                + " of " + g.size() + " pods): every rank gets its GPUs in one step once all " + g.size() + " exist and fit"
                + (g.topologyKey() == null ? "" : " in one " + g.topologyKey() + " domain") + "; " + what;
        PodEdits.annotate(out, AceKeys.DECISION, text);
        warnings.add("rank of a " + g.size() + "-pod group: gated until the whole group can be placed at once");
        return Optional.of(Decision.gated(c, out, text, warnings, Why.Rule.GROUP));
    }
}
