package dev.ace.binpacker.workload.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.workload.InvalidPodException;
import dev.ace.binpacker.workload.Pods;
import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.api.Test;

class GroupResolverTest {
    private final GroupResolver resolver = new GroupResolver(64);

    private static Pod pod(String name, String ns, String labels, String annotations, String extraSpec) {
        return Pods.yaml("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                  namespace: %s
                  labels: {%s}
                  annotations: {%s}
                spec:
                  containers: [{name: c, image: vllm/vllm-openai}]
                %s
                """.formatted(name, ns, labels, annotations, extraSpec == null ? "" : extraSpec.indent(2)));
    }

    private GroupIdentity member(Pod p) throws InvalidPodException {
        return assertInstanceOf(GroupMembership.Member.class, resolver.resolve(p)).id();
    }

    @Test
    void an_lws_leader_before_lws_webhook_ran_takes_its_group_index_from_its_name_and_joins_its_workers() throws Exception {
        // The leader StatefulSet's pod as it reaches ACE when ACE runs before LWS's webhook: only the name label and the size.
        Pod leader = pod("llama-405b-1", "ml", "leaderworkerset.sigs.k8s.io/name: llama-405b",
                "leaderworkerset.sigs.k8s.io/size: '2'", null);
        Pod worker = pod("llama-405b-1-1", "ml", "leaderworkerset.sigs.k8s.io/name: llama-405b, leaderworkerset.sigs.k8s.io/group-index: '1'",
                "leaderworkerset.sigs.k8s.io/size: '2', leaderworkerset.sigs.k8s.io/leader-name: llama-405b-1", null);
        GroupIdentity l = member(leader);
        GroupIdentity w = member(worker);
        assertEquals(l.key(), w.key());
        assertEquals("ml/lws:llama-405b/1", l.key());
        assertEquals(2, l.size());
        assertTrue(l.leader());
        assertEquals(1, w.rank());
    }

    @Test
    void an_lws_leader_after_lws_webhook_is_the_same_group() throws Exception {
        Pod leader = pod("llama-405b-1", "ml", "leaderworkerset.sigs.k8s.io/name: llama-405b, leaderworkerset.sigs.k8s.io/group-index: '1',"
                + " leaderworkerset.sigs.k8s.io/worker-index: '0'", "leaderworkerset.sigs.k8s.io/size: '2'", null);
        assertEquals("ml/lws:llama-405b/1", member(leader).key());
        assertTrue(member(leader).leader());
    }

    @Test
    void lws_exclusive_topology_becomes_the_groups_topology_key() throws Exception {
        Pod w = pod("s-0-1", "ml", "leaderworkerset.sigs.k8s.io/name: s, leaderworkerset.sigs.k8s.io/group-index: '0'",
                "leaderworkerset.sigs.k8s.io/size: '4', leaderworkerset.sigs.k8s.io/exclusive-topology: topology.kubernetes.io/zone", null);
        assertEquals("topology.kubernetes.io/zone", member(w).topologyKey());
    }

    @Test
    void the_same_group_name_in_another_namespace_is_another_group() throws Exception {
        Pod a = pod("x-0", "team-a", "ace.dev/group: shared", "ace.dev/group-size: '2'", null);
        Pod b = pod("x-1", "team-b", "ace.dev/group: shared", "ace.dev/group-size: '2'", null);
        assertNotEquals(member(a).key(), member(b).key());
    }

    @Test
    void the_workload_api_scheduling_group_needs_a_size_on_the_pod() throws Exception {
        String spec = "schedulingGroup: {podGroupName: llama-pg-0}";
        assertInstanceOf(GroupMembership.Unsized.class, resolver.resolve(pod("r-0", "ml", "", "", spec)));
        GroupIdentity g = member(pod("r-0", "ml", "", "ace.dev/group-size: '4'", spec));
        assertEquals("ml/podgroup:llama-pg-0", g.key());
        assertEquals(4, g.size());
    }

    @Test
    void jobset_kueue_and_kuberay_pods_are_groups_with_the_size_their_controllers_write() throws Exception {
        GroupIdentity js = member(pod("train-w-0-0-abcde", "ml", "jobset.sigs.k8s.io/jobset-name: train, jobset.sigs.k8s.io/restart-attempt: '0',"
                + " jobset.sigs.k8s.io/job-global-index: '0'", "jobset.sigs.k8s.io/global-replicas: '4'", null));
        assertEquals("ml/jobset:train/attempt-0", js.key());
        assertEquals(4, js.size());
        GroupIdentity kq = member(pod("sample-leader-x1", "ml", "kueue.x-k8s.io/pod-group-name: sample-group",
                "kueue.x-k8s.io/pod-group-total-count: '2'", null));
        assertEquals("ml/kueue:sample-group", kq.key());
        assertInstanceOf(GroupMembership.Unsized.class, resolver.resolve(pod("rc-head", "ml", "ray.io/cluster: rc, ray.io/node-type: head", "", null)));
        GroupIdentity ray = member(pod("rc-head", "ml", "ray.io/cluster: rc, ray.io/node-type: head", "ace.dev/group-size: '3'", null));
        assertTrue(ray.leader());
        assertEquals(3, ray.size());
    }

    @Test
    void ace_group_size_overrides_the_controllers_size_and_a_group_of_one_is_solo() throws Exception {
        Pod p = pod("s-0", "ml", "leaderworkerset.sigs.k8s.io/name: s", "leaderworkerset.sigs.k8s.io/size: '8', ace.dev/group-size: '2'", null);
        assertEquals(2, member(p).size());
        assertInstanceOf(GroupMembership.Solo.class, resolver.resolve(pod("s-0", "ml", "leaderworkerset.sigs.k8s.io/name: s",
                "leaderworkerset.sigs.k8s.io/size: '1'", null)));
        assertInstanceOf(GroupMembership.Solo.class, resolver.resolve(pod("plain", "ml", "app: x", "", null)));
    }

    @Test
    void an_inflated_or_nonsense_size_is_refused_naming_the_field() {
        InvalidPodException big = assertThrows(InvalidPodException.class,
                () -> resolver.resolve(pod("x-0", "ml", "ace.dev/group: g", "ace.dev/group-size: '100000'", null)));
        assertEquals("metadata.annotations[\"ace.dev/group-size\"]", big.field());
        assertThrows(InvalidPodException.class, () -> resolver.resolve(pod("x-0", "ml", "ace.dev/group: g", "ace.dev/group-size: 'two'", null)));
        assertThrows(InvalidPodException.class, () -> resolver.resolve(pod("x-0", "ml", "ace.dev/group: g", "ace.dev/group-size: '-3'", null)));
    }

    @Test
    void no_topology_unless_asked() throws Exception {
        assertNull(member(pod("x-0", "ml", "ace.dev/group: g", "ace.dev/group-size: '2'", null)).topologyKey());
        assertEquals("rack", member(pod("x-0", "ml", "ace.dev/group: g", "ace.dev/group-size: '2', ace.dev/group-topology: rack", null)).topologyKey());
    }
}
