package dev.ace.binpacker.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.ReservationStore;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reservations shared between webhook replicas through the API server: one ConfigMap per GPU
 * node ({@code ace-ledger-<node>} in ACE's namespace) lists the reservations on that node, and
 * every change is a compare-and-swap on its resourceVersion. A replica that loses the race gets
 * HTTP 409, reads the winner's state and decides again. etcd is the consensus; nothing here is.
 */
public final class ConfigMapReservationStore implements ReservationStore {
    public static final String LABEL = "ace.dev/ledger";
    static final String KEY = "reservations";
    private static final int CAS_ATTEMPTS = 10;

    private final KubernetesClient client;
    private final String namespace;
    private final ObjectMapper mapper = new ObjectMapper();

    public ConfigMapReservationStore(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    /** What one reservation looks like inside the ConfigMap. */
    record Entry(long gpuMask, int milliPerGpu, long cpuMilli, int tp, String domain, long createdAtMillis, boolean pending) {
        static Entry of(Reservation r) {
            return new Entry(r.gpuMask(), r.milliPerGpu(), r.cpuMilli(), r.tp(), r.domain(), r.createdAtMillis(), r.pending());
        }

        Reservation toReservation(String id, String node) {
            return new Reservation(id, node, gpuMask, milliPerGpu, cpuMilli, tp, domain, createdAtMillis, pending);
        }
    }

    @Override
    public List<Reservation> commit(Reservation r) {
        String name = objectName(r.node());
        for (int attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
            ConfigMap cm = client.configMaps().inNamespace(namespace).withName(name).get();
            Map<String, Entry> entries = cm == null ? new TreeMap<>() : read(cm);
            Entry mine = entries.get(r.id());
            if (mine != null && mine.gpuMask() == r.gpuMask()) return List.of();
            List<Reservation> conflicts = new ArrayList<>();
            entries.forEach((id, e) -> {
                if (!id.equals(r.id()) && (e.gpuMask() & r.gpuMask()) != 0) conflicts.add(e.toReservation(id, r.node()));
            });
            if (!conflicts.isEmpty()) return conflicts;
            entries.put(r.id(), Entry.of(r));
            try {
                if (cm == null) {
                    client.configMaps().inNamespace(namespace).resource(build(name, r.node(), entries, null)).create();
                } else {
                    // update() sends the resourceVersion we read: the API server refuses it (409) if anyone wrote since.
                    client.configMaps().inNamespace(namespace).resource(build(name, r.node(), entries, cm.getMetadata().getResourceVersion())).update();
                }
                return List.of();
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) throw e;
            }
        }
        throw new IllegalStateException("ledger object " + namespace + "/" + name + " changed under us " + CAS_ATTEMPTS + " times in a row");
    }

    @Override
    public void remove(Reservation r) {
        String name = objectName(r.node());
        for (int attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
            ConfigMap cm = client.configMaps().inNamespace(namespace).withName(name).get();
            if (cm == null) return;
            Map<String, Entry> entries = read(cm);
            if (entries.remove(r.id()) == null) return;
            try {
                client.configMaps().inNamespace(namespace).resource(build(name, r.node(), entries, cm.getMetadata().getResourceVersion())).update();
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) throw e;
            }
        }
        throw new IllegalStateException("ledger object " + namespace + "/" + name + " changed under us " + CAS_ATTEMPTS + " times in a row");
    }

    /** Every reservation in every ledger object: what a replica adopts when it starts. */
    public List<Reservation> loadAll() {
        List<Reservation> out = new ArrayList<>();
        for (ConfigMap cm : client.configMaps().inNamespace(namespace).withLabel(LABEL).list().getItems()) {
            String node = cm.getMetadata().getLabels().get(LABEL);
            String nodeName = cm.getMetadata().getAnnotations() == null ? node : cm.getMetadata().getAnnotations().getOrDefault("ace.dev/node", node);
            read(cm).forEach((id, e) -> out.add(e.toReservation(id, nodeName)));
        }
        return out;
    }

    private Map<String, Entry> read(ConfigMap cm) {
        String json = cm.getData() == null ? null : cm.getData().get(KEY);
        if (json == null || json.isBlank()) return new TreeMap<>();
        try {
            return mapper.readValue(json, new TypeReference<TreeMap<String, Entry>>() { });
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("ledger object " + cm.getMetadata().getName() + " holds unreadable data: " + e.getOriginalMessage(), e);
        }
    }

    private ConfigMap build(String name, String node, Map<String, Entry> entries, String resourceVersion) {
        try {
            return new ConfigMapBuilder()
                    .withNewMetadata().withName(name).withNamespace(namespace).withResourceVersion(resourceVersion)
                    .addToLabels(LABEL, labelValue(node)).addToAnnotations("ace.dev/node", node).endMetadata()
                    .addToData(KEY, mapper.writeValueAsString(entries))
                    .build();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code ace-ledger-<node>}, hashed when the node name would make it longer than a ConfigMap name may be. */
    static String objectName(String node) {
        String plain = "ace-ledger-" + node;
        return plain.length() <= 253 ? plain : "ace-ledger-" + sha(node).substring(0, 40);
    }

    private static String labelValue(String node) {
        return node.length() <= 63 ? node : sha(node).substring(0, 63);
    }

    private static String sha(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
