package dev.ace.binpacker.sim;

/**
 * Protocol B figures of one (policy, trace) run.
 *
 * @param tpFullBandwidthPct TP pods placed on a full-bandwidth NVLink clique, % of TP pods placed
 * @param tpDegraded         TP pods placed on GPUs that are not an NVLink clique
 * @param tpWaiting          TP pods still queued when the trace ends
 * @param tpEverWaited       TP pods that could not be placed on arrival
 * @param meanAllocation     mean GPU allocation (%) over arrivals
 * @param strandedGpus       mean free GPUs with no free NVLink peer, on NVLink nodes
 * @param domainsClean       mean % of NVLink domains wholly free (fragmented and full likewise)
 * @param smallOnInference   non-TP pods placed on the inference pool
 * @param allocationByHour   mean GPU allocation (%) of the arrivals in each hour of the trace
 */
public record FleetResult(String policy, int tpPods, double tpFullBandwidthPct, int tpDegraded, int tpWaiting, int tpEverWaited,
                          int otherFailed, double meanAllocation, double strandedGpus, double domainsClean,
                          double domainsFragmented, double domainsFull, int smallOnInference, long[] decisionNanos,
                          double[] allocationByHour) {}
