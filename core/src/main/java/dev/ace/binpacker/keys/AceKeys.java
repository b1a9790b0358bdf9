package dev.ace.binpacker.keys;

/** Every label, annotation, resource and gate name ACE reads or writes, in one place (DESIGN.md "Interfaces"). */
public final class AceKeys {
    private AceKeys() {}

    public static final String PREFIX = "ace.dev/";

    /** Pod label (input): overrides classification. */
    public static final String WORKLOAD_CLASS = PREFIX + "workload-class";
    /** Pod annotation (input): overrides TP detection. */
    public static final String TENSOR_PARALLEL = PREFIX + "tensor-parallel";
    /** Pod annotation (input): memory need of a sub-GPU pod; sizes the MIG profile. */
    public static final String GPU_MEMORY = PREFIX + "gpu-memory";
    /** Pod annotation (output): the reserved clique as JSON. */
    public static final String RESERVATION = PREFIX + "reservation";
    /** Pod annotation (output): what was done and why. */
    public static final String DECISION = PREFIX + "decision";
    /** Pod annotation (output): original resource of a quarantined pod. */
    public static final String REWRITTEN_FROM = PREFIX + "rewritten-from";
    /** Namespace label: enforce (default), warn, audit, exempt. */
    public static final String POLICY = PREFIX + "policy";
    /** Node label: inference or slicing; unlabelled nodes are general. */
    public static final String POOL = PREFIX + "pool";
    /** Configuration: the pools multi-GPU batch, interactive and unclassified pods are tried on, in order (placement.BatchRule). */
    public static final String CONFIG_BATCH_POOLS = "ace.policy.batch-pools";
    /** Configuration: pool inference takes no multi-GPU batch work while a TP replica waits for a clique. */
    public static final String CONFIG_BATCH_YIELDS = "ace.policy.batch-yields-to-waiting-tp";
    /** Node annotation: nvidia-smi topo -m text written by the node agent. */
    public static final String TOPOLOGY = PREFIX + "topology";
    /**
     * Node annotation: the node agent's report from the kubelet PodResources API, JSON
     * {@code {"generation","observedAt","topologyManagerPolicy","gpus","healthy":[..],"pods":[{"namespace","name","gpus":[..],"shared":[..],"mig":[..]}]}}
     * (docs/topology.md "Node report").
     */
    public static final String GPU_ALLOCATION = PREFIX + "gpu-allocation";
    /** Node label: the kubelet's Topology Manager policy, as the node agent read it from the kubelet configuration. */
    public static final String TOPOLOGY_MANAGER_POLICY = PREFIX + "topology-manager-policy";
    /** Scheduling gate of a TP pod waiting for a free clique. */
    public static final String GATE = PREFIX + "waiting-for-clique";

    public static final String GPU = "nvidia.com/gpu";
    public static final String GPU_SHARED = "nvidia.com/gpu.shared";
    public static final String MIG_PREFIX = "nvidia.com/mig-";
    public static final String MIG_STRATEGY = "nvidia.com/mig.strategy";
    public static final String SHARING_STRATEGY = "nvidia.com/gpu.sharing-strategy";
    public static final String GPU_PRODUCT = "nvidia.com/gpu.product";
    /** GPU feature discovery's CUDA compute capability of the node's GPUs, major and minor (9 and 0 on H100). */
    public static final String GPU_COMPUTE_MAJOR = "nvidia.com/gpu.compute.major";
    public static final String GPU_COMPUTE_MINOR = "nvidia.com/gpu.compute.minor";
    public static final String GPU_COUNT = "nvidia.com/gpu.count";
    public static final String HOSTNAME = "kubernetes.io/hostname";
    /** Prefix of the labels and annotations LeaderWorkerSet puts on its pods (read, never written on real pods). */
    public static final String LWS_PREFIX = "leaderworkerset.sigs.k8s.io/";
    /** The node field ACE pins pods with ({@code matchFields}), as the DaemonSet controller does: never the hostname label. */
    public static final String NODE_NAME_FIELD = "metadata.name";
    /** Resource group and version of ACE's ledger objects ({@code GpuLedger}, one per GPU node, cluster-scoped). */
    public static final String LEDGER_GROUP = "ace.dev";
    public static final String LEDGER_VERSION = "v1alpha1";
    public static final String LEDGER_KIND = "GpuLedger";
    public static final String LEDGER_PLURAL = "gpuledgers";
    /** The node agent's per-node report object (deploy/gpunodereport-crd.yaml); name = node name. */
    public static final String REPORT_KIND = "GpuNodeReport";
    public static final String REPORT_PLURAL = "gpunodereports";
    /**
     * ACE's published state of each sized group (deploy/acegroup-crd.yaml), namespaced, one per group. An output
     * only: written by the leader, read by people ({@code kubectl get acegroups -A}), never read back for placement.
     */
    public static final String GROUP_STATUS_KIND = "AceGroup";
    public static final String GROUP_STATUS_PLURAL = "acegroups";
    /** Label ACE puts on the objects it writes, so it only ever deletes its own. */
    public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    public static final String MANAGED_BY_ACE = "ace-binpacker";
}
