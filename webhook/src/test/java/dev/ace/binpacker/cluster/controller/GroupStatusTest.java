package dev.ace.binpacker.cluster.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.cluster.view.GroupBook;
import dev.ace.binpacker.workload.group.GroupIdentity.Source;
import dev.ace.binpacker.workload.group.GroupIdentity;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** What {@code kubectl get acegroups} says about a group, derived from its ranks alone. */
class GroupStatusTest {
    private static final GroupIdentity LWS = new GroupIdentity("ml", "llama-405b/0", 2, 0, Source.LEADER_WORKER_SET, null);

    private static GroupBook.Rank rank(int index, boolean gated, long created) {
        GroupIdentity id = new GroupIdentity("ml", "llama-405b/0", 2, index, Source.LEADER_WORKER_SET, null);
        return new GroupBook.Rank("uid-" + index + "-" + created, "llama-405b-0" + (index == 0 ? "" : "-" + index), id, gated, false,
                gated ? null : "gpu-" + index, 8, 0, created, true);
    }

    @Test
    void a_leader_alone_is_assembling_and_says_how_many_pods_exist() {
        GroupStatus s = GroupStatus.of(List.of(rank(0, true, 1_000_500)), null);
        assertEquals(GroupStatus.Phase.ASSEMBLING, s.phase());
        assertEquals(1, s.seen());
        assertEquals(0, s.placed());
        assertEquals("1 of 2 pods exist; the group holds nothing until all do", s.reason());
        assertEquals(1_000_000, s.waitingSince(), "whole seconds, as creationTimestamp");
    }

    @Test
    void every_rank_gated_is_waiting_with_the_leaders_reason_and_the_oldest_ranks_creation() {
        GroupStatus s = GroupStatus.of(List.of(rank(0, true, 5_000), rank(1, true, 3_000)), "no room for all 2 ranks (8 GPUs each) at once");
        assertEquals(GroupStatus.Phase.WAITING, s.phase());
        assertEquals("no room for all 2 ranks (8 GPUs each) at once", s.reason());
        assertEquals(3_000, s.waitingSince());
        assertEquals(2, s.size());
        assertEquals("lws", s.source());
        assertEquals("llama-405b/0", s.group());
    }

    @Test
    void a_whole_group_before_the_leaders_first_pass_waits_for_that_pass() {
        assertEquals("all 2 ranks exist; waits for the leader's next pass",
                GroupStatus.of(List.of(rank(0, true, 1_000), rank(1, true, 1_000)), null).reason());
    }

    @Test
    void every_rank_released_is_placed_with_no_reason_and_no_wait() {
        GroupStatus s = GroupStatus.of(List.of(rank(0, false, 1_000), rank(1, false, 2_000)), "stale reason");
        assertEquals(GroupStatus.Phase.PLACED, s.phase());
        assertEquals(2, s.placed());
        assertEquals("", s.reason());
        assertEquals(0, s.waitingSince());
    }

    @Test
    void a_running_group_that_lost_a_rank_is_degraded_until_its_replacement_is_placed() {
        GroupStatus lost = GroupStatus.of(List.of(rank(0, false, 1_000)), null);
        assertEquals(GroupStatus.Phase.DEGRADED, lost.phase());
        assertEquals(1, lost.placed());
        assertTrue(lost.reason().startsWith("1 of 2 ranks lost"), lost.reason());
        GroupStatus replacing = GroupStatus.of(List.of(rank(0, false, 1_000), rank(1, true, 9_000)), null);
        assertEquals(GroupStatus.Phase.DEGRADED, replacing.phase());
        assertEquals("1 replacement rank at the gate", replacing.reason());
        assertEquals(9_000, replacing.waitingSince(), "waiting since the replacement was created");
        assertEquals(GroupStatus.Phase.PLACED, GroupStatus.of(List.of(rank(0, false, 1_000), rank(1, false, 9_000)), null).phase());
    }

    @Test
    void the_same_ranks_give_an_equal_status_so_an_unchanged_group_is_not_written_again() {
        assertEquals(GroupStatus.of(List.of(rank(0, true, 1_000), rank(1, true, 2_000)), "x"),
                GroupStatus.of(List.of(rank(0, true, 1_000), rank(1, true, 2_000)), "x"));
    }

    @Test
    void a_reason_longer_than_the_crd_allows_is_cut() {
        assertEquals(GroupStatus.MAX_REASON, GroupStatus.of(List.of(rank(0, true, 1), rank(1, true, 1)), "x".repeat(5_000)).reason().length());
    }

    @Test
    void no_ranks_no_status() {
        assertThrows(IllegalArgumentException.class, () -> GroupStatus.of(List.of(), null));
    }

    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    @Test
    void controller_names_read_plainly_and_free_text_names_become_valid_distinct_object_names() {
        assertEquals("lws.llama-405b.0", GroupStatus.objectName(LWS));
        assertEquals("jobset.train.attempt-0", GroupStatus.objectName(new GroupIdentity("ml", "train/attempt-0", 4, 0, Source.JOBSET, null)));
        String upper = GroupStatus.objectName(new GroupIdentity("ml", "My Group", 2, 0, Source.ACE, null));
        String lower = GroupStatus.objectName(new GroupIdentity("ml", "my-group", 2, 0, Source.ACE, null));
        assertTrue(NAME.matcher(upper).matches(), upper);
        assertNotEquals(upper, lower, "a cleaned name carries a hash of the original");
        String weird = GroupStatus.objectName(new GroupIdentity("ml", "../..//_", 2, 0, Source.ACE, null));
        assertTrue(NAME.matcher(weird).matches(), weird);
        String longName = GroupStatus.objectName(new GroupIdentity("ml", "a".repeat(400), 2, 0, Source.ACE, null));
        assertTrue(longName.length() <= 253 && NAME.matcher(longName).matches(), longName);
    }
}
