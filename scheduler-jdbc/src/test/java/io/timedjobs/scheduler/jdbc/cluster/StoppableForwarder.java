package io.timedjobs.scheduler.jdbc.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Test fixture; any thread. A loopback TCP forwarder in front of a database server shared with other
 * tests, which it can seem to stop and start: while stopped, every connection through it is closed
 * and each new one closed at once, as a stopped server's would be; the server itself runs on.
 */
final class StoppableForwarder implements AutoCloseable {

    private final ServerSocket server;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "test-forwarder");
        thread.setDaemon(true);
        return thread;
    });

    private volatile boolean stopped;
    private volatile boolean closed;

    StoppableForwarder(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        threads.execute(this::accept);
    }

    /** Returns the port to connect to instead of the server's. */
    int port() {
        return server.getLocalPort();
    }

    /** Closes every connection, and refuses new ones until {@link #start()}. */
    void stop() {
        stopped = true;
        sockets.forEach(StoppableForwarder::closeQuietly);
        sockets.clear();
    }

    void start() {
        stopped = false;
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                if (stopped) {
                    closeQuietly(client);
                    continue;
                }
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(client);
                sockets.add(upstream);
                threads.execute(() -> pump(client, upstream));
                threads.execute(() -> pump(upstream, client));
            } catch (IOException ex) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private static void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int read;
            while ((read = in.read(buffer)) >= 0) {
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException ex) {
            // one side closed or the forwarder stops: close both
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ex) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        sockets.forEach(StoppableForwarder::closeQuietly);
        threads.shutdownNow();
    }
}
