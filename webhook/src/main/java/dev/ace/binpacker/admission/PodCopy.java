package dev.ace.binpacker.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The pod copy ACE edits and the patch between the pod and that copy, both linear in the pod's size (issue 17: whole-pod
 * Jackson copies and trees made 78,000 environment variables cost 314 ms). ACE edits only a few parts of a pod
 * ({@link PodEdits}, {@link AceOutputs#strip}): metadata (annotations, replaced), the spec's affinity (edited in place,
 * so copied whole), nodeSelector, tolerations and schedulingGates (replaced), and each container's resource limits and
 * requests (replaced on its {@code resources}). The copy shares everything else with the pod; the patch compares only
 * those parts, in the order a diff of the whole pods lists them, and falls back to the whole pods if anything else
 * differs (an edit this class was not told about), so the answer is the same patch either way.
 */
final class PodCopy {
    /** Spec fields ACE may change; every other PodSpec field is shared by the copy and compared by reference. */
    private static final Set<String> SPEC_EDITED = Set.of("affinity", "nodeSelector", "tolerations", "schedulingGates",
            "containers", "initContainers");
    private static final Map<Class<?>, List<Field>> FIELDS = new ConcurrentHashMap<>();

    private PodCopy() {}

    /** A copy of {@code pod} that ACE may edit with {@link PodEdits} without changing {@code pod}. */
    static Pod forEdits(Pod pod, ObjectMapper mapper) {
        Pod copy = shallow(pod);
        if (pod.getMetadata() != null) copy.setMetadata(shallow(pod.getMetadata()));
        PodSpec spec = pod.getSpec();
        if (spec != null) {
            PodSpec s = shallow(spec);
            if (spec.getAffinity() != null) s.setAffinity(mapper.convertValue(spec.getAffinity(), Affinity.class));
            s.setContainers(containers(spec.getContainers()));
            s.setInitContainers(containers(spec.getInitContainers()));
            copy.setSpec(s);
        }
        return copy;
    }

    private static List<Container> containers(List<Container> in) {
        if (in == null) return null;
        List<Container> out = new ArrayList<>(in.size());
        for (Container c : in) {
            Container k = shallow(c);
            if (c.getResources() != null) k.setResources(shallow(c.getResources()));
            out.add(k);
        }
        return out;
    }

    /** The RFC 6902 patch from {@code original} to {@code mutated} (as {@link JsonPatch#diff} of the whole pods). */
    static ArrayNode diff(ObjectMapper mapper, Pod original, Pod mutated) {
        if (original == mutated) return com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.arrayNode();
        if (!onlyEditedPartsDiffer(original, mutated)) return JsonPatch.diff(mapper.valueToTree(original), mapper.valueToTree(mutated));
        JsonNode a = mapper.valueToTree(skeleton(original));
        JsonNode b = mapper.valueToTree(skeleton(mutated));
        return JsonPatch.diff(a, b);
    }

    /** The parts of a pod ACE may change, nothing else (the apiVersion and kind, equal on both sides, keep the order). */
    private static Pod skeleton(Pod p) {
        Pod s = new Pod();
        s.setApiVersion(p.getApiVersion());
        s.setKind(p.getKind());
        s.setMetadata(p.getMetadata());
        if (p.getSpec() != null) {
            PodSpec spec = new PodSpec();
            spec.setAffinity(p.getSpec().getAffinity());
            spec.setNodeSelector(p.getSpec().getNodeSelector());
            spec.setTolerations(p.getSpec().getTolerations());
            spec.setSchedulingGates(p.getSpec().getSchedulingGates());
            spec.setContainers(resourcesOnly(p.getSpec().getContainers()));
            spec.setInitContainers(resourcesOnly(p.getSpec().getInitContainers()));
            s.setSpec(spec);
        }
        return s;
    }

    private static List<Container> resourcesOnly(List<Container> in) {
        if (in == null) return null;
        List<Container> out = new ArrayList<>(in.size());
        for (Container c : in) {
            Container k = new Container();
            k.setResources(c.getResources());
            out.add(k);
        }
        return out;
    }

    /** True when the pods share (by reference) every part ACE does not edit, as a copy made by {@link #forEdits} does. */
    private static boolean onlyEditedPartsDiffer(Pod a, Pod b) {
        if (!sameExcept(a, b, Set.of("metadata", "spec"))) return false;
        if (a.getSpec() == null || b.getSpec() == null) return a.getSpec() == b.getSpec();
        if (!sameExcept(a.getSpec(), b.getSpec(), SPEC_EDITED)) return false;
        return sameContainers(a.getSpec().getContainers(), b.getSpec().getContainers())
                && sameContainers(a.getSpec().getInitContainers(), b.getSpec().getInitContainers());
    }

    private static boolean sameContainers(List<Container> a, List<Container> b) {
        if (a == null || b == null) return a == b;
        if (a.size() != b.size()) return false;
        for (int i = 0; i < a.size(); i++) if (!sameExcept(a.get(i), b.get(i), Set.of("resources"))) return false;
        return true;
    }

    private static boolean sameExcept(Object a, Object b, Set<String> edited) {
        if (a.getClass() != b.getClass()) return false;
        try {
            for (Field f : fields(a.getClass())) {
                if (!edited.contains(f.getName()) && f.get(a) != f.get(b)) return false;
            }
            return true;
        } catch (IllegalAccessException e) {
            return false;
        }
    }

    /** A new object of the same class holding the same field values (no nested object copied). */
    @SuppressWarnings("unchecked")
    static <T> T shallow(T o) {
        try {
            T copy = (T) o.getClass().getDeclaredConstructor().newInstance();
            for (Field f : fields(o.getClass())) f.set(copy, f.get(o));
            return copy;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot copy " + o.getClass().getName(), e);
        }
    }

    private static List<Field> fields(Class<?> type) {
        return FIELDS.computeIfAbsent(type, t -> {
            List<Field> out = new ArrayList<>();
            for (Class<?> c = t; c != null && c != Object.class; c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers())) continue;
                    f.setAccessible(true);
                    out.add(f);
                }
            }
            return out;
        });
    }
}
