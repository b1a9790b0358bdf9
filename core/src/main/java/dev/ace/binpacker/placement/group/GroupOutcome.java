package dev.ace.binpacker.placement.group;

import dev.ace.binpacker.placement.Reservation;
import java.util.List;

/** What became of a group's attempt to get its GPUs: all of them, or none taken by this attempt. */
public sealed interface GroupOutcome {
    /** Every rank holds an entry, in the order of the request's ranks; {@code domain} is the topology value, null when none. */
    record Reserved(String domain, List<Reservation> reservations) implements GroupOutcome {
        public Reserved {
            reservations = List.copyOf(reservations);
        }
    }

    /** Nothing was reserved by this attempt; {@code why} says what the group waits for, with numbers. */
    record Waiting(String why) implements GroupOutcome {}

    /**
     * No node of the inventory could ever hold the group, whatever is free (a selector or affinity no node matches, a
     * taint no rank tolerates, a resource no node offers, a group larger than any domain): waiting would last for
     * ever, so the group neither waits nor earmarks. {@code why} names the cause with numbers.
     */
    record Never(String why) implements GroupOutcome {}
}
