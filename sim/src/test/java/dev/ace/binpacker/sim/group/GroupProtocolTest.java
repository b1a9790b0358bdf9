package dev.ace.binpacker.sim.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Issue 19's protocol on three seeds (32 HGX boards in 4 racks, 500 arrivals over 2,000 minutes, 30% TP 8 x 2/4
 * groups): prints one row per semantics and holds what the issue asks, measured, not assumed. The rack rule has a
 * price the rows show: groups that ask for one rack wait longer under ACE than under a gang scheduler that ignores it.
 */
class GroupProtocolTest {
    @Test
    void ace_never_holds_gpus_for_an_incomplete_group_and_keeps_every_group_that_asks_for_one_rack_in_one_rack() {
        for (long seed : new long[] {1, 2, 3}) {
            GroupProtocol p = new GroupProtocol(seed, 32, 4, 500, 2_000);
            GroupProtocol.Result unaware = p.run(GroupProtocol.Semantics.UNAWARE);
            GroupProtocol.Result gang = p.run(GroupProtocol.Semantics.GANG);
            GroupProtocol.Result ace = p.run(GroupProtocol.Semantics.ACE);
            System.out.println("seed " + seed);
            for (GroupProtocol.Result r : new GroupProtocol.Result[] {unaware, gang, ace}) System.out.println("  " + GroupProtocol.row(r));
            assertEquals(0.0, ace.heldByIncompleteGpuHours(), "outside one atomic step no GPU is held for an incomplete group");
            assertEquals(0.0, gang.heldByIncompleteGpuHours());
            assertTrue(unaware.heldByIncompleteGpuHours() > 0, "the baseline does hold GPUs for half-placed groups");
            assertTrue(unaware.groupsWholeInDomain() < unaware.groupsAskingStarted(), "without the rule, groups that asked for a rack span racks");
            assertEquals(ace.groupsAskingStarted(), ace.groupsWholeInDomain(), "every ACE group that asked for one rack runs in one rack");
        }
    }
}
