package dev.ace.binpacker.cluster.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.ace.binpacker.cluster.view.GroupBook;
import dev.ace.binpacker.workload.group.GroupIdentity.Source;
import dev.ace.binpacker.workload.group.GroupIdentity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The leader's writes of the AceGroup objects, one group per key on its own queue and the test's clock: only
 * when the group or its reason changed, against the version read, deleted with the group, a failed write
 * retried after the key's backoff; work counted in reconciles and writes, never timed.
 */
class GroupStatusWriterTest {
    /** An in-memory store that counts writes and answers Stale like the API server's 409. */
    static class Store implements GroupStatusStore {
        final Map<String, Stored> objects = new HashMap<>();
        final List<String> writes = new ArrayList<>();
        private int version;

        @Override public Map<String, Stored> list() { return new HashMap<>(objects); }

        @Override public Optional<Stored> get(String namespace, String name) { return Optional.ofNullable(objects.get(GroupStatusStore.key(namespace, name))); }

        @Override public String create(GroupStatus s) {
            String k = GroupStatusStore.key(s.namespace(), s.name());
            if (objects.containsKey(k)) throw new Stale("exists");
            writes.add("create " + k);
            objects.put(k, new Stored(s, Integer.toString(++version)));
            return Integer.toString(version);
        }

        @Override public String update(GroupStatus s, String rv) {
            String k = GroupStatusStore.key(s.namespace(), s.name());
            Stored now = objects.get(k);
            if (now == null || !now.resourceVersion().equals(rv)) throw new Stale("conflict");
            writes.add("update " + k + " " + s.phase().label());
            objects.put(k, new Stored(s, Integer.toString(++version)));
            return Integer.toString(version);
        }

        @Override public void delete(String namespace, String name, String rv) {
            String k = GroupStatusStore.key(namespace, name);
            Stored now = objects.get(k);
            if (now != null && !now.resourceVersion().equals(rv)) throw new Stale("conflict");
            writes.add("delete " + k);
            objects.remove(k);
        }
    }

    private static GroupBook.Rank rank(String lws, int index, boolean gated, boolean byAce) {
        GroupIdentity id = new GroupIdentity("ml", lws + "/0", 2, index, Source.LEADER_WORKER_SET, null);
        return new GroupBook.Rank(lws + "-uid-" + index, lws + "-0-" + index, id, gated, false, null, 8, 0, 1_000, byAce);
    }

    private static String key(String lws) { return "ml/lws:" + lws + "/0"; }

    private static List<GroupBook.Rank> waiting(String lws) { return List.of(rank(lws, 0, true, true), rank(lws, 1, true, true)); }

    private static List<GroupBook.Rank> placed(String lws) { return List.of(rank(lws, 0, false, true), rank(lws, 1, false, true)); }

    /** The writer on its controller, as the leader runs it: the book's groups and the queue's reasons, events as keys. */
    static final class Leader {
        final AtomicLong clock = new AtomicLong();
        final Map<String, List<GroupBook.Rank>> book = new LinkedHashMap<>();
        final Map<String, String> reasons = new HashMap<>();
        final GroupStatusWriter writer;
        final Controller<String> controller;
        boolean leading = true;

        Leader(GroupStatusStore store) {
            writer = new GroupStatusWriter(store, k -> book.getOrDefault(k, List.of()), book::keySet, reasons::get);
            controller = new Controller<>("group-status", writer, clock::get, Reconciler.BASE_BACKOFF_MILLIS, Reconciler.MAX_BACKOFF_MILLIS);
            writer.onKeys(controller::enqueue);
        }

        Leader start() {
            controller.start();
            return this;
        }

        /** The group's ranks changed (GroupBook's event); an empty list: its pods are gone. */
        void ranks(String lws, List<GroupBook.Rank> ranks) {
            if (ranks.isEmpty()) book.remove(key(lws));
            else book.put(key(lws), ranks);
            controller.enqueue(key(lws));
        }

