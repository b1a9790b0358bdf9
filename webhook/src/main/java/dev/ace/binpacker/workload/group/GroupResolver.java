package dev.ace.binpacker.workload.group;

import dev.ace.binpacker.keys.GroupKeys;
import dev.ace.binpacker.workload.InvalidPodException;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;
import java.util.Optional;

/**
 * The one place that tells which multi-pod replica a pod belongs to, from what the user's controller
 * already writes on every pod: {@code ace.dev/group} first (the user's explicit word), then Kubernetes
 * {@code spec.schedulingGroup.podGroupName}, LeaderWorkerSet, JobSet, Kueue pod groups and KubeRay.
 * {@code ace.dev/group-size} overrides the size any source gives. Pure: reads the pod only, never the
 * group object a controller may create later.
 *
 * <p>Hostile input: the key always carries the pod's namespace (no joining another namespace's group);
 * a size that is not a whole number, or above {@code maxSize}, is refused naming the field.
 */
public final class GroupResolver {
    /** The largest group ACE gangs by default: one GB200/GB300 NVL72 rack of single-GPU ranks. */
    public static final int DEFAULT_MAX_SIZE = 72;

    private final int maxSize;

    public GroupResolver(int maxSize) {
        if (maxSize < 2) throw new IllegalArgumentException("maxSize must be >= 2");
        this.maxSize = maxSize;
    }

    public int maxSize() { return maxSize; }

    public GroupMembership resolve(Pod pod) throws InvalidPodException {
        var meta = pod.getMetadata();
        if (meta == null) return GroupMembership.SOLO;
        Map<String, String> labels = meta.getLabels() == null ? Map.of() : meta.getLabels();
        Map<String, String> ann = meta.getAnnotations() == null ? Map.of() : meta.getAnnotations();
        String ns = meta.getNamespace() == null ? "" : meta.getNamespace();
        String podName = meta.getName() != null && !meta.getName().isEmpty() ? meta.getName() : "";
        Integer override = size(ann, labels, GroupKeys.GROUP_SIZE);
        String topology = first(ann, labels, GroupKeys.GROUP_TOPOLOGY);

        String ace = first(labels, ann, GroupKeys.GROUP);
        if (ace != null) {
            if (override == null) return new GroupMembership.Unsized(GroupKeys.GROUP, ace, "set " + GroupKeys.GROUP_SIZE);
            return member(ns, ace, override, ordinal(podName), GroupIdentity.Source.ACE, topology);
        }
        Optional<String> podGroup = schedulingGroup(pod);
        if (podGroup.isPresent()) {
            if (override == null) return new GroupMembership.Unsized("spec.schedulingGroup", podGroup.get(),
                    "ACE does not read the PodGroup; set " + GroupKeys.GROUP_SIZE + " to its minCount");
            return member(ns, podGroup.get(), override, ordinal(podName), GroupIdentity.Source.SCHEDULING_GROUP, topology);
        }
        String lws = labels.get(GroupKeys.LWS_NAME);
        if (lws != null && !lws.isEmpty()) return leaderWorkerSet(ns, podName, lws, labels, ann, override, topology);
        String jobset = labels.getOrDefault(GroupKeys.JOBSET_NAME, ann.get(GroupKeys.JOBSET_NAME));
        if (jobset != null && !jobset.isEmpty()) {
            Integer n = override != null ? override : size(ann, labels, GroupKeys.JOBSET_GLOBAL_REPLICAS);
            String attempt = first(labels, ann, GroupKeys.JOBSET_RESTART_ATTEMPT);
            String name = jobset + (attempt == null ? "" : "/attempt-" + attempt);
            if (n == null) return new GroupMembership.Unsized("JobSet", name, "set " + GroupKeys.GROUP_SIZE);
            int rank = intOr(first(labels, ann, GroupKeys.JOBSET_JOB_GLOBAL_INDEX), 0) * 1000
                    + intOr(first(labels, ann, GroupKeys.JOB_COMPLETION_INDEX), 0);
            return member(ns, name, n, rank, GroupIdentity.Source.JOBSET,
                    topology != null ? topology : ann.get(GroupKeys.JOBSET_EXCLUSIVE_TOPOLOGY));
        }
        String kueue = labels.get(GroupKeys.KUEUE_POD_GROUP);
        if (kueue != null && !kueue.isEmpty()) {
            Integer n = override != null ? override : size(ann, labels, GroupKeys.KUEUE_POD_GROUP_TOTAL);
            if (n == null) return new GroupMembership.Unsized("Kueue pod group", kueue, "set " + GroupKeys.KUEUE_POD_GROUP_TOTAL);
            return member(ns, kueue, n, ordinal(podName), GroupIdentity.Source.KUEUE, topology);
        }
        String ray = labels.get(GroupKeys.RAY_CLUSTER);
        if (ray != null && !ray.isEmpty()) {
            if (override == null) return new GroupMembership.Unsized("RayCluster", ray,
                    "set " + GroupKeys.GROUP_SIZE + " to the GPU pods of the cluster (head plus worker replicas)");
            int rank = "head".equals(labels.get(GroupKeys.RAY_NODE_TYPE)) ? 0 : 1 + Math.floorMod(podName.hashCode(), 1 << 20);
            return member(ns, ray, override, rank, GroupIdentity.Source.KUBERAY, topology);
        }
        return GroupMembership.SOLO;
    }

