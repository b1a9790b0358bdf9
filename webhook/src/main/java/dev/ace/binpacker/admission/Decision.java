package dev.ace.binpacker.admission;

import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.WorkloadClass;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Objects;

/**
 * What the policy decided for one pod. The {@link Outcome} says what happens to the pod (and so whether it is
 * mutated, denied or left alone), {@link Why} why; both are types the callers branch on, and their labels are the
 * decision metric's. Built only through the factories, so an outcome always comes with what it needs.
 *
 * @param mutated  the edited clone when the outcome mutates, else null
 * @param text     the {@code ace.dev/decision} text, or the denial message
 * @param reserved the reservation committed for this request (to release if answering fails), else null
 */
public record Decision(Outcome outcome, WorkloadClass workloadClass, Pod mutated, String text, List<String> warnings,
                       Reservation reserved, Why why) {
    public enum Verdict { UNTOUCHED, MUTATE, DENY }

    /** What happens to the pod; {@link #label()} is the metric's {@code result}. */
    public enum Outcome {
        /** Pinned to GPUs ACE reserved for it. */
        PLACED("placed", Verdict.MUTATE),
        /** Admitted with ACE's scheduling gate, released when GPUs free up (or its group can be placed). */
        GATED("gated", Verdict.MUTATE),
        /** Rewritten to the slicing pool (MIG or MPS). */
        SLICED("sliced", Verdict.MUTATE),
        /** Refused, with a message that says what to do. */
        DENIED("denied", Verdict.DENY),
        /** Left as it is: nothing for ACE to do. */
        UNTOUCHED("untouched", Verdict.UNTOUCHED),
        /** Left as it is to kube-scheduler: no node can ever hold it. */
        UNSCHEDULABLE("unschedulable", Verdict.UNTOUCHED);

        private final String label;
        private final Verdict verdict;

        Outcome(String label, Verdict verdict) {
            this.label = label;
            this.verdict = verdict;
        }

        public String label() { return label; }
        public Verdict verdict() { return verdict; }
    }

    public Decision {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(why, "why");
        warnings = List.copyOf(warnings);
        if ((mutated != null) != (outcome.verdict() == Verdict.MUTATE)) {
            throw new IllegalArgumentException(outcome + " with" + (mutated == null ? "out" : "") + " a mutated pod");
        }
    }

    public Verdict verdict() { return outcome.verdict(); }

    static Decision untouched(WorkloadClass c, String text, List<String> warnings) {
        return new Decision(Outcome.UNTOUCHED, c, null, text, warnings, null, Why.Rule.NONE);
    }

    static Decision unschedulable(WorkloadClass c, String text, List<String> warnings) {
        return new Decision(Outcome.UNSCHEDULABLE, c, null, text, warnings, null, Why.Rule.NONE);
    }

    static Decision deny(WorkloadClass c, String text, List<String> warnings, Why why) {
        return new Decision(Outcome.DENIED, c, null, text, warnings, null, why);
    }

    static Decision placed(WorkloadClass c, Pod mutated, String text, List<String> warnings, Reservation reserved) {
        return new Decision(Outcome.PLACED, c, mutated, text, warnings, reserved, Why.Rule.NONE);
    }

    static Decision gated(WorkloadClass c, Pod mutated, String text, List<String> warnings, Why why) {
        return new Decision(Outcome.GATED, c, mutated, text, warnings, null, why);
    }

    static Decision sliced(WorkloadClass c, Pod mutated, String text, List<String> warnings) {
        return new Decision(Outcome.SLICED, c, mutated, text, warnings, null, Why.Rule.NONE);
    }
}
