package dev.ace.binpacker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.placement.Reservation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which pending reservations count against a namespace (issue 15): none whose pod was seen; the rest by age. */
class PendingCapTest {
    private static final long GRACE = 5_000;

    private static Reservation made(int i, long at) {
        return new Reservation("r" + i, "hgx-" + i, 0xffL, 1000, 0, 8, null, at, true, new Reservation.Owner("req" + i, "ml", "llm-", null));
    }

    /** The i-th decision of a stream, {@code everyMillis} apart, as the engine counts them right after reserving (itself included). */
    private static int refusedOf(PendingCap cap, int n, long everyMillis, Set<String> seen) {
        List<Reservation> pending = new ArrayList<>();
        int refused = 0;
        for (int i = 0; i < n; i++) {
            long now = i * everyMillis;
            Reservation r = made(i, now);
            pending.add(r);
            if (cap.refusal("ml", pending, now).isPresent()) {
                pending.remove(r); // given back
                refused++;
            } else if (seen != null) {
                seen.add(r.id()); // its pod is created and this replica's informer sees it
            }
        }
        return refused;
    }

    @Test
    void a_burst_of_200_pods_that_are_being_created_is_refused_nothing_though_none_is_tied_yet() {
        Set<String> seen = new HashSet<>();
        PendingCap cap = new PendingCap(32, 128, GRACE, () -> r -> seen.contains(r.id()));
        assertEquals(0, refusedOf(cap, 200, 10, seen), "200 reservations in 2 s, each pod seen right after");
    }

    @Test
    void a_flood_of_reviews_with_no_pods_is_stopped_at_the_arriving_bound_and_after_the_grace_at_the_cap() {
        PendingCap cap = new PendingCap(32, 128, GRACE, () -> PendingCap.Sightings.NONE);
        assertEquals(1000 - 128, refusedOf(cap, 1000, 1, null), "1,000 reviews in 1 s: 128 get GPUs, the rest are told to retry");
        // a slow flood, one review every 200 ms: those older than the grace fill the cap while 24 more are within it
        List<Reservation> pending = new ArrayList<>();
        int placed = 0;
        for (int i = 0; i < 500; i++) {
            long now = i * 200L;
            Reservation r = made(i, now);
            pending.add(r);
            if (cap.refusal("ml", pending, now).isPresent()) pending.remove(r);
            else placed++;
        }
        assertEquals(32 + 24, placed, "the cap of reservations past the grace, plus those made within the grace before it filled");
        Optional<String> why = cap.refusal("ml", append(pending, made(999, 500 * 200L)), 500 * 200L);
        assertTrue(why.orElseThrow().contains("already has 56 GPU reservations waiting for their pods to appear (for over 5 s), "
                + "the most ACE allows per namespace (32)"), why.get());
    }

    @Test
    void without_a_grace_every_unseen_reservation_counts_as_before() {
        PendingCap cap = PendingCap.strict(4);
        assertEquals(6, refusedOf(cap, 10, 0, null));
        List<Reservation> five = new ArrayList<>();
        for (int i = 0; i < 5; i++) five.add(made(i, 0));
        assertTrue(cap.refusal("ml", five, 0).orElseThrow().contains("namespace ml already has 4 GPU reservations waiting for their pods"));
    }

    @Test
    void the_arriving_bound_names_itself_and_the_grace() {
        PendingCap cap = new PendingCap(32, 2, GRACE, () -> PendingCap.Sightings.NONE);
        List<Reservation> three = List.of(made(0, 0), made(1, 0), made(2, 0));
        assertEquals("namespace ml made 2 GPU reservations in the last 5 s whose pods have not appeared yet, the most ACE allows "
                + "per namespace (2); retry in a few seconds", cap.refusal("ml", three, 10).orElseThrow());
    }

    private static List<Reservation> append(List<Reservation> l, Reservation r) {
        List<Reservation> out = new ArrayList<>(l);
        out.add(r);
        return out;
    }

    @Test
    void asking_before_a_reservation_is_made_answers_as_asking_right_after_it_was_made() {
        java.util.Random rnd = new java.util.Random(31);
        for (long grace : new long[] {0, GRACE}) {
            PendingCap cap = new PendingCap(3, 5, grace, () -> r -> r.id().hashCode() % 4 == 0);
            for (int round = 0; round < 500; round++) {
                List<Reservation> pending = new ArrayList<>();
                long now = 60_000;
                for (int i = rnd.nextInt(12); i > 0; i--) pending.add(made(round * 100 + i, now - rnd.nextInt(10_000)));
                List<Reservation> after = new ArrayList<>(pending);
                after.add(made(round * 100 + 99, now));
                Reservation made = after.get(after.size() - 1);
                if (made.id().hashCode() % 4 == 0) continue; // a pod seen before its reservation exists cannot happen
                assertEquals(cap.refusal("ml", after, now), cap.refusalOfNew("ml", pending, now), "round " + round + " grace " + grace);
            }
        }
    }
}
