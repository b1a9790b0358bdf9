package dev.ace.binpacker.cluster.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.cluster.agent.podresources.AllocatableResourcesRequest;
import dev.ace.binpacker.cluster.agent.podresources.AllocatableResourcesResponse;
import dev.ace.binpacker.cluster.agent.podresources.ContainerDevices;
import dev.ace.binpacker.cluster.agent.podresources.ContainerResources;
import dev.ace.binpacker.cluster.agent.podresources.ListPodResourcesRequest;
import dev.ace.binpacker.cluster.agent.podresources.ListPodResourcesResponse;
import dev.ace.binpacker.cluster.agent.podresources.NUMANode;
import dev.ace.binpacker.cluster.agent.podresources.PodResources;
import dev.ace.binpacker.cluster.agent.podresources.PodResourcesListerGrpc;
import dev.ace.binpacker.cluster.agent.podresources.TopologyInfo;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A kubelet PodResources v1 endpoint on a Unix socket, as the kubelet serves it: the real gRPC
 * protocol over a domain socket, answering recorded {@code List} JSON. {@link #close()} removes the
 * socket file like a stopping kubelet; a new FakeKubelet on the same path is a restarted kubelet.
 */
public final class FakeKubelet implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path socket;
    private final EpollEventLoopGroup group = new EpollEventLoopGroup(1);
    private final Server server;

    public FakeKubelet(Path socket, ListPodResourcesResponse list, List<String> allocatableGpuIds) throws IOException {
        this.socket = socket;
        AllocatableResourcesResponse alloc = AllocatableResourcesResponse.newBuilder()
                .addDevices(ContainerDevices.newBuilder().setResourceName("nvidia.com/gpu").addAllDeviceIds(allocatableGpuIds))
                .build();
        this.server = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollServerDomainSocketChannel.class)
                .bossEventLoopGroup(group)
                .workerEventLoopGroup(group)
                .addService(new PodResourcesListerGrpc.PodResourcesListerImplBase() {
                    @Override
                    public void list(ListPodResourcesRequest request, StreamObserver<ListPodResourcesResponse> out) {
                        out.onNext(list);
                        out.onCompleted();
                    }

                    @Override
                    public void getAllocatableResources(AllocatableResourcesRequest request, StreamObserver<AllocatableResourcesResponse> out) {
                        out.onNext(alloc);
                        out.onCompleted();
                    }
                })
                .build()
                .start();
    }

    @Override
    public void close() throws Exception {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        Files.deleteIfExists(socket);
    }

    /**
     * A recorded {@code List} answer: Go JSON ({@code pod_resources}, {@code device_ids}) or protobuf
     * JSON ({@code podResources}, {@code deviceIds}) alike, keys compared without case or underscores.
     */
    static ListPodResourcesResponse list(Path json) throws IOException {
        JsonNode root = JSON.readTree(json.toFile());
        ListPodResourcesResponse.Builder b = ListPodResourcesResponse.newBuilder();
        for (JsonNode p : field(root, "podresources")) {
            PodResources.Builder pod = PodResources.newBuilder().setName(field(p, "name").asText()).setNamespace(field(p, "namespace").asText());
            for (JsonNode c : field(p, "containers")) {
                ContainerResources.Builder cb = ContainerResources.newBuilder().setName(field(c, "name").asText(""));
                for (JsonNode d : field(c, "devices")) cb.addDevices(devices(d));
                pod.addContainers(cb);
            }
            b.addPodResources(pod);
        }
        return b.build();
    }

    /** A {@code List} answer of pods each holding the given device IDs under nvidia.com/gpu. */
    public static ListPodResourcesResponse list(Map<String, List<String>> podsToIds) {
        ListPodResourcesResponse.Builder b = ListPodResourcesResponse.newBuilder();
        podsToIds.forEach((key, ids) -> {
            String[] nsName = key.split("/", 2);
            b.addPodResources(PodResources.newBuilder().setNamespace(nsName[0]).setName(nsName[1])
                    .addContainers(ContainerResources.newBuilder().setName("main")
                            .addDevices(ContainerDevices.newBuilder().setResourceName("nvidia.com/gpu").addAllDeviceIds(ids))));
        });
        return b.build();
    }

    private static ContainerDevices devices(JsonNode d) {
        ContainerDevices.Builder b = ContainerDevices.newBuilder().setResourceName(field(d, "resourcename").asText());
        for (JsonNode id : field(d, "deviceids")) b.addDeviceIds(id.asText());
        TopologyInfo.Builder t = TopologyInfo.newBuilder();
        for (JsonNode n : field(field(d, "topology"), "nodes")) t.addNodes(NUMANode.newBuilder().setID(field(n, "id").asLong()));
        return b.setTopology(t).build();
    }

    private static JsonNode field(JsonNode o, String normalized) {
        for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().replace("_", "").toLowerCase(Locale.ROOT).equals(normalized)) return e.getValue();
        }
        return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }
}
