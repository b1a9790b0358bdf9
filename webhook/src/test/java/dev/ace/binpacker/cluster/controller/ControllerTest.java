package dev.ace.binpacker.cluster.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** One reconciler on its queue, as the manager runs it: results, failures, budget, start and stop by leadership. */
class ControllerTest {
    private final AtomicLong clock = new AtomicLong(0);

    /** Answers what the test scripted per key and records every call. */
    private static final class Scripted implements KeyReconciler<String> {
        final Map<String, Result> answers = new HashMap<>();
        final List<String> calls = new ArrayList<>();
        List<String> keys = List.of("a", "b", "c");
        int forgotten;
        int budget = Integer.MAX_VALUE;
        int spent;
        Runnable during = () -> { };

        @Override
        public Result reconcile(String key, long now, BooleanSupplier leading) {
            calls.add(key);
            spent++;
            during.run();
            Result r = answers.getOrDefault(key, Result.DONE);
            if (r == null) throw new IllegalStateException("HTTP 500");
            return r;
        }

        @Override public java.util.Collection<String> keys() { return keys; }

        @Override public void forget() { forgotten++; }

        @Override public boolean budgetLeft() { return spent < budget; }

        @Override public void passBegins() { spent = 0; }
    }

    private final Scripted r = new Scripted();
    private final Controller<String> c = new Controller<>("test", r, clock::get, 1_000, 4_000);

    @Test
    void started_it_reconciles_every_key_once_and_then_nothing_until_an_event() {
        c.start();
        c.pass(clock.get(), () -> true);
        assertEquals(List.of("a", "b", "c"), r.calls);
        c.pass(clock.get(), () -> true);
        assertEquals(3, r.calls.size(), "done keys do not come back by themselves");
        c.enqueue("b");
        c.enqueue("b");
        c.pass(clock.get(), () -> true);
        assertEquals(List.of("a", "b", "c", "b"), r.calls);
        assertEquals(4, c.reconciles());
    }

    @Test
    void a_key_asking_to_be_requeued_after_a_delay_comes_back_when_the_clock_reaches_it() {
        r.answers.put("b", new Result.RequeueAfter(5_000));
        c.start();
        c.pass(clock.get(), () -> true);
        assertEquals(OptionalLong.of(5_000), c.untilNextDue());
        clock.set(4_999);
        c.pass(clock.get(), () -> true);
        assertEquals(3, r.calls.size());
        clock.set(5_000);
        c.pass(clock.get(), () -> true);
        assertEquals("b", r.calls.get(3));
    }

    @Test
    void a_key_that_throws_or_asks_to_retry_backs_off_doubling_and_the_others_go_on() {
        r.answers.put("a", null); // throws
        r.answers.put("c", new Result.Retry("conflict"));
        c.start();
        c.pass(clock.get(), () -> true);
        assertEquals(List.of("a", "b", "c"), r.calls, "a failure does not stop the pass");
        assertEquals(OptionalLong.of(1_000), c.untilNextDue());
        clock.set(1_000);
        c.pass(clock.get(), () -> true);
        assertEquals(List.of("a", "b", "c", "a", "c"), r.calls);
        clock.set(2_999);
        c.pass(clock.get(), () -> true);
        assertEquals(5, r.calls.size(), "the second failure backs off 2 s");
        r.answers.remove("a");
        clock.set(3_000);
        c.pass(clock.get(), () -> true);
        assertEquals(7, r.calls.size());
        r.answers.put("a", null);
        c.enqueue("a");
        c.pass(clock.get(), () -> true);
        assertEquals(OptionalLong.of(1_000), c.untilNextDue(), "a success forgot a's backoff: 1 s again (c is at 4 s)");
    }

    @Test
    void a_pass_stops_when_its_budget_is_spent_and_the_rest_wait_for_the_next() {
        r.budget = 2;
        c.start();
        c.pass(clock.get(), () -> true);
        assertEquals(List.of("a", "b"), r.calls);
        c.pass(clock.get(), () -> true);
        assertEquals(List.of("a", "b", "c"), r.calls);
    }

    @Test
    void a_key_added_during_its_own_pass_waits_for_the_next_pass() {
        c.start();
        r.during = () -> c.enqueue("a");
        c.pass(clock.get(), () -> true);
        assertEquals(List.of("a", "b", "c"), r.calls, "each key once per pass");
        r.during = () -> { };
        c.pass(clock.get(), () -> true);
        assertEquals(List.of("a", "b", "c", "a"), r.calls);
    }

    @Test
    void losing_leadership_mid_pass_stops_at_once_and_stop_drops_every_key_and_age() {
        c.start();
        int[] n = {0};
        c.pass(clock.get(), () -> n[0]++ < 1);
        assertEquals(List.of("a"), r.calls, "leadership is checked before each key");
        r.answers.put("x", new Result.RequeueAfter(1_000));
        c.enqueue("x");
        c.stop();
        assertTrue(r.forgotten >= 2, "ages forgotten on start and on stop");
        c.enqueue("a");
        clock.set(60_000);
        c.pass(clock.get(), () -> true);
        assertEquals(List.of("a"), r.calls, "a stopped controller keeps and takes no key");
        assertEquals(OptionalLong.empty(), c.untilNextDue());
        c.start();
        c.pass(clock.get(), () -> true);
        assertEquals(List.of("a", "a", "b", "c"), r.calls, "started again: every key");
    }
}