        void reason(String lws, String why) {
            reasons.put(key(lws), why);
            controller.enqueue(key(lws));
        }

        long pass() {
            long before = controller.reconciles();
            controller.pass(clock.get(), () -> leading);
            return controller.reconciles() - before;
        }

        /** Passes until no key is ready (the list's pass, then the keys it brought). */
        void settle() {
            for (int i = 0; i < 5 && controller.untilNextDue().orElse(1) == 0; i++) pass();
        }
    }

    @Test
    void created_once_updated_only_when_the_state_changes_and_deleted_when_the_pods_are_gone() {
        Store store = new Store();
        Leader l = new Leader(store);
        l.ranks("llama", waiting("llama"));
        l.start().settle();
        assertEquals(List.of("create ml/lws.llama.0"), store.writes);
        assertEquals(GroupStatus.Phase.WAITING, store.objects.get("ml/lws.llama.0").status().phase());
        l.ranks("llama", waiting("llama")); // an event that changed nothing ACE publishes
        assertEquals(1, l.pass());
        assertEquals(1, store.writes.size(), "an unchanged group is not written again");

        l.ranks("llama", placed("llama"));
        l.pass();
        assertEquals("update ml/lws.llama.0 Placed", store.writes.get(1));
        l.ranks("llama", List.of());
        l.pass();
        assertEquals("delete ml/lws.llama.0", store.writes.get(2));
        assertTrue(store.objects.isEmpty());
    }

    @Test
    void a_pass_reconciles_only_the_groups_whose_ranks_or_reason_changed() {
        Store store = new Store();
        Leader l = new Leader(store);
        for (int i = 0; i < 40; i++) l.ranks("g" + i, waiting("g" + i));
        l.start().settle();
        assertEquals(40, store.writes.size());
        assertEquals(0, l.pass(), "no event: no group looked at");
        l.reason("g7", "no room for all 2 ranks (8 GPUs each) at once");
        assertEquals(1, l.pass(), "the group whose reason changed, not the other 39");
        assertEquals("update ml/lws.g7.0 Waiting", store.writes.get(40));
        assertEquals("no room for all 2 ranks (8 GPUs each) at once", store.objects.get("ml/lws.g7.0").status().reason());
        l.ranks("g3", placed("g3"));
        assertEquals(1, l.pass());
        assertEquals(42, store.writes.size());
    }

    @Test
    void a_write_that_lost_to_another_writer_is_retried_after_the_keys_backoff_against_the_version_read_again() {
        Store store = new Store();
        Leader l = new Leader(store);
        l.ranks("llama", waiting("llama"));
        l.start().settle();
        // A previous leader, still finishing its pass, writes the object behind this one's back.
        var stale = store.objects.get("ml/lws.llama.0");
        store.objects.put("ml/lws.llama.0", new GroupStatusStore.Stored(stale.status(), "99"));
        l.ranks("llama", placed("llama"));
        l.pass();
        assertEquals(GroupStatus.Phase.WAITING, store.objects.get("ml/lws.llama.0").status().phase(), "the conflicting update wrote nothing");
        l.clock.addAndGet(Reconciler.BASE_BACKOFF_MILLIS - 1);
        assertEquals(0, l.pass(), "not retried before its backoff");
        l.clock.incrementAndGet();
        assertEquals(1, l.pass());
        assertEquals(GroupStatus.Phase.PLACED, store.objects.get("ml/lws.llama.0").status().phase());
    }

