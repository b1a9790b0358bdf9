package dev.ace.binpacker.workload;

import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Whole GPUs ({@code nvidia.com/gpu}) a pod asks for, by Kubernetes' own rule for the effective
 * request (KEP-753 sidecars, {@code component-helpers} {@code PodRequests}): app containers and
 * restartable init containers ({@code restartPolicy: Always}) run together, so they add up; an
 * ordinary init container runs alone, beside the sidecars started before it, and counts by the
 * largest such moment. Also notes whether the pod asks for a slice ({@code nvidia.com/mig-*},
 * {@code nvidia.com/gpu.shared}); a slice never excuses whole GPUs.
 *
 * @param effective      max(sum(containers) + sum(sidecars), max over init containers of (own + sidecars before it))
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
        int[] per = new int[containers.size()];
        int[] next = {0};
        boolean sliced = false;
        for (Container c : containers) sliced |= slices(c);
        for (Container c : nullSafe(pod.getSpec().getInitContainers())) sliced |= slices(c);
        int effective = effective(pod.getSpec(), (c, path) -> {
            int g = gpus(c, path);
            if (path.startsWith("spec.containers")) per[next[0]++] = g;
            return g;
        });
        return new GpuCount(effective, per, sliced);
    }

    /**
     * Whole GPUs a pod the API server already accepted holds: the same rule, but lenient (a quantity
     * it cannot read counts 0, a request without a limit counts its request). It never refuses a pod
     * that exists, it counts it.
     */
    public static int held(PodSpec spec) {
        if (spec == null) return 0;
        return effective(spec, (c, path) -> lenient(c));
    }

    /** GPUs of one container; {@code path} names it for error messages. */
    private interface PerContainer<E extends Exception> {
        int gpus(Container c, String path) throws E;
    }

    /** Kubernetes' effective request over per-container counts (app containers first, then init containers, in spec order). */
    private static <E extends Exception> int effective(PodSpec spec, PerContainer<E> count) throws E {
        List<Container> containers = nullSafe(spec.getContainers());
        List<Container> inits = nullSafe(spec.getInitContainers());
        int sum = 0;
        for (int i = 0; i < containers.size(); i++) sum += count.gpus(containers.get(i), "spec.containers[" + i + "]");
        int sidecars = 0;
        int initPeak = 0;
        for (int i = 0; i < inits.size(); i++) {
            Container c = inits.get(i);
            int g = count.gpus(c, "spec.initContainers[" + i + "]");
            if ("Always".equals(c.getRestartPolicy())) {
                // A sidecar keeps running: it holds its GPUs beside every later init container and the app containers.
                sidecars += g;
                initPeak = Math.max(initPeak, sidecars);
            } else {
                initPeak = Math.max(initPeak, g + sidecars);
            }
        }
        return Math.max(sum + sidecars, initPeak);
    }

    /** The request, or the limit when only that is set (extended resources default their request to it). */
    private static int lenient(Container c) {
        if (c.getResources() == null) return 0;
        Integer request = amount(c.getResources().getRequests());
        if (request != null) return request;
        Integer limit = amount(c.getResources().getLimits());
        return limit == null ? 0 : limit;
    }

    private static Integer amount(Map<String, Quantity> m) {
        Quantity q = m == null ? null : m.get(AceKeys.GPU);
        if (q == null) return null;
        try {
            java.math.BigDecimal v = Quantity.getAmountInBytes(q);
            return v.signum() <= 0 ? 0 : v.setScale(0, java.math.RoundingMode.CEILING).intValueExact();
        } catch (RuntimeException e) {
            return 0;
        }
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
            throw new InvalidPodException(field, "'" + Clip.of(text) + "' is not a whole number of GPUs");
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
