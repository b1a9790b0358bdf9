package dev.ace.binpacker.workload.group;

/** What the resolver made of a pod: on its own, a rank of a sized group, or named in a group whose size it cannot know. */
public sealed interface GroupMembership {
    /** No group key at all, or a group of one. */
    record Solo() implements GroupMembership {}

    record Member(GroupIdentity id) implements GroupMembership {}

    /**
     * A group key without a size on the pod (a {@code spec.schedulingGroup} or RayCluster pod without
     * {@code ace.dev/group-size}): ACE does not read the group object, so it cannot gang the pod and says so.
     */
    record Unsized(String source, String name, String hint) implements GroupMembership {}

    Solo SOLO = new Solo();
}
