package dev.ace.binpacker.admission;

import dev.ace.binpacker.placement.ReasonCode;
import java.util.Locale;

/**
 * Why a decision went as it did, as a type: the bounded {@code reason} label of the decision metric, and whether a
 * refusal was for want of free GPUs now (a retry may succeed) rather than for a rule the pod breaks. Code branches
 * on this, never on the label's text.
 */
public sealed interface Why permits Why.Rule, Why.Placement {
    /** The metric label ({@code ace_decisions_total{reason=...}}). */
    String label();

    /** Refused or held back for want of free GPUs now, not for the pod's shape or a rule: it may fit later. */
    boolean wantOfGpus();

    /** One of ACE's own rules, or none. */
    enum Rule implements Why {
        /** Placed, sliced or left alone: nothing to explain. */
        NONE("none", false),
        /** The pod or request could not be read (a forged or malformed field). */
        INVALID("invalid", false),
        /** The ledger could not commit the reservation now (lost compare-and-swap rounds, API unavailable). */
        CONTENDED("contended", false),
        /** It would split a clean NVLink domain, or is not an aligned block. */
        FRACTURING("fracturing", false),
        /** The namespace already has as many gated pods as the cap allows. */
        PENDING_CAP("pending-cap", false),
        /** A rank of a multi-pod group, gated until the whole group can be placed. */
        GROUP("group", false),
        /** It would leave fewer free 8-GPU NVLink domains than the reserve. */
        RESERVE("reserve", true),
        /** Pool inference takes no multi-GPU batch work while TP replicas wait for a clique (placement.BatchRule). */
        TP_WAITING("tp-waiting", true),
        /** No free GPUs it may use now, though the pool could hold it once GPUs free up. */
        NO_FREE_GPUS("no_free_gpus", true);

        private final String label;
        private final boolean wantOfGpus;

        Rule(String label, boolean wantOfGpus) {
            this.label = label;
            this.wantOfGpus = wantOfGpus;
        }

        @Override public String label() { return label; }
        @Override public boolean wantOfGpus() { return wantOfGpus; }
    }

    /** The packer's own reason for finding no room ({@link ReasonCode}), labelled as its lower-case name. */
    record Placement(ReasonCode code) implements Why {
        public Placement {
            java.util.Objects.requireNonNull(code, "code");
        }

        @Override public String label() { return code.name().toLowerCase(Locale.ROOT); }

        /** Only a missing free clique counts as a wait for GPUs: every other code says where the pod may not run. */
        @Override public boolean wantOfGpus() { return code == ReasonCode.NO_FREE_CLIQUE; }
    }
}
