package dev.ace.binpacker.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.values.NullValue;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The API server's CEL for admission, as far as ACE's manifests use it: the variables {@code object},
 * {@code oldObject} (null on CREATE), {@code request}, {@code variables} (each policy variable
 * evaluated in order) and {@code authorizer}, whose checks are answered from a set of
 * "group/resource/verb" the caller is allowed, as the API server's authorizer would answer them.
 * Kubernetes enables the strings extension ({@code join}); so does this.
 */
final class Cel {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final OpaqueType AUTHORIZER = OpaqueType.create("kubernetes.authorization.Authorizer");
    private static final OpaqueType GROUP = OpaqueType.create("kubernetes.authorization.GroupCheck");
    private static final OpaqueType RESOURCE = OpaqueType.create("kubernetes.authorization.ResourceCheck");
    private static final OpaqueType DECISION = OpaqueType.create("kubernetes.authorization.Decision");

    record Authorizer(Set<String> allowed) {}
    record GroupCheck(Authorizer a, String group) {}
    record ResourceCheck(GroupCheck g, String resource) {}
    record Decision(boolean allowed) {}

    /** What a request is: who sends it and what the authorizer allows them ("group/resource/verb"). */
    record Caller(String username, List<String> groups, Set<String> allowed) {}

    /** The policy's answer: allowed, or the message of the first failing validation. */
    record Verdict(boolean allowed, String message) {}

    private static final CelCompiler COMPILER = CelCompilerFactory.standardCelCompilerBuilder()
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS) // has(), exists(), all(), filter(), as in Kubernetes
            .addVar("object", SimpleType.DYN).addVar("oldObject", SimpleType.DYN).addVar("request", SimpleType.DYN)
            .addVar("variables", SimpleType.DYN).addVar("authorizer", AUTHORIZER)
            .addFunctionDeclarations(
                    CelFunctionDecl.newFunctionDeclaration("group", CelOverloadDecl.newMemberOverload("authorizer_group", GROUP, AUTHORIZER, SimpleType.STRING)),
                    CelFunctionDecl.newFunctionDeclaration("resource", CelOverloadDecl.newMemberOverload("group_resource", RESOURCE, GROUP, SimpleType.STRING)),
                    CelFunctionDecl.newFunctionDeclaration("check", CelOverloadDecl.newMemberOverload("resource_check", DECISION, RESOURCE, SimpleType.STRING)),
                    CelFunctionDecl.newFunctionDeclaration("allowed", CelOverloadDecl.newMemberOverload("decision_allowed", SimpleType.BOOL, DECISION)))
            .addLibraries(CelExtensions.strings())
            .build();

    private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder()
            .addFunctionBindings(
                    CelFunctionBinding.from("authorizer_group", Authorizer.class, String.class, GroupCheck::new),
                    CelFunctionBinding.from("group_resource", GroupCheck.class, String.class, ResourceCheck::new),
                    CelFunctionBinding.from("resource_check", ResourceCheck.class, String.class,
                            (r, verb) -> new Decision(r.g().a().allowed().contains(r.g().group() + "/" + r.resource() + "/" + verb))),
                    CelFunctionBinding.from("decision_allowed", Decision.class, Decision::allowed))
            .addLibraries(CelExtensions.strings())
            .build();

    private Cel() {}

    /** Every document of a YAML file, as JSON trees. */
    static List<JsonNode> documents(Path file) throws Exception {
        List<JsonNode> docs = new ArrayList<>();
        try (YAMLParser parser = new YAMLFactory().createParser(Files.readAllBytes(file))) {
            var it = YAML.readValues(parser, JsonNode.class);
            while (it.hasNext()) docs.add(it.next());
        }
        return docs;
    }

    static Object eval(String expression, Map<String, Object> activation) {
        try {
            CelAbstractSyntaxTree ast = COMPILER.compile(expression).getAst();
            return RUNTIME.createProgram(ast).eval(activation);
        } catch (Exception e) {
            throw new AssertionError("CEL failed on: " + expression + ": " + e.getMessage(), e);
        }
    }

    /** A ValidatingAdmissionPolicy's spec run as the API server runs it on one request. */
    static Verdict admit(JsonNode policySpec, String operation, JsonNode object, JsonNode oldObject, Caller caller) {
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("operation", operation);
        request.put("userInfo", Map.of("username", caller.username(), "groups", caller.groups()));
        Map<String, Object> vars = new LinkedHashMap<>();
        Map<String, Object> activation = new LinkedHashMap<>();
        activation.put("object", value(object));
        activation.put("oldObject", oldObject == null ? NullValue.NULL_VALUE : value(oldObject));
        activation.put("request", request);
        activation.put("authorizer", new Authorizer(caller.allowed()));
        activation.put("variables", vars);
        for (JsonNode v : policySpec.path("variables")) vars.put(v.path("name").asText(), eval(v.path("expression").asText(), activation));
        for (JsonNode check : policySpec.path("validations")) {
            if (!Boolean.TRUE.equals(eval(check.path("expression").asText(), activation))) {
                return new Verdict(false, String.valueOf(eval(check.path("messageExpression").asText(), activation)));
            }
        }
        return new Verdict(true, null);
    }

    /** JSON as CEL sees it: maps, lists, strings, 64-bit integers, doubles, booleans. */
    static Object value(JsonNode n) {
        if (n == null || n.isNull() || n.isMissingNode()) return NullValue.NULL_VALUE;
        if (n.isObject()) {
            Map<String, Object> m = new LinkedHashMap<>();
            n.fields().forEachRemaining(e -> m.put(e.getKey(), value(e.getValue())));
            return m;
        }
        if (n.isArray()) {
            List<Object> l = new ArrayList<>();
            n.forEach(e -> l.add(value(e)));
            return l;
        }
        if (n.isBoolean()) return n.asBoolean();
        if (n.isIntegralNumber()) return n.asLong();
        if (n.isNumber()) return n.asDouble();
        return n.asText();
    }
}