    /**
     * LeaderWorkerSet: the leader is {@code <lws>-<group>} (leader StatefulSet), workers {@code <lws>-<group>-<worker>}.
     * LWS's own webhook adds group-index to the leader and worker-index to every pod; when ACE runs before it, both
     * come from the name, so the leader is ganged whichever webhook runs first.
     */
    private GroupMembership leaderWorkerSet(String ns, String podName, String lws, Map<String, String> labels,
                                            Map<String, String> ann, Integer override, String topology) throws InvalidPodException {
        Integer n = override != null ? override : size(ann, labels, GroupKeys.LWS_SIZE);
        String[] ordinals = podName.startsWith(lws + "-") ? podName.substring(lws.length() + 1).split("-", -1) : new String[0];
        boolean worker = ann.containsKey(GroupKeys.LWS_LEADER_NAME) || ordinals.length == 2
                || intOr(labels.get(GroupKeys.LWS_WORKER_INDEX), 0) > 0;
        String group = labels.get(GroupKeys.LWS_GROUP_INDEX);
        if ((group == null || group.isEmpty()) && ordinals.length >= 1 && isIndex(ordinals[0])) group = ordinals[0];
        if (group == null || !isIndex(group)) {
            return new GroupMembership.Unsized("LeaderWorkerSet", lws, "no group index in the labels or the pod name");
        }
        int rank = !worker ? 0 : labels.containsKey(GroupKeys.LWS_WORKER_INDEX) ? intOr(labels.get(GroupKeys.LWS_WORKER_INDEX), 1)
                : ordinals.length == 2 && isIndex(ordinals[1]) ? Integer.parseInt(ordinals[1]) : 1;
        if (n == null) return new GroupMembership.Unsized("LeaderWorkerSet", lws + "/" + group, "no " + GroupKeys.LWS_SIZE + " annotation");
        return member(ns, lws + "/" + group, n, rank, GroupIdentity.Source.LEADER_WORKER_SET,
                topology != null ? topology : ann.get(GroupKeys.LWS_EXCLUSIVE_TOPOLOGY));
    }

    private static GroupMembership member(String ns, String name, int size, int rank, GroupIdentity.Source s, String topology) {
        if (size < 2) return GroupMembership.SOLO;
        return new GroupMembership.Member(new GroupIdentity(ns, name, size, rank, s, topology == null || topology.isBlank() ? null : topology));
    }

    /** {@code spec.schedulingGroup.podGroupName} (Kubernetes 1.36, not in the fabric8 model yet: read from the unknown fields). */
    static Optional<String> schedulingGroup(Pod pod) {
        if (pod.getSpec() == null || pod.getSpec().getAdditionalProperties() == null) return Optional.empty();
        Object g = pod.getSpec().getAdditionalProperties().get(GroupKeys.SCHEDULING_GROUP_FIELD);
        if (!(g instanceof Map<?, ?> m)) return Optional.empty();
        Object n = m.get(GroupKeys.POD_GROUP_NAME_FIELD);
        return n instanceof String s && !s.isEmpty() ? Optional.of(s) : Optional.empty();
    }

    private Integer size(Map<String, String> primary, Map<String, String> secondary, String key) throws InvalidPodException {
        String v = first(primary, secondary, key);
        if (v == null) return null;
        int n;
        try {
            n = Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new InvalidPodException("metadata.annotations[\"" + key + "\"]", "not a whole number: " + v);
        }
        if (n < 1) throw new InvalidPodException("metadata.annotations[\"" + key + "\"]", "a group has at least 1 pod, got " + n);
        if (n > maxSize) {
            throw new InvalidPodException("metadata.annotations[\"" + key + "\"]", "group of " + n + " pods is above the "
                    + maxSize + " ACE gangs (configuration ace.groups.max-size)");
        }
        return n;
    }

    private static String first(Map<String, String> a, Map<String, String> b, String key) {
        String v = a.get(key);
        if (v == null || v.isEmpty()) v = b.get(key);
        return v == null || v.isEmpty() ? null : v;
    }

    private static boolean isIndex(String s) {
        if (s.isEmpty() || s.length() > 9) return false;
        for (int i = 0; i < s.length(); i++) if (!Character.isDigit(s.charAt(i))) return false;
        return true;
    }

    private static int intOr(String s, int dflt) { return s != null && isIndex(s) ? Integer.parseInt(s) : dflt; }

    /** The trailing ordinal of a StatefulSet-style name ({@code web-3} is 3), else 1: only orders ranks. */
    private static int ordinal(String podName) {
        int dash = podName.lastIndexOf('-');
        String tail = dash < 0 ? "" : podName.substring(dash + 1);
        return isIndex(tail) ? Integer.parseInt(tail) : 1;
    }
}
