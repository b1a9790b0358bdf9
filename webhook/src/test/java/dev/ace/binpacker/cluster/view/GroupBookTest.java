package dev.ace.binpacker.cluster.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.cluster.pod.PodFacts;
import dev.ace.binpacker.keys.GroupKeys;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The book's groups as the leader's keys: one group's ranks read alone agree with the whole book, and only a
 * change of a rank (arrived, changed, left) touches its group, so pod status updates that change nothing ACE
 * reads bring no walk of the gated queue and no write of a group's state.
 */
class GroupBookTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final GroupBook book = new GroupBook(64);

    private static Pod rank(String group, String name, String uid, String phase) {
        return new PodBuilder().withNewMetadata().withNamespace("ml").withName(name).withUid(uid)
                .withLabels(Map.of(GroupKeys.GROUP, group)).withAnnotations(Map.of(GroupKeys.GROUP_SIZE, "2"))
                .withCreationTimestamp("2026-12-01T00:00:00Z").endMetadata()
                .withNewSpec().endSpec().withNewStatus().withPhase(phase).endStatus().build();
    }

    private boolean seen(Pod p) { return book.seen(p, PodFacts.of(p, JSON)); }

    @Test
    void a_rank_that_arrives_changes_or_leaves_touches_its_group_and_an_unchanged_event_does_not() {
        assertTrue(seen(rank("a", "a-0", "u0", "Pending")));
        assertTrue(seen(rank("b", "b-0", "v0", "Pending")));
        String a = "ml/ace:a", b = "ml/ace:b";
        assertEquals(Set.of(a, b), book.drainTouched());
        assertFalse(seen(rank("a", "a-0", "u0", "Pending")), "the same facts again (a status write ACE does not read)");
        assertEquals(Set.of(), book.drainTouched());
        assertTrue(seen(rank("a", "a-1", "u1", "Pending")));
        assertTrue(seen(rank("a", "a-0", "u0", "Succeeded")), "finished: the rank changed");
        assertEquals(Set.of(a), book.drainTouched(), "group b untouched");
        assertTrue(book.forget("v0"));
        assertEquals(Set.of(b), book.drainTouched());
        assertEquals(Set.of(a), book.keys());
    }

    @Test
    void one_groups_ranks_read_alone_are_the_books_view_of_that_group() {
        seen(rank("a", "a-1", "u1", "Pending"));
        seen(rank("a", "a-0", "u0", "Pending"));
        seen(rank("a", "a-9", "u9", "Pending")); // beyond the group's size of 2
        seen(rank("b", "b-0", "v0", "Pending"));
        for (String key : List.of("ml/ace:a", "ml/ace:b")) assertEquals(book.groups().get(key), book.group(key), key);
        assertEquals(2, book.group("ml/ace:a").size());
        assertEquals(List.of(), book.group("ml/ace:none"));
    }
}
