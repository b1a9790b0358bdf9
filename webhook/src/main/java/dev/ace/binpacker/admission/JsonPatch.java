package dev.ace.binpacker.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;

/**
 * RFC 6902 diff of two JSON trees: only what changed, with RFC 6901 pointer escaping ({@code ~0}
 * for {@code ~}, {@code ~1} for {@code /}, so {@code nvidia.com/gpu} is {@code nvidia.com~1gpu}).
 * Arrays are compared index by index (ACE only appends to or edits arrays in place), extra
 * elements added in ascending order and surplus ones removed from the end.
 */
public final class JsonPatch {
    private JsonPatch() {}

    public static ArrayNode diff(JsonNode from, JsonNode to) {
        ArrayNode ops = JsonNodeFactory.instance.arrayNode();
        diff("", from, to, ops);
        return ops;
    }

    public static String escape(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }

    private static void diff(String path, JsonNode a, JsonNode b, ArrayNode ops) {
        if (a.equals(b)) return;
        if (a.isObject() && b.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> it = a.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode other = b.get(e.getKey());
                String p = path + "/" + escape(e.getKey());
                if (other == null) op(ops, "remove", p, null);
                else diff(p, e.getValue(), other, ops);
            }
            Iterator<Map.Entry<String, JsonNode>> added = b.fields();
            while (added.hasNext()) {
                Map.Entry<String, JsonNode> e = added.next();
                if (!a.has(e.getKey())) op(ops, "add", path + "/" + escape(e.getKey()), e.getValue());
            }
            return;
        }
        if (a.isArray() && b.isArray()) {
            int common = Math.min(a.size(), b.size());
            for (int i = 0; i < common; i++) diff(path + "/" + i, a.get(i), b.get(i), ops);
            for (int i = common; i < b.size(); i++) op(ops, "add", path + "/" + i, b.get(i));
            for (int i = a.size() - 1; i >= common; i--) op(ops, "remove", path + "/" + i, null);
            return;
        }
        op(ops, "replace", path, b);
    }

    private static void op(ArrayNode ops, String op, String path, JsonNode value) {
        ObjectNode o = ops.addObject();
        o.put("op", op);
        o.put("path", path);
        if (value != null) o.set("value", value.deepCopy());
    }
}