    @Test
    void a_failed_write_backs_off_per_group_doubling_while_the_other_groups_are_written() {
        Store store = new Store() {
            int failures = 3;

            @Override public String create(GroupStatus s) {
                if (s.name().equals("lws.bad.0") && failures-- > 0) throw new IllegalStateException("HTTP 500");
                return super.create(s);
            }
        };
        Leader l = new Leader(store);
        l.ranks("bad", waiting("bad"));
        l.ranks("good", waiting("good"));
        l.start().settle();
        assertEquals(List.of("create ml/lws.good.0"), store.writes, "one group's failure does not stop the other");
        long[] waits = new long[3];
        for (int i = 0; i < 3; i++) {
            waits[i] = l.controller.untilNextDue().orElseThrow();
            l.clock.addAndGet(waits[i]);
            assertEquals(1, l.pass(), "only the failed group comes back");
        }
        assertEquals(List.of(1_000L, 2_000L, 4_000L), List.of(waits[0], waits[1], waits[2]), "the key's backoff doubles");
        assertEquals(List.of("create ml/lws.good.0", "create ml/lws.bad.0"), store.writes);
        assertTrue(l.controller.untilNextDue().isEmpty(), "written: nothing waits");
    }

    @Test
    void a_new_leader_deletes_objects_of_groups_that_ended_while_nobody_led_and_never_writes_while_not_leading() {
        Store store = new Store();
        Leader old = new Leader(store);
        old.ranks("old", List.of(rank("old", 0, true, true)));
        old.start().settle();
        Leader next = new Leader(store);
        next.ranks("new", List.of(rank("new", 0, true, true)));
        next.leading = false;
        next.start();
        next.pass();
        next.pass();
        assertEquals(1, store.writes.size(), "a replica that does not lead writes nothing");
        next.leading = true;
        next.settle();
        assertEquals(List.of("ml/lws.new.0"), List.copyOf(store.objects.keySet()));
    }

    @Test
    void a_term_that_ends_forgets_what_it_wrote_and_the_next_reads_it_again() {
        Store store = new Store();
        Leader l = new Leader(store);
        l.ranks("llama", waiting("llama"));
        l.start().settle();
        l.controller.stop();
        l.ranks("llama", placed("llama"));
        assertEquals(0, l.pass(), "stopped: no key waits");
        store.objects.put("ml/lws.llama.0", new GroupStatusStore.Stored(store.objects.get("ml/lws.llama.0").status(), "77"));
        l.start().settle();
        assertEquals("update ml/lws.llama.0 Placed", store.writes.get(store.writes.size() - 1), "written against the version listed afresh");
    }

    @Test
    void a_group_ace_never_decided_gets_no_object() {
        Store store = new Store();
        Leader l = new Leader(store);
        l.ranks("exempt", List.of(rank("exempt", 0, false, false), rank("exempt", 1, false, false)));
        l.start().settle();
        assertTrue(store.writes.isEmpty());
    }

    @Test
    void a_new_leader_of_120_groups_writes_50_a_pass() {
        Store store = new Store();
        Leader l = new Leader(store);
        for (int i = 0; i < 120; i++) l.ranks("g" + i, waiting("g" + i));
        l.start();
        l.pass(); // the list, which brings every key
        int[] written = new int[3];
        for (int i = 0; i < 3; i++) {
            l.pass();
            written[i] = store.writes.size();
        }
        assertEquals(List.of(50, 100, 120), List.of(written[0], written[1], written[2]));
    }

    @Test
    void without_the_crd_the_leader_tries_to_list_once_a_minute_not_once_a_pass() {
        int[] lists = {0};
        Store store = new Store() {
            @Override public Map<String, Stored> list() {
                lists[0]++;
                throw new IllegalStateException("404: the server could not find the requested resource");
            }
        };
        Leader l = new Leader(store);
        l.ranks("llama", List.of(rank("llama", 0, true, true)));
        l.start();
        for (long now = 0; now < GroupStatusWriter.LIST_RETRY_MILLIS; now += 1_000) {
            l.clock.set(now);
            l.ranks("llama", List.of(rank("llama", 0, true, true))); // events keep coming
            l.pass();
        }
        assertEquals(1, lists[0]);
        assertTrue(store.writes.isEmpty(), "nothing written while the objects cannot be listed");
        l.clock.set(GroupStatusWriter.LIST_RETRY_MILLIS);
        l.pass();
        assertEquals(2, lists[0]);
        assertFalse(l.controller.untilNextDue().isEmpty(), "and again a minute later");
    }
}
