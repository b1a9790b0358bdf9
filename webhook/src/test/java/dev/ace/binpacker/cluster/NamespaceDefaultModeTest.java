package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ace.binpacker.admission.NamespaceMode;
import dev.ace.binpacker.cluster.view.NamespaceWatch;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import org.junit.jupiter.api.Test;

/** In-cluster: a namespace without {@code ace.dev/policy} gets {@code ace.policy.default-mode}; a labelled one its label. */
class NamespaceDefaultModeTest {
    @Test
    void unlabelled_and_unknown_namespaces_take_the_configured_default_labelled_ones_keep_their_label() {
        NamespaceWatch w = new NamespaceWatch();
        w.defaultMode(NamespaceMode.OBSERVE);
        w.upsert(new NamespaceBuilder().withNewMetadata().withName("plain").endMetadata().build());
        w.upsert(new NamespaceBuilder().withNewMetadata().withName("strict").addToLabels("ace.dev/policy", "enforce").endMetadata().build());
        w.upsert(new NamespaceBuilder().withNewMetadata().withName("soft").addToLabels("ace.dev/policy", "warn").endMetadata().build());
        assertEquals(NamespaceMode.OBSERVE, w.modeOf("plain"));
        assertEquals(NamespaceMode.OBSERVE, w.modeOf("not-seen-yet"));
        assertEquals(NamespaceMode.ENFORCE, w.modeOf("strict"));
        assertEquals(NamespaceMode.WARN, w.modeOf("soft"));
        assertEquals(NamespaceMode.ENFORCE, new NamespaceWatch().modeOf("plain"), "the default stays enforce");
    }
}
