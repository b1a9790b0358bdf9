package dev.ace.binpacker.cluster.controller;

import dev.ace.binpacker.cluster.view.GroupBook;
import dev.ace.binpacker.workload.group.GroupIdentity;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * The leader publishes every sized group ACE decided as one {@code AceGroup} object of the group's namespace
 * (issue 19: groups and their state where users look, as Volcano's {@code kubectl get podgroups}). Key: a
 * group ({@code GroupIdentity.key}), enqueued when its ranks arrived, changed or left and when the gated
 * queue's walk changed its reason. Its object is created when the group is first seen, rewritten only when its
 * {@link GroupStatus} changes, with the resourceVersion last read as precondition, and deleted once the group's
 * pods are all gone; a failed or conflicting write is retried after the key's backoff. A new term's first key,
 * {@link #LIST}, lists the objects and brings the key of each of their groups, so an object left by a group that
 * ended while nobody led is deleted too. At most {@link #WRITES_PER_PASS} writes a pass, so a new leader of many
 * groups does not queue in front of admissions. Output only: nothing here is read by placement.
 */
final class GroupStatusWriter implements KeyReconciler<String> {
    private static final Logger LOG = Logger.getLogger(GroupStatusWriter.class);

    static final int WRITES_PER_PASS = 50;
    /** After a failed list (the CRD not applied on an upgrade), how long before the next try: one call a minute, not one a pass. */
    static final long LIST_RETRY_MILLIS = 60_000;
    /** The key that lists the objects (no group key has no {@code /}). */
    static final String LIST = "*list";

    private final GroupStatusStore store;
    private final Function<String, List<GroupBook.Rank>> ranksOf;
    private final Supplier<Collection<String>> groupKeys;
    private final Function<String, String> reasonOf;
    /** The objects as last written or read, by {@code namespace/name}. */
    private final Map<String, GroupStatusStore.Stored> written = new HashMap<>();
    /** The objects of each group key, as written or listed. */
    private final Map<String, Set<String>> objectsOf = new HashMap<>();
    private Consumer<String> enqueue = k -> { };
    private boolean listed;
    private long nextListAt = Long.MIN_VALUE;
    private boolean warned;
    private int writes;

    /**
     * @param ranksOf   a group's live ranks by its key (GroupBook's {@code group})
     * @param groupKeys every group key there is now (GroupBook's {@code keys})
     * @param reasonOf  the gated queue's last reason for a group that waits, by its key (null when none)
     */
    GroupStatusWriter(GroupStatusStore store, Function<String, List<GroupBook.Rank>> ranksOf, Supplier<Collection<String>> groupKeys,
                      Function<String, String> reasonOf) {
        this.store = store;
        this.ranksOf = ranksOf;
        this.groupKeys = groupKeys;
        this.reasonOf = reasonOf;
    }

    /** Where the keys the list brings go (the controller's queue). */
    void onKeys(Consumer<String> enqueue) { this.enqueue = enqueue; }

    @Override
    public void forget() {
        written.clear();
        objectsOf.clear();
        listed = false;
        nextListAt = Long.MIN_VALUE;
    }

    /** Before the list, the list itself (it brings every key); after it, every group and every object's group. */
    @Override
    public Collection<String> keys() {
        if (!listed) return List.of(LIST);
        Set<String> out = new LinkedHashSet<>(groupKeys.get());
        out.addAll(objectsOf.keySet());
        return out;
    }

    @Override
    public void passBegins() { writes = 0; }

    @Override
    public boolean budgetLeft() { return writes < WRITES_PER_PASS; }

    @Override
    public Result reconcile(String key, long now, BooleanSupplier leading) {
        if (LIST.equals(key)) return list(now, leading);
        if (!listed) {
            enqueue.accept(LIST); // the list brings this key again
            return Result.DONE;
        }
        GroupStatus desired = desired(key);
        String want = desired == null ? null : GroupStatusStore.key(desired.namespace(), desired.name());
        Result next = Result.DONE;
        if (desired != null) next = write(key, want, desired, leading);
        for (String object : new HashSet<>(objectsOf.getOrDefault(key, Set.of()))) {
            if (!object.equals(want)) next = Result.sooner(next, delete(key, object, leading));
        }
        return next;
    }

    /** The state of the group to publish, or null when there is none (no live rank, or none ACE decided). */
    private GroupStatus desired(String key) {
        List<GroupBook.Rank> ranks = ranksOf.apply(key);
        if (ranks.isEmpty() || ranks.stream().noneMatch(GroupBook.Rank::byAce)) return null; // not ACE's to describe (exempt, admitted without it)
        return GroupStatus.of(ranks, reasonOf.apply(key));
    }

    private Result list(long now, BooleanSupplier leading) {
        if (listed || !leading.getAsBoolean()) return Result.DONE;
        if (now < nextListAt) return Result.at(nextListAt, now);
        Map<String, GroupStatusStore.Stored> all;
        try {
            all = store.list();
        } catch (RuntimeException e) {
            nextListAt = now + LIST_RETRY_MILLIS;
            if (!warned) LOG.warnf("cannot list the AceGroup objects, groups' state is not published (is deploy/acegroup-crd.yaml applied?): %s", e.getMessage());
            warned = true;
            return new Result.RequeueAfter(LIST_RETRY_MILLIS);
        }
        written.clear();
        objectsOf.clear();
        all.forEach(this::remember);
        listed = true;
        keys().forEach(enqueue);
        return Result.DONE;
    }

    private Result write(String key, String object, GroupStatus desired, BooleanSupplier leading) {
        GroupStatusStore.Stored w = written.get(object);
        if (w != null && w.status().equals(desired)) return Result.DONE;
        if (!leading.getAsBoolean()) return Result.DONE;
        writes++;
        try {
            String rv = w == null ? store.create(desired) : store.update(desired, w.resourceVersion());
            if (rv == null) forgetObject(object);
            else remember(object, new GroupStatusStore.Stored(desired, rv));
            return Result.DONE;
        } catch (GroupStatusStore.Stale e) {
            return refresh(key, object, desired.namespace(), desired.name());
        } catch (RuntimeException e) {
            LOG.debugf("could not publish the state of group %s: %s", key, e.getMessage());
            return new Result.Retry(e.getMessage());
        }
    }

    private Result delete(String key, String object, BooleanSupplier leading) {
        GroupStatusStore.Stored w = written.get(object);
        if (w == null) {
            forgetObject(object);
            return Result.DONE;
        }
        if (!leading.getAsBoolean()) return Result.DONE;
        writes++;
        try {
            store.delete(w.status().namespace(), w.status().name(), w.resourceVersion());
            forgetObject(object);
            return Result.DONE;
        } catch (GroupStatusStore.Stale e) {
            return refresh(key, object, w.status().namespace(), w.status().name());
        } catch (RuntimeException e) {
            LOG.debugf("could not delete the state of group %s: %s", key, e.getMessage());
            return new Result.Retry(e.getMessage());
        }
    }

    /** Someone wrote the object since: learn its version, and the key's retry writes against it. */
    private Result refresh(String key, String object, String namespace, String name) {
        try {
            store.get(namespace, name).ifPresentOrElse(s -> remember(object, s), () -> forgetObject(object));
            return new Result.Retry("the object of group " + key + " was written by someone else");
        } catch (RuntimeException e) {
            forgetObject(object);
            listed = false; // read everything again; the list brings every key back
            nextListAt = Long.MIN_VALUE;
            enqueue.accept(LIST);
            return new Result.Retry(e.getMessage());
        }
    }

    private void remember(String object, GroupStatusStore.Stored s) {
        written.put(object, s);
        objectsOf.computeIfAbsent(groupKey(s.status()), k -> new HashSet<>()).add(object);
    }

    private void forgetObject(String object) {
        GroupStatusStore.Stored w = written.remove(object);
        if (w == null) return;
        String g = groupKey(w.status());
        Set<String> objects = objectsOf.get(g);
        if (objects != null && objects.remove(object) && objects.isEmpty()) objectsOf.remove(g);
    }

    /** The key of the group an object describes, from the fields its status carries. */
    static String groupKey(GroupStatus s) { return GroupIdentity.key(s.namespace(), s.source(), s.group()); }
}
