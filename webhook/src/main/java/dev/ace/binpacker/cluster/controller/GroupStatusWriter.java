package dev.ace.binpacker.cluster.controller;

import dev.ace.binpacker.cluster.view.GroupBook;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.jboss.logging.Logger;

/**
 * The leader publishes every sized group ACE decided as one {@code AceGroup} object of the group's namespace
 * (issue 19: groups and their state where users look, as Volcano's {@code kubectl get podgroups}): created
 * when the group is first seen, rewritten only when its {@link GroupStatus} changes, with the resourceVersion
 * last read as precondition, and deleted once the group's pods are all gone. A new leader lists the objects
 * first, so one left by a group that ended while nobody led is deleted too. At most
 * {@link #WRITES_PER_PASS} writes a pass, so a new leader of many groups does not queue in front of admissions.
 * Output only: nothing here is read by placement, and a failed write is retried by a later pass.
 */
final class GroupStatusWriter {
    private static final Logger LOG = Logger.getLogger(GroupStatusWriter.class);

    static final int WRITES_PER_PASS = 50;
    /** After a failed list (the CRD not applied on an upgrade), how long before the next try: one call a minute, not one a pass. */
    static final long LIST_RETRY_MILLIS = 60_000;

    private final GroupStatusStore store;
    private final Map<String, GroupStatusStore.Stored> written = new LinkedHashMap<>();
    private boolean listed;
    private long nextListAt = Long.MIN_VALUE;
    private boolean warned;

    GroupStatusWriter(GroupStatusStore store) { this.store = store; }

    void reset() {
        written.clear();
        listed = false;
        nextListAt = Long.MIN_VALUE;
    }

    /** The groups the book holds now, each with the keeper's reason for waiting (by group key); {@code now}: monotonic millis. */
    void pass(Map<String, List<GroupBook.Rank>> groups, Map<String, String> reasons, long now, BooleanSupplier leading) {
        if (!leading.getAsBoolean()) return;
        if (!listed) {
            if (now < nextListAt) return;
            try {
                Map<String, GroupStatusStore.Stored> all = store.list();
                written.clear();
                written.putAll(all);
                listed = true;
            } catch (RuntimeException e) {
                nextListAt = now + LIST_RETRY_MILLIS;
                if (!warned) LOG.warnf("cannot list the AceGroup objects, groups' state is not published (is deploy/acegroup-crd.yaml applied?): %s", e.getMessage());
                warned = true;
                return;
            }
        }
        Map<String, GroupStatus> desired = new LinkedHashMap<>();
        for (Map.Entry<String, List<GroupBook.Rank>> g : groups.entrySet()) {
            List<GroupBook.Rank> ranks = g.getValue();
            if (ranks.isEmpty() || ranks.stream().noneMatch(GroupBook.Rank::byAce)) continue; // not ACE's to describe (exempt, admitted without it)
            GroupStatus s = GroupStatus.of(ranks, reasons.get(g.getKey()));
            desired.put(GroupStatusStore.key(s.namespace(), s.name()), s);
        }
        int writes = 0;
        for (Map.Entry<String, GroupStatus> d : desired.entrySet()) {
            GroupStatusStore.Stored w = written.get(d.getKey());
            if (w != null && w.status().equals(d.getValue())) continue;
            if (!leading.getAsBoolean() || writes++ >= WRITES_PER_PASS) return;
            try {
                String rv = w == null ? store.create(d.getValue()) : store.update(d.getValue(), w.resourceVersion());
                if (rv == null) written.remove(d.getKey());
                else written.put(d.getKey(), new GroupStatusStore.Stored(d.getValue(), rv));
            } catch (GroupStatusStore.Stale e) {
                refresh(d.getKey(), d.getValue().namespace(), d.getValue().name());
            } catch (RuntimeException e) {
                LOG.debugf("could not publish the state of group %s: %s", d.getKey(), e.getMessage());
            }
        }
        for (String gone : new HashSet<>(written.keySet())) {
            if (desired.containsKey(gone)) continue;
            if (!leading.getAsBoolean() || writes++ >= WRITES_PER_PASS) return;
            GroupStatusStore.Stored w = written.get(gone);
            try {
                store.delete(w.status().namespace(), w.status().name(), w.resourceVersion());
                written.remove(gone);
            } catch (GroupStatusStore.Stale e) {
                refresh(gone, w.status().namespace(), w.status().name());
            } catch (RuntimeException e) {
                LOG.debugf("could not delete the state of group %s: %s", gone, e.getMessage());
            }
        }
    }

    /** Someone wrote the object since: learn its version, and the next pass writes against it. */
    private void refresh(String key, String namespace, String name) {
        try {
            store.get(namespace, name).ifPresentOrElse(s -> written.put(key, s), () -> written.remove(key));
        } catch (RuntimeException e) {
            written.remove(key);
            listed = false; // read everything again next pass
            nextListAt = Long.MIN_VALUE;
        }
    }
}
