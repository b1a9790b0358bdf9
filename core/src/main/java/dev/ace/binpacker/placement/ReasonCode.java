package dev.ace.binpacker.placement;

/** Why a node was filtered out; each renders as "N &lt;text&gt;" in an Unschedulable message. */
public enum ReasonCode {
    WRONG_POOL("are in pool %s"),
    NOT_SELECTED("do not match the pod's nodeSelector or node affinity"),
    UNTOLERATED_TAINT("have a taint the pod does not tolerate"),
    WRONG_GPU_MODEL("have GPU model other than %s"),
    NO_GPUS("have no GPUs"),
    TOO_FEW_GPUS("have fewer than %s GPUs in all"),
    NO_CLIQUE_ON_BOARD("have no NVLink clique of %s GPUs on their board"),
    /** The kubelet's Topology Manager would refuse any set of that many GPUs there (e.g. TP8 under single-numa-node). */
    TOPOLOGY_POLICY("have Topology Manager %s"),
    TOO_FEW_FREE_GPUS("have fewer than %s free GPUs"),
    NO_FREE_CLIQUE("have fewer than %s free GPUs in one NVLink clique"),
    NO_GPU_SHARE("have no GPU with %s milli-GPU free"),
    INSUFFICIENT_CPU("have less than %s free CPU"),
    /** The node's allocatable does not hold the pod's request of another resource at all (rdma/roce_gdr on a node without RDMA). */
    RESOURCE_NOT_OFFERED("offer less than %s in all"),
    /** The node's allocatable minus what its pods request does not hold the pod's request (kube-scheduler: "Insufficient memory"). */
    INSUFFICIENT_RESOURCE("have less than %s free");

    private final String template;

    ReasonCode(String template) { this.template = template; }

    public String render(String detail) { return template.contains("%s") ? String.format(template, detail) : template; }
}
