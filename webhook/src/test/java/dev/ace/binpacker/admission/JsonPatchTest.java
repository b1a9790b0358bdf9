package dev.ace.binpacker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class JsonPatchTest {
    private final ObjectMapper m = Json.newMapper();

    private JsonNode json(String s) throws Exception { return m.readTree(s.replace('\'', '"')); }

    private void roundTrips(String from, String to) throws Exception {
        JsonNode a = json(from);
        JsonNode b = json(to);
        JsonNode ops = JsonPatch.diff(a, b);
        assertEquals(b, com.flipkart.zjsonpatch.JsonPatch.apply(ops, a), "patch " + ops);
    }

    @Test
    void slash_and_tilde_in_keys_are_escaped_as_rfc_6901_says() throws Exception {
        JsonNode ops = JsonPatch.diff(json("{'a':{'nvidia.com/gpu':'1'}}"), json("{'a':{'x~y/z':'1'}}"));
        assertEquals("[{'op':'remove','path':'/a/nvidia.com~1gpu'},{'op':'add','path':'/a/x~0y~1z','value':'1'}]".replace('\'', '"'),
                ops.toString());
        roundTrips("{'a':{'nvidia.com/gpu':'1'}}", "{'a':{'x~y/z':'1'}}");
    }

    @Test
    void equal_trees_give_an_empty_patch() throws Exception {
        assertEquals(0, JsonPatch.diff(json("{'a':[1,{'b':2}]}"), json("{'a':[1,{'b':2}]}")).size());
    }

    @Test
    void appended_array_elements_are_adds_and_dropped_ones_removes_from_the_end() throws Exception {
        assertEquals("[{\"op\":\"add\",\"path\":\"/t/2\",\"value\":3}]", JsonPatch.diff(json("{'t':[1,2]}"), json("{'t':[1,2,3]}")).toString());
        roundTrips("{'t':[1,2,3,4]}", "{'t':[1,9]}");
        roundTrips("{'t':[{'k':'a'}]}", "{'t':[{'k':'a','v':[1]},{'k':'b'}]}");
    }

    @Test
    void a_type_change_is_one_replace() throws Exception {
        assertEquals("[{\"op\":\"replace\",\"path\":\"/x\",\"value\":{\"y\":1}}]", JsonPatch.diff(json("{'x':1}"), json("{'x':{'y':1}}")).toString());
    }
}
