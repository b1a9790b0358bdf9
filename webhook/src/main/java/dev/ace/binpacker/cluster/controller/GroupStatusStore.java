package dev.ace.binpacker.cluster.controller;

import java.util.Map;
import java.util.Optional;

/**
 * Where the leader publishes each group's {@link GroupStatus}: the namespaced {@code AceGroup} objects. An output
 * only: nothing read from here decides a placement (groups are rebuilt from their pods, {@link GroupBook}); the
 * leader reads it back only to learn the resourceVersions it writes against and which objects to delete.
 */
public interface GroupStatusStore {
    /** One object as stored: its status and the resourceVersion an update must name. */
    record Stored(GroupStatus status, String resourceVersion) {}

    /** Someone wrote the object since its resourceVersion was read (409), or it exists already on create. */
    final class Stale extends RuntimeException {
        public Stale(String message) { super(message); }
    }

    /** Every object ACE wrote, by {@code namespace/name}. */
    Map<String, Stored> list();

    Optional<Stored> get(String namespace, String name);

    /** Creates the object; its resourceVersion. */
    String create(GroupStatus s);

    /** Replaces the object if it is still at {@code resourceVersion}; the new resourceVersion. */
    String update(GroupStatus s, String resourceVersion);

    /** Deletes the object if it is still at {@code resourceVersion}; gone already is fine. */
    void delete(String namespace, String name, String resourceVersion);

    /** No store: replicas without the CRD (the standalone demo, tests of other things). */
    GroupStatusStore NONE = new GroupStatusStore() {
        @Override public Map<String, Stored> list() { return Map.of(); }
        @Override public Optional<Stored> get(String namespace, String name) { return Optional.empty(); }
        @Override public String create(GroupStatus s) { return "0"; }
        @Override public String update(GroupStatus s, String resourceVersion) { return resourceVersion; }
        @Override public void delete(String namespace, String name, String resourceVersion) {}
    };

    static String key(String namespace, String name) { return namespace + "/" + name; }
}
