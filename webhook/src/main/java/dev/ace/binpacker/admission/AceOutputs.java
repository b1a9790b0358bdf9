package dev.ace.binpacker.admission;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * ACE's own output keys as a pod carries them (DESIGN "Truth and trust"): the annotations
 * {@code ace.dev/reservation}, {@code ace.dev/decision}, {@code ace.dev/rewritten-from} and the
 * scheduling gate {@code ace.dev/waiting-for-clique}. Null (or false) when the pod does not carry one.
 */
record AceOutputs(String reservation, String decision, String rewrittenFrom, boolean gated) {
    static final AceOutputs NONE = new AceOutputs(null, null, null, false);

    static AceOutputs of(Pod pod) {
        Map<String, String> a = PodEdits.annotations(pod);
        return new AceOutputs(a.get(AceKeys.RESERVATION), a.get(AceKeys.DECISION), a.get(AceKeys.REWRITTEN_FROM),
                PodEdits.hasSchedulingGate(pod, AceKeys.GATE));
    }

    boolean isEmpty() { return reservation == null && decision == null && rewrittenFrom == null && !gated; }

    /** Each key the pod carries, with its value ("present" for the gate), in a fixed order. */
    Map<String, String> present() {
        Map<String, String> m = new LinkedHashMap<>();
        if (reservation != null) m.put(AceKeys.RESERVATION, reservation);
        if (decision != null) m.put(AceKeys.DECISION, decision);
        if (rewrittenFrom != null) m.put(AceKeys.REWRITTEN_FROM, rewrittenFrom);
        if (gated) m.put(AceKeys.GATE, "present");
        return m;
    }

    /** A copy of {@code pod} without any of ACE's output keys: what the pod would be had nobody written them. */
    Pod strip(Pod pod, ObjectMapper mapper) {
        Pod p = PodCopy.forEdits(pod, mapper);
        if (p.getMetadata() != null && p.getMetadata().getAnnotations() != null) {
            Map<String, String> a = new LinkedHashMap<>(p.getMetadata().getAnnotations());
            a.remove(AceKeys.RESERVATION);
            a.remove(AceKeys.DECISION);
            a.remove(AceKeys.REWRITTEN_FROM);
            p.getMetadata().setAnnotations(a.isEmpty() ? null : a);
        }
        if (p.getSpec() != null && p.getSpec().getSchedulingGates() != null) {
            List<io.fabric8.kubernetes.api.model.PodSchedulingGate> gates = new ArrayList<>(p.getSpec().getSchedulingGates());
            gates.removeIf(g -> AceKeys.GATE.equals(g.getName()));
            p.getSpec().setSchedulingGates(gates.isEmpty() ? null : gates);
        }
        return p;
    }
}
