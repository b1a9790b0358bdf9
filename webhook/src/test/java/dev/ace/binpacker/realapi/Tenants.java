package dev.ace.binpacker.realapi;

import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.time.Duration;

/** Tenants as a platform team onboards them: a person (client certificate) with the built-in {@code edit} role in a namespace. */
public final class Tenants {
    private Tenants() {}

    /** A client for user {@code user}, bound to ClusterRole {@code edit} in {@code ns} only (no group beyond system:authenticated). */
    public static KubernetesClient editor(RealCluster c, String ns, String user) throws IOException {
        c.admin().rbac().roleBindings().inNamespace(ns).resource(new RoleBindingBuilder().withNewMetadata().withName(user + "-edit").endMetadata()
                .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole").withName("edit").endRoleRef()
                .addNewSubject().withApiGroup("rbac.authorization.k8s.io").withKind("User").withName(user).endSubject().build()).create();
        KubernetesClient tenant = c.controlPlane().userClient(user);
        // The aggregated edit role is filled by kube-controller-manager; wait until RBAC lets the tenant create pods.
        Conditions.await("RBAC: " + user + " may create pods in " + ns, Duration.ofMinutes(1),
                () -> tenant.pods().inNamespace(ns).list() != null && c.admin().rbac().clusterRoles().withName("edit").get().getRules().stream()
                        .anyMatch(r -> r.getResources().contains("pods") && r.getVerbs().contains("create")));
        return tenant;
    }
}
