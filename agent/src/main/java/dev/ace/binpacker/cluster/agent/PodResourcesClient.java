package dev.ace.binpacker.cluster.agent;

import dev.ace.binpacker.cluster.agent.podresources.AllocatableResourcesRequest;
import dev.ace.binpacker.cluster.agent.podresources.AllocatableResourcesResponse;
import dev.ace.binpacker.cluster.agent.podresources.ContainerDevices;
import dev.ace.binpacker.cluster.agent.podresources.ContainerResources;
import dev.ace.binpacker.cluster.agent.podresources.ListPodResourcesRequest;
import dev.ace.binpacker.cluster.agent.podresources.ListPodResourcesResponse;
import dev.ace.binpacker.cluster.agent.podresources.PodResources;
import dev.ace.binpacker.cluster.agent.podresources.PodResourcesListerGrpc;
import dev.ace.binpacker.truth.NodeReport;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The kubelet PodResources v1 API over its Unix socket: {@code List} (which devices each pod's
 * containers hold) and {@code GetAllocatableResources} (the devices the kubelet can hand out, i.e.
 * the device plugins' healthy ones). Only {@code nvidia.com/*} resources are kept.
 *
 * <p>A kubelet restart removes the socket and creates a new one at the same path: the client notes
 * the socket file's identity and dials again when it changed or a call finds the kubelet gone. A
 * missing socket is an error for the round, never an empty answer (that would read as "no pod holds
 * a GPU").
 */
public final class PodResourcesClient implements AutoCloseable {
    /** What the kubelet said in one round. */
    public record Snapshot(List<NodeReport.Holding> holdings, List<String> allocatable) {}

    private static final String NVIDIA = "nvidia.com/";

    private final Path socket;
    private final Duration timeout;
    private EpollEventLoopGroup group;
    private ManagedChannel channel;
    private Object socketKey;

    public PodResourcesClient(Path socket, Duration timeout) {
        this.socket = Objects.requireNonNull(socket, "socket");
        this.timeout = timeout;
    }

    /** Both calls; retried once on a fresh connection when the kubelet was restarted under us. */
    public synchronized Snapshot read() throws IOException {
        try {
            return call();
        } catch (StatusRuntimeException first) {
            disconnect();
            try {
                return call();
            } catch (StatusRuntimeException second) {
                disconnect();
                throw new IOException("kubelet PodResources API at " + socket + " failed: " + second.getStatus(), second);
            }
        }
    }

    private Snapshot call() throws IOException {
        var stub = PodResourcesListerGrpc.newBlockingStub(channel()).withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS);
        ListPodResourcesResponse list = stub.list(ListPodResourcesRequest.getDefaultInstance());
        AllocatableResourcesResponse alloc = PodResourcesListerGrpc.newBlockingStub(channel())
                .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .getAllocatableResources(AllocatableResourcesRequest.getDefaultInstance());
        List<NodeReport.Holding> holdings = new ArrayList<>();
        for (PodResources pod : list.getPodResourcesList()) {
            for (ContainerResources c : pod.getContainersList()) {
                List<String> ids = nvidiaIds(c.getDevicesList());
                if (!ids.isEmpty()) holdings.add(new NodeReport.Holding(pod.getNamespace(), pod.getName(), ids));
            }
        }
        return new Snapshot(holdings, nvidiaIds(alloc.getDevicesList()));
    }

    private static List<String> nvidiaIds(List<ContainerDevices> devices) {
        List<String> ids = new ArrayList<>();
        for (ContainerDevices d : devices) if (d.getResourceName().startsWith(NVIDIA)) ids.addAll(d.getDeviceIdsList());
        return ids;
    }

    private ManagedChannel channel() throws IOException {
        Object key = socketKey();
        if (channel != null && !key.equals(socketKey)) disconnect();
        if (channel == null) {
            if (group == null) group = new EpollEventLoopGroup(1);
            channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                    .eventLoopGroup(group)
                    .channelType(EpollDomainSocketChannel.class)
                    .usePlaintext()
                    .build();
            socketKey = key;
        }
        return channel;
    }

    /** Inode and creation time of the socket: a restarted kubelet's socket differs. */
    private Object socketKey() throws IOException {
        try {
            BasicFileAttributes a = Files.readAttributes(socket, BasicFileAttributes.class);
            Object k = a.fileKey();
            return List.of(k == null ? "" : k, a.creationTime(), a.lastModifiedTime());
        } catch (NoSuchFileException e) {
            disconnect();
            throw new IOException("no kubelet PodResources socket at " + socket
                    + " (is /var/lib/kubelet/pod-resources mounted, and the kubelet running?)");
        }
    }

    private void disconnect() {
        if (channel != null) {
            channel.shutdownNow();
            channel = null;
        }
        socketKey = null;
    }

    @Override
    public synchronized void close() {
        disconnect();
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            group = null;
        }
    }
}
