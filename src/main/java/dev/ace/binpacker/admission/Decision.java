package dev.ace.binpacker.admission;

import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.WorkloadClass;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * What the policy decided for one pod.
 *
 * @param mutated  the edited clone when {@code verdict == MUTATE}, else null
 * @param text     the {@code ace.dev/decision} text, or the denial message
 * @param reserved the reservation committed for this request (to release if answering fails), else null
 * @param result   bounded metric label: placed, gated, sliced, denied, untouched, unclassified, already-reserved
 * @param reason   bounded metric label: a ReasonCode name, or a policy word (fracturing, reserve, invalid, none)
 */
public record Decision(Verdict verdict, WorkloadClass workloadClass, Pod mutated, String text, List<String> warnings,
                       Reservation reserved, String result, String reason) {
    public enum Verdict { UNTOUCHED, MUTATE, DENY }

    public Decision {
        warnings = List.copyOf(warnings);
    }

    static Decision untouched(WorkloadClass c, String text, List<String> warnings, String result) {
        return new Decision(Verdict.UNTOUCHED, c, null, text, warnings, null, result, "none");
    }

    static Decision deny(WorkloadClass c, String text, List<String> warnings, String reason) {
        return new Decision(Verdict.DENY, c, null, text, warnings, null, "denied", reason);
    }
}
