package dev.ace.binpacker.sim;

/**
 * One (policy, seed) run of protocol A.
 *
 * @param allocation GPU allocation ratio (%) per arrived-workload percent 0..130
 * @param fragRate   FGD fragmentation rate (%) per arrived-workload percent 0..130
 * @param decisionNanos time of each placement decision
 * @param allocatedMilli milli-GPU allocated when the last pod has arrived
 */
public record RunResult(String policy, long seed, double[] allocation, double[] fragRate, long[] decisionNanos,
                        int placed, int failed, long allocatedMilli) {}
