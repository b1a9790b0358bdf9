package dev.ace.binpacker.keys;


/**
 * The keys by which the pods of one multi-pod replica say they belong together, as the controllers
 * that create them write them (docs/webhook.md "Groups"). Read, never written: ACE derives a group from
 * what the user's controller already puts on every pod and never waits for a group object it creates later.
 */
public final class GroupKeys {
    private GroupKeys() {}

    /** Pod label or annotation (input): the group's name, for controllers ACE does not read itself. */
    public static final String GROUP = AceKeys.PREFIX + "group";
    /** Pod annotation or label (input): how many pods the group has; overrides the size any controller key gives. */
    public static final String GROUP_SIZE = AceKeys.PREFIX + "group-size";
    /** Pod annotation (input): a node label the whole group must share one value of (a rack, a network block). */
    public static final String GROUP_TOPOLOGY = AceKeys.PREFIX + "group-topology";
    /** Scheduling gate of a rank waiting for its whole group to fit. */
    public static final String GROUP_GATE = AceKeys.PREFIX + "waiting-for-group";

    /** Kubernetes 1.36 Workload API: {@code spec.schedulingGroup.podGroupName} (feature gate GenericWorkload). */
    public static final String SCHEDULING_GROUP_FIELD = "schedulingGroup";
    public static final String POD_GROUP_NAME_FIELD = "podGroupName";

    public static final String LWS_PREFIX = AceKeys.LWS_PREFIX;
    /** Label: the LeaderWorkerSet. */
    public static final String LWS_NAME = LWS_PREFIX + "name";
    /** Label: the replica (group) index; on workers from the template, on the leader added by LWS's own webhook. */
    public static final String LWS_GROUP_INDEX = LWS_PREFIX + "group-index";
    /** Label: 0 for the leader, 1.. for workers; added by LWS's own webhook from the name ordinal. */
    public static final String LWS_WORKER_INDEX = LWS_PREFIX + "worker-index";
    /** Annotation: pods per group, leader included. */
    public static final String LWS_SIZE = LWS_PREFIX + "size";
    /** Annotation on workers: the leader pod's name. */
    public static final String LWS_LEADER_NAME = LWS_PREFIX + "leader-name";
    /** Annotation: the node label each group must share one value of (1:1 group to topology domain). */
    public static final String LWS_EXCLUSIVE_TOPOLOGY = LWS_PREFIX + "exclusive-topology";

    public static final String JOBSET_PREFIX = "jobset.sigs.k8s.io/";
    public static final String JOBSET_NAME = JOBSET_PREFIX + "jobset-name";
    public static final String JOBSET_UID = JOBSET_PREFIX + "jobset-uid";
    /** Jobs in the JobSet (sum of replicatedJobs[*].replicas): the group size when each Job runs one pod. */
    public static final String JOBSET_GLOBAL_REPLICAS = JOBSET_PREFIX + "global-replicas";
    public static final String JOBSET_JOB_GLOBAL_INDEX = JOBSET_PREFIX + "job-global-index";
    public static final String JOBSET_RESTART_ATTEMPT = JOBSET_PREFIX + "restart-attempt";
    /** Label and annotation of an Indexed Job's pod. */
    public static final String JOB_COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";
    /** JobSet's exclusive placement annotation (one topology domain per Job). */
    public static final String JOBSET_EXCLUSIVE_TOPOLOGY = "alpha.jobset.sigs.k8s.io/exclusive-topology";

    /** KubeRay: the RayCluster and the node type ({@code head} / {@code worker}). */
    public static final String RAY_CLUSTER = "ray.io/cluster";
    public static final String RAY_GROUP = "ray.io/group";
    public static final String RAY_NODE_TYPE = "ray.io/node-type";

    /** Kueue plain pod groups. */
    public static final String KUEUE_POD_GROUP = "kueue.x-k8s.io/pod-group-name";
    public static final String KUEUE_POD_GROUP_TOTAL = "kueue.x-k8s.io/pod-group-total-count";

    /** GPU Feature Discovery: {@code <ClusterUUID>.<CliqueID>}, one value per multi-node NVLink domain (GB200/GB300 NVL72). */
    public static final String GPU_CLIQUE = "nvidia.com/gpu.clique";
}
