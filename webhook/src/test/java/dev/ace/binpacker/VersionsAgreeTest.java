package dev.ace.binpacker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/** One version names the jar, the image, the chart, the kustomize install's image tag and the newest changelog entry. */
class VersionsAgreeTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private static String pomVersion() throws Exception {
        Element project = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Path.of("pom.xml").toFile()).getDocumentElement();
        for (Node n = project.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals("version")) return e.getTextContent().strip();
        }
        throw new AssertionError("pom.xml has no version");
    }

    private static String one(Pattern p, String text, String what) {
        Matcher m = p.matcher(text);
        assertTrue(m.find(), what + " not found");
        return m.group(1);
    }

    private static String kustomizeTag(String file, String image) throws Exception {
        for (JsonNode i : YAML.readTree(Path.of(file).toFile()).path("images")) {
            if (i.path("newName").asText().equals(image)) return i.path("newTag").asText();
        }
        throw new AssertionError(file + " names no " + image + " image");
    }

    @Test
    void the_jar_the_image_the_chart_the_kustomize_install_and_the_changelog_name_one_version() throws Exception {
        String version = pomVersion();
        assertTrue(version.matches("\\d+\\.\\d+\\.\\d+"), "a release version, not " + version);
        JsonNode chart = YAML.readTree(Path.of("deploy/helm/ace-binpacker/Chart.yaml").toFile());
        String dockerfile = Files.readString(Path.of("Dockerfile"));
        Map<String, String> named = new LinkedHashMap<>();
        named.put("Chart.yaml version", chart.path("version").asText());
        named.put("Chart.yaml appVersion", chart.path("appVersion").asText());
        named.put("Dockerfile label", one(Pattern.compile("org\\.opencontainers\\.image\\.version=\"([^\"]+)\""), dockerfile, "the version label"));
        named.put("Dockerfile tag", one(Pattern.compile("docker build -t ghcr\\.io/ace-dev/ace-binpacker:(\\S+)"), dockerfile, "the build command"));
        named.put("deploy/ image tag", kustomizeTag("deploy/kustomization.yaml", "ghcr.io/ace-dev/ace-binpacker"));
        String agentDockerfile = Files.readString(Path.of("agent/Dockerfile"));
        named.put("agent/Dockerfile label", one(Pattern.compile("org\\.opencontainers\\.image\\.version=\"([^\"]+)\""), agentDockerfile, "the agent's version label"));
        named.put("agent/Dockerfile tag", one(Pattern.compile("docker build -f agent/Dockerfile -t ghcr\\.io/ace-dev/ace-agent:(\\S+)"), agentDockerfile, "the agent's build command"));
        named.put("deploy/agent image tag", kustomizeTag("deploy/agent/kustomization.yaml", "ghcr.io/ace-dev/ace-agent"));
        named.put("newest CHANGELOG release", one(Pattern.compile("(?m)^## \\[(\\d[^]]*)\\]"), Files.readString(Path.of("CHANGELOG.md")), "a release heading"));
        Map<String, String> expected = new LinkedHashMap<>();
        named.keySet().forEach(k -> expected.put(k, version));
        assertEquals(expected, named, "pom.xml says " + version);
    }

    @Test
    void the_licence_is_apache_2_and_the_chart_and_image_say_so() throws Exception {
        assertTrue(Files.readString(Path.of("LICENSE")).contains("Apache License\n                           Version 2.0, January 2004"));
        assertEquals("Apache-2.0", YAML.readTree(Path.of("deploy/helm/ace-binpacker/Chart.yaml").toFile()).path("license").asText());
        assertTrue(Files.readString(Path.of("Dockerfile")).contains("org.opencontainers.image.licenses=\"Apache-2.0\""));
        assertTrue(Files.readString(Path.of("agent/Dockerfile")).contains("org.opencontainers.image.licenses=\"Apache-2.0\""));
    }
}
