package dev.ace.binpacker.cluster.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The leader's keyed work queue, on a clock the test moves: no sleeps, no timed assertions. */
class WorkQueueTest {
    private final AtomicLong clock = new AtomicLong(10_000);
    private final WorkQueue<String> q = new WorkQueue<>(clock::get, 1_000, 8_000);

    WorkQueueTest() { q.start(); }

    private List<String> drain() {
        List<String> out = new ArrayList<>();
        for (Optional<String> k = q.poll(); k.isPresent(); k = q.poll()) {
            out.add(k.get());
            q.done(k.get());
        }
        return out;
    }

    @Test
    void a_key_queued_twice_before_its_reconcile_is_reconciled_once_in_first_added_order() {
        q.add("node-a");
        q.add("node-b");
        q.add("node-a");
        assertEquals(2, q.readyCount());
        assertEquals(List.of("node-a", "node-b"), drain());
        assertTrue(q.poll().isEmpty());
    }

    @Test
    void a_key_added_while_it_is_reconciled_is_not_handed_out_twice_at_once_but_comes_again_once_done() {
        q.add("node-a");
        String k = q.poll().orElseThrow();
        q.add("node-a"); // an event while the reconcile runs
        q.add("node-a");
        assertTrue(q.poll().isEmpty(), "no second worker gets the key while the first holds it");
        q.done(k);
        assertEquals(List.of("node-a"), drain(), "reconciled again after, once");
    }

    @Test
    void requeue_after_makes_keys_ready_in_the_order_of_their_times_once_the_clock_reaches_them() {
        q.addAfter("late", 5_000);
        q.addAfter("soon", 1_000);
        q.addAfter("middle", 3_000);
        assertTrue(q.poll().isEmpty());
        assertEquals(OptionalLong.of(1_000), q.untilNextDue());
        clock.addAndGet(999);
        assertTrue(q.poll().isEmpty(), "one milli early is not due");
        clock.addAndGet(1);
        assertEquals(List.of("soon"), drain());
        clock.addAndGet(10_000);
        assertEquals(List.of("middle", "late"), drain(), "both due: earlier time first");
        assertEquals(OptionalLong.empty(), q.untilNextDue());
    }

    @Test
    void of_two_requeue_times_for_one_key_the_earlier_wins_and_the_key_comes_once() {
        q.addAfter("node-a", 5_000);
        q.addAfter("node-a", 2_000);
        q.addAfter("node-a", 9_000);
        assertEquals(1, q.waitingCount());
        clock.addAndGet(2_000);
        assertEquals(List.of("node-a"), drain());
        clock.addAndGet(10_000);
        assertEquals(List.of(), drain(), "the later times were superseded");
    }

    @Test
    void a_requeue_after_zero_is_ready_now() {
        q.addAfter("node-a", 0);
        assertEquals(List.of("node-a"), drain());
    }

    @Test
    void each_failure_doubles_the_keys_backoff_up_to_the_cap_and_forget_starts_it_again() {
        long[] expected = {1_000, 2_000, 4_000, 8_000, 8_000};
        for (long d : expected) {
            q.addRateLimited("node-a");
            assertEquals(OptionalLong.of(d), q.untilNextDue());
            clock.addAndGet(d);
            assertEquals(List.of("node-a"), drain());
        }
        assertEquals(5, q.failures("node-a"));
        q.forget("node-a");
        q.addRateLimited("node-a");
        assertEquals(OptionalLong.of(1_000), q.untilNextDue(), "a success resets the backoff");
    }

    @Test
    void backoff_is_per_key() {
        q.addRateLimited("node-a");
        clock.addAndGet(1_000);
        drain();
        q.addRateLimited("node-a");
        q.addRateLimited("node-b");
        assertEquals(OptionalLong.of(1_000), q.untilNextDue(), "node-b's first failure: the base");
        clock.addAndGet(1_000);
        assertEquals(List.of("node-b"), drain());
        clock.addAndGet(1_000);
        assertEquals(List.of("node-a"), drain(), "node-a's second failure: twice the base");
    }

    @Test
    void stopped_it_drops_ready_waiting_and_backed_off_keys_and_refuses_new_ones_until_started_again() {
        q.add("ready");
        q.addAfter("waiting", 1_000);
        q.addRateLimited("failed");
        q.stop();
        assertFalse(q.running());
        q.add("while-stopped");
        q.addAfter("while-stopped-later", 1);
        clock.addAndGet(60_000);
        assertEquals(List.of(), drain());
        assertEquals(OptionalLong.empty(), q.untilNextDue());
        q.start();
        q.addRateLimited("failed");
        assertEquals(OptionalLong.of(1_000), q.untilNextDue(), "no backoff survives a stop");
    }

    @Test
    void a_key_being_reconciled_when_the_queue_stops_is_not_queued_again_when_done() {
        q.add("node-a");
        String k = q.poll().orElseThrow();
        q.add("node-a");
        q.stop();
        q.done(k);
        q.start();
        assertEquals(List.of(), drain());
    }
}
