package dev.ace.binpacker.placement.group;

import static dev.ace.binpacker.placement.group.GroupFixtures.aceEntries;
import static dev.ace.binpacker.placement.group.GroupFixtures.cluster;
import static dev.ace.binpacker.placement.group.GroupFixtures.freeMasks;
import static dev.ace.binpacker.placement.group.GroupFixtures.group;
import static dev.ace.binpacker.placement.group.GroupFixtures.hgx;
import static dev.ace.binpacker.placement.group.GroupFixtures.hold;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.Reservation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Random clusters and random groups: all or nothing, every time; a group that fits is placed. */
class GroupPlacerPropertyTest {
    private static final int[] SIZES = {1, 2, 4, 8};

    @Test
    void every_attempt_reserves_every_rank_in_one_domain_or_changes_nothing() {
        Random rnd = new Random(19);
        for (int round = 0; round < 300; round++) {
            int nodes = 2 + rnd.nextInt(6);
            List<NodeInfo> infos = new ArrayList<>();
            for (int i = 0; i < nodes; i++) infos.add(hgx("n" + i, "r" + (i % 2)));
            Allocator a = cluster(infos.toArray(NodeInfo[]::new));
            for (int i = 0; i < nodes; i++) {
                long busy = rnd.nextInt(3) == 0 ? 0 : rnd.nextLong() & 0xffL;
                if (busy != 0) hold(a, "n" + i, busy);
            }
            int ranks = 2 + rnd.nextInt(3);
            int[] gpus = new int[ranks];
            for (int i = 0; i < ranks; i++) gpus[i] = SIZES[rnd.nextInt(SIZES.length)];
            String topology = rnd.nextBoolean() ? "rack" : null;
            List<Long> before = freeMasks(a);
            GroupRequest g = group("g" + round, topology, gpus);
            GroupOutcome o = GroupPlacer.reserve(a, g, 0);
            String where = "round " + round + " gpus " + java.util.Arrays.toString(gpus) + " topology " + topology;
            if (o instanceof GroupOutcome.Reserved r) {
                assertEquals(ranks, r.reservations().size(), where);
                assertEquals(ranks, aceEntries(a).size(), where);
                for (int i = 0; i < ranks; i++) assertEquals(gpus[i], r.reservations().get(i).gpuCount(), where);
                if (topology != null) {
                    Set<String> racks = r.reservations().stream()
                            .map(x -> Integer.parseInt(x.node().substring(1)) % 2).map(Object::toString).collect(Collectors.toSet());
                    assertEquals(1, racks.size(), where + ": one rack, got " + racks);
                }
            } else {
                assertEquals(before, freeMasks(a), where + ": a waiting group holds nothing");
                assertTrue(aceEntries(a).isEmpty(), where);
            }
        }
    }

    @Test
    void a_group_of_whole_board_ranks_is_placed_whenever_enough_boards_are_free_in_one_rack() {
        Random rnd = new Random(4671);
        for (int round = 0; round < 300; round++) {
            int nodes = 2 + rnd.nextInt(7);
            List<NodeInfo> infos = new ArrayList<>();
            for (int i = 0; i < nodes; i++) infos.add(hgx("n" + i, "r" + (i % 3)));
            Allocator a = cluster(infos.toArray(NodeInfo[]::new));
            Map<String, Integer> freeBoards = new HashMap<>();
            for (int i = 0; i < nodes; i++) {
                boolean busy = rnd.nextInt(3) == 0;
                if (busy) hold(a, "n" + i, 1L << rnd.nextInt(8));
                else freeBoards.merge("r" + (i % 3), 1, Integer::sum);
            }
            int ranks = 2 + rnd.nextInt(3);
            int[] gpus = new int[ranks];
            java.util.Arrays.fill(gpus, 8);
            boolean rack = rnd.nextBoolean();
            int fits = rack ? freeBoards.values().stream().mapToInt(Integer::intValue).max().orElse(0)
                    : freeBoards.values().stream().mapToInt(Integer::intValue).sum();
            GroupOutcome o = GroupPlacer.reserve(a, group("g", rack ? "rack" : null, gpus), 0);
            String where = "round " + round + ": " + ranks + " ranks, free boards " + freeBoards + ", rack " + rack;
            // boards in the group's domain whatever is free: the largest rack, or the whole inventory
            int boards = rack ? (nodes + 2) / 3 : nodes;
            if (fits >= ranks) {
                GroupOutcome.Reserved r = assertInstanceOf(GroupOutcome.Reserved.class, o, where);
                assertEquals(ranks, r.reservations().stream().map(Reservation::node).distinct().count(), where);
            } else if (boards < ranks) {
                assertInstanceOf(GroupOutcome.Never.class, o, where + ": no domain has " + ranks + " boards in all");
            } else {
                assertInstanceOf(GroupOutcome.Waiting.class, o, where);
            }
        }
    }
}
