package dev.ace.binpacker.cluster.dra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.truth.dra.ClaimSelector;
import dev.ace.binpacker.truth.dra.DraDevice;
import dev.ace.binpacker.truth.dra.DraJoin;
import dev.ace.binpacker.truth.dra.DraNode;
import dev.ace.binpacker.truth.dra.DraPools;
import dev.ace.binpacker.truth.dra.DraSlice;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The selector ACE writes, compiled and run with Google's CEL (the language and standard library of the API server's
 * cel-go) in the shape of Kubernetes' DRA environment (k8s.io/dynamic-resource-allocation/cel): one variable
 * {@code device} with {@code driver} (string), {@code attributes} and {@code capacity} (maps of domain to maps of
 * attribute name to value; a driver's bare attribute names sit under the driver's own domain). Over random boards,
 * occupancies, device orders, MIG devices and another driver's devices that copy our UUIDs, it selects exactly the
 * GPUs the board's free clique holds, and the request's count equals them.
 */
class ClaimCelTest {
    private static final String DRIVER = "gpu.nvidia.com";
    private static final CelCompiler COMPILER = CelCompilerFactory.standardCelCompilerBuilder()
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .addVar("device", SimpleType.DYN)
            .build();
    private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder().build();

    /** The device as Kubernetes' DRA CEL environment presents it. */
    static Map<String, Object> celDevice(String driver, DraDevice d) {
        Map<String, Object> own = new HashMap<>();
        own.put("type", d.kind() == DraDevice.Kind.GPU ? "gpu" : d.kind() == DraDevice.Kind.MIG ? "mig" : "vfio");
        own.put("uuid", d.uuid());
        own.put("productName", d.productName());
        if (!d.parentUuid().isEmpty()) own.put("parentUUID", d.parentUuid());
        Map<String, Object> standard = new HashMap<>();
        if (!d.pciBusId().isEmpty()) standard.put("pciBusID", d.pciBusId());
        if (!d.pcieRoot().isEmpty()) standard.put("pcieRoot", d.pcieRoot());
        return Map.of("driver", driver, "attributes", Map.of(driver, own, "resource.kubernetes.io", standard),
                "capacity", Map.of(driver, Map.of("memory", 85899345920L)));
    }

    static boolean selects(CelAbstractSyntaxTree ast, Map<String, Object> device) throws Exception {
        return Boolean.TRUE.equals(RUNTIME.createProgram(ast).eval(Map.of("device", device)));
    }

    private static String uuid(Random r) {
        return String.format("GPU-%08x-%04x-%04x-%04x-%012x", r.nextInt(), r.nextInt(0x10000), r.nextInt(0x10000), r.nextInt(0x10000), r.nextLong() & 0xffffffffffffL);
    }

    @Test
    void selectsExactlyTheReservedGpusOverRandomNodes() throws Exception {
        int checked = 0;
        for (long seed = 1; seed <= 300; seed++) {
            Random r = new Random(seed);
            String product = r.nextBoolean() ? "NVIDIA H100 80GB HBM3" : "NVIDIA A100-PCIE-80GB";
            int n = product.contains("H100") ? 8 : 2 * (1 + r.nextInt(4));
            List<String> agent = new ArrayList<>();
            List<DraDevice> devices = new ArrayList<>();
            List<Integer> minors = new ArrayList<>();
            for (int i = 0; i < n; i++) minors.add(i);
            Collections.shuffle(minors, r); // the driver's minors are not nvidia-smi's indices
            int migGpu = r.nextInt(4) == 0 ? r.nextInt(n) : -1;
            for (int i = 0; i < n; i++) {
                String u = uuid(r);
                agent.add(u);
                String bus = String.format("0000:%02x:00.0", 0x10 + i);
                if (i == migGpu) {
                    for (int s = 0; s < 2; s++) devices.add(new DraDevice("gpu-" + minors.get(i) + "-mig-3g40gb-9-" + 4 * s, DraDevice.Kind.MIG,
                            "MIG-" + u.substring(4), u, product, "", bus, -1, List.of(), List.of()));
                } else {
                    devices.add(new DraDevice("gpu-" + minors.get(i), DraDevice.Kind.GPU, u, "", product, "pci0000:" + i / 2, bus, -1, List.of(), List.of()));
                }
            }
            Collections.shuffle(devices, r);
            DraNode node = DraJoin.join(DraPools.byNode(List.of(new DraSlice("s", DRIVER, "n", 1, 1, "n", devices)), Set.of(DRIVER)).get("n"),
                    agent, java.util.Optional.empty());
            assertTrue(node.served(), node.reason());
            GpuBoard board = node.board().orElseThrow();
            long occupied = r.nextLong() & board.allGpus() | node.held();
            int k = 1 << r.nextInt(Integer.numberOfTrailingZeros(Integer.highestOneBit(n)) + 1);
            List<Long> free = new ArrayList<>();
            for (long c : board.cliques(k)) if ((c & occupied) == 0) free.add(c);
            if (free.isEmpty()) continue;
            long reserved = free.get(r.nextInt(free.size()));

            ClaimSelector sel = ClaimSelector.of(DRIVER, node.devices(reserved));
            CelAbstractSyntaxTree ast = COMPILER.compile(sel.expression()).getAst();
            Set<String> picked = new LinkedHashSet<>();
            for (DraDevice d : devices) if (selects(ast, celDevice(DRIVER, d))) picked.add(d.name());
            // Another driver publishing devices with our UUIDs is never selected.
            for (DraDevice d : node.devices(reserved)) assertTrue(!selects(ast, celDevice("gpu.example.com", d)), "seed " + seed);
            Set<String> want = new LinkedHashSet<>();
            node.devices(reserved).forEach(d -> want.add(d.name()));
            assertEquals(new java.util.TreeSet<>(want), new java.util.TreeSet<>(picked), "seed " + seed + ": " + sel.expression());
            assertEquals(Long.bitCount(reserved), sel.count(), "seed " + seed);
            checked++;
        }
        assertTrue(checked > 150, "enough trials had a free clique: " + checked);
    }

    @Test
    void theDeviceClassOfTheDriversChartCompilesInTheSameEnvironment() throws Exception {
        CelAbstractSyntaxTree cls = COMPILER.compile("device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'").getAst();
        DraDevice gpu = new DraDevice("gpu-0", DraDevice.Kind.GPU, uuid(new Random(1)), "", "x", "", "", -1, List.of(), List.of());
        assertTrue(selects(cls, celDevice(DRIVER, gpu)));
        DraDevice mig = new DraDevice("gpu-0-mig-1g10gb-19-0", DraDevice.Kind.MIG, "MIG-1", gpu.uuid(), "x", "", "", -1, List.of(), List.of());
        assertTrue(!selects(cls, celDevice(DRIVER, mig)));
    }
}
