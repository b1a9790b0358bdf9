package dev.ace.binpacker.workload;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Whole GPUs ({@code nvidia.com/gpu}) a pod asks for, as the scheduler counts them: the sum over
 * containers, or the largest init container if that is more. Also notes whether the pod already
 * asks for a slice ({@code nvidia.com/mig-*}, {@code nvidia.com/gpu.shared}).
 *
 * @param effective      max(sum(containers), max(initContainers))
 * @param perContainer   GPUs per regular container, in spec order
 * @param alreadySliced  true when some container requests a MIG or MPS resource
 */
public record GpuCount(int effective, int[] perContainer, boolean alreadySliced) {
    /** No real pod asks for more GPUs than the largest board holds. */
    public static final int MAX_GPUS_PER_POD = 64;
    private static final Pattern WHOLE = Pattern.compile("[0-9]+");

    public static GpuCount of(Pod pod) throws InvalidPodException {
        if (pod.getSpec() == null) return new GpuCount(0, new int[0], false);
        List<Container> containers = nullSafe(pod.getSpec().getContainers());
        List<Container> inits = nullSafe(pod.getSpec().getInitContainers());
        int[] per = new int[containers.size()];
        int sum = 0;
        boolean sliced = false;
        for (int i = 0; i < containers.size(); i++) {
            per[i] = gpus(containers.get(i), "spec.containers[" + i + "]");
            sum += per[i];
            sliced |= slices(containers.get(i));
        }
        int maxInit = 0;
        for (int i = 0; i < inits.size(); i++) {
            maxInit = Math.max(maxInit, gpus(inits.get(i), "spec.initContainers[" + i + "]"));
            sliced |= slices(inits.get(i));
        }
        return new GpuCount(Math.max(sum, maxInit), per, sliced);
    }

    private static <T> List<T> nullSafe(List<T> l) { return l == null ? List.of() : l; }

    private static int gpus(Container c, String path) throws InvalidPodException {
        if (c.getResources() == null) return 0;
        String limitField = path + ".resources.limits[\"" + AceKeys.GPU + "\"]";
        String requestField = path + ".resources.requests[\"" + AceKeys.GPU + "\"]";
        Integer limit = parse(c.getResources().getLimits(), limitField);
        Integer request = parse(c.getResources().getRequests(), requestField);
        if (request != null && limit == null) {
            throw new InvalidPodException(limitField, "must be set when requests sets " + AceKeys.GPU + " (extended resources cannot be overcommitted)");
        }
        if (request != null && !request.equals(limit)) {
            throw new InvalidPodException(requestField, "is " + request + " but limits is " + limit + "; GPU requests must equal limits");
        }
        return limit == null ? 0 : limit;
    }

    private static Integer parse(Map<String, Quantity> m, String field) throws InvalidPodException {
        if (m == null) return null;
        Quantity q = m.get(AceKeys.GPU);
        if (q == null) return null;
        String text = (q.getAmount() == null ? "" : q.getAmount()) + (q.getFormat() == null ? "" : q.getFormat());
        text = text.trim();
        if (!WHOLE.matcher(text).matches()) {
            throw new InvalidPodException(field, "'" + text + "' is not a whole number of GPUs");
        }
        int n;
        try {
            n = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            n = Integer.MAX_VALUE;
        }
        if (n > MAX_GPUS_PER_POD) {
            throw new InvalidPodException(field, n + " GPUs is more than any node holds (" + MAX_GPUS_PER_POD + ")");
        }
        return n;
    }

    private static boolean slices(Container c) {
        if (c.getResources() == null) return false;
        for (Map<String, Quantity> m : new Map[] {c.getResources().getLimits(), c.getResources().getRequests()}) {
            if (m == null) continue;
            for (String k : m.keySet()) {
                if (k.startsWith(AceKeys.MIG_PREFIX) || k.equals(AceKeys.GPU_SHARED)) return true;
            }
        }
        return false;
    }
}
