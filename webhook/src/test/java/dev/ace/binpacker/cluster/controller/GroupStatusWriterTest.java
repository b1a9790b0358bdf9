package dev.ace.binpacker.cluster.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.cluster.view.GroupBook;
import dev.ace.binpacker.workload.group.GroupIdentity.Source;
import dev.ace.binpacker.workload.group.GroupIdentity;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The leader's writes of the AceGroup objects: only on change, against the version read, and deleted with the group. */
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

    private static Map<String, List<GroupBook.Rank>> groups(String lws, List<GroupBook.Rank> ranks) {
        return Map.of("ml/lws:" + lws + "/0", ranks);
    }

    @Test
    void created_once_updated_only_when_the_state_changes_and_deleted_when_the_pods_are_gone() {
        Store store = new Store();
        GroupStatusWriter w = new GroupStatusWriter(store);
        var waiting = groups("llama", List.of(rank("llama", 0, true, true), rank("llama", 1, true, true)));
        w.pass(waiting, Map.of(), 0, () -> true);
        w.pass(waiting, Map.of(), 0, () -> true);
        assertEquals(List.of("create ml/lws.llama.0"), store.writes, "an unchanged group is not written again");
        assertEquals(GroupStatus.Phase.WAITING, store.objects.get("ml/lws.llama.0").status().phase());

        w.pass(groups("llama", List.of(rank("llama", 0, false, true), rank("llama", 1, false, true))), Map.of(), 0, () -> true);
        assertEquals("update ml/lws.llama.0 Placed", store.writes.get(1));
        w.pass(Map.of(), Map.of(), 0, () -> true);
        assertEquals("delete ml/lws.llama.0", store.writes.get(2));
        assertTrue(store.objects.isEmpty());
    }

    @Test
    void a_write_that_lost_to_another_writer_is_retried_against_the_version_read_again() {
        Store store = new Store();
        GroupStatusWriter w = new GroupStatusWriter(store);
        w.pass(groups("llama", List.of(rank("llama", 0, true, true), rank("llama", 1, true, true))), Map.of(), 0, () -> true);
        // A previous leader, still finishing its pass, writes the object behind this one's back.
        var stale = store.objects.get("ml/lws.llama.0");
        store.objects.put("ml/lws.llama.0", new GroupStatusStore.Stored(stale.status(), "99"));
        var placed = groups("llama", List.of(rank("llama", 0, false, true), rank("llama", 1, false, true)));
        w.pass(placed, Map.of(), 0, () -> true);
        assertEquals(GroupStatus.Phase.WAITING, store.objects.get("ml/lws.llama.0").status().phase(), "the conflicting update wrote nothing");
        w.pass(placed, Map.of(), 0, () -> true);
        assertEquals(GroupStatus.Phase.PLACED, store.objects.get("ml/lws.llama.0").status().phase());
    }

    @Test
    void a_new_leader_deletes_objects_of_groups_that_ended_while_nobody_led_and_never_writes_while_not_leading() {
        Store store = new Store();
        new GroupStatusWriter(store).pass(groups("old", List.of(rank("old", 0, true, true))), Map.of(), 0, () -> true);
        GroupStatusWriter next = new GroupStatusWriter(store);
        next.pass(groups("new", List.of(rank("new", 0, true, true))), Map.of(), 0, () -> false);
        assertEquals(1, store.writes.size(), "a replica that does not lead writes nothing");
        next.pass(groups("new", List.of(rank("new", 0, true, true))), Map.of(), 0, () -> true);
        assertEquals(List.of("ml/lws.new.0"), List.copyOf(store.objects.keySet()));
    }

    @Test
    void a_group_ace_never_decided_gets_no_object() {
        Store store = new Store();
        new GroupStatusWriter(store).pass(groups("exempt", List.of(rank("exempt", 0, false, false), rank("exempt", 1, false, false))),
                Map.of(), 0, () -> true);
        assertTrue(store.writes.isEmpty());
    }

    @Test
    void the_leaders_reason_is_what_the_object_says() {
        Store store = new Store();
        new GroupStatusWriter(store).pass(groups("llama", List.of(rank("llama", 0, true, true), rank("llama", 1, true, true))),
                Map.of("ml/lws:llama/0", "no room for all 2 ranks (8 GPUs each) at once"), 0, () -> true);
        assertEquals("no room for all 2 ranks (8 GPUs each) at once", store.objects.get("ml/lws.llama.0").status().reason());
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
        GroupStatusWriter w = new GroupStatusWriter(store);
        var g = groups("llama", List.of(rank("llama", 0, true, true)));
        for (long now = 0; now < GroupStatusWriter.LIST_RETRY_MILLIS; now += 1_000) w.pass(g, Map.of(), now, () -> true);
        assertEquals(1, lists[0]);
        assertTrue(store.writes.isEmpty(), "nothing written while the objects cannot be listed");
        w.pass(g, Map.of(), GroupStatusWriter.LIST_RETRY_MILLIS, () -> true);
        assertEquals(2, lists[0]);
    }
}
