package dev.ace.binpacker.workload.group;

import java.util.Objects;

/**
 * One pod's place in a multi-pod replica.
 *
 * @param namespace   groups are namespaced: a pod can only ever join a group of its own namespace
 * @param name        the group's name inside its source, e.g. {@code llama-405b/0} for LeaderWorkerSet group 0
 * @param size        pods in the group, leader included (>= 2)
 * @param rank        this pod's index in the group (0 for the leader); only orders the ranks
 * @param source      which controller's keys gave the group away
 * @param topologyKey node label the whole group must share one value of, null when the pod does not ask
 */
public record GroupIdentity(String namespace, String name, int size, int rank, Source source, String topologyKey) {
    /** Where a group came from, in the order the resolver tries them. */
    public enum Source {
        ACE("ace"), SCHEDULING_GROUP("podgroup"), LEADER_WORKER_SET("lws"), JOBSET("jobset"), KUEUE("kueue"), KUBERAY("ray");

        private final String prefix;

        Source(String prefix) { this.prefix = prefix; }

        public String prefix() { return prefix; }
    }

    public GroupIdentity {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(source, "source");
        if (size < 2) throw new IllegalArgumentException("a group has at least 2 pods, got " + size);
    }

    /** The group's key: namespace, source and name; two sources never share a group. */
    public String key() { return key(namespace, source.prefix(), name); }

    /** The key of the group {@code name} of the source whose prefix is {@code sourcePrefix} in {@code namespace}. */
    public static String key(String namespace, String sourcePrefix, String name) { return namespace + "/" + sourcePrefix + ":" + name; }

    public boolean leader() { return rank == 0; }
}
