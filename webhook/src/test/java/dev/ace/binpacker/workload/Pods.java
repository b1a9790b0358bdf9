package dev.ace.binpacker.workload;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Pod;

/** Pods from YAML text, for table-driven tests. */
public final class Pods {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private Pods() {}

    public static Pod yaml(String text) {
        try {
            return YAML.readValue(text, Pod.class);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** One container with the given image, args and GPU limit; extra YAML is appended under the pod (indent 0). */
    public static Pod gpuPod(String image, String argsJson, String gpus, String extraSpec) {
        return yaml("""
                apiVersion: v1
                kind: Pod
                metadata: {name: p, namespace: ml}
                spec:
                  containers:
                  - name: c
                    image: %s
                    args: %s
                    resources:
                      limits: {nvidia.com/gpu: %s}
                %s
                """.formatted(image, argsJson, gpus, extraSpec == null ? "" : extraSpec.indent(2)));
    }
}
